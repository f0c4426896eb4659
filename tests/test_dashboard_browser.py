"""The dashboard driven by a real headless Chromium against a live ``houkai serve`` and worker.

Debian's ``chromium`` + ``chromium-driver`` (``.ci/run`` installs them); without
them the module skips, except under ``CI=true`` where it fails. Server, worker
and seeded data share a hash embedder under their own key prefix, so nothing
loads a model. Set ``HOUKAI_UI_SCREENSHOTS=DIR`` to save the README's screenshots.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from _childenv import child_env

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
RW, RO = "ui-rw-token", "ui-ro-token"
HOUKAI = str(Path(sys.executable).parent / "houkai")
SHOTS = os.environ.get("HOUKAI_UI_SCREENSHOTS", "")
DOC = "\n\n".join(
    f"Section {i}. The quarterly report describes item {i} of the migration plan: "
    + "each service moves to the new cluster after its owner signs off. " * 4
    for i in range(12)
)

if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(
            "CI: chromium and chromium-driver are required (apt-get install chromium "
            "chromium-driver)",
            pytrace=False,
        )
    pytest.skip("chromium / chromedriver not installed", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.expected_conditions import staleness_of  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _env(settings, prefix: str, collection: str) -> dict[str, str]:
    env = child_env()
    env.update(
        {
            "HOUKAI_CONFIG": "/nonexistent/houkai.toml",
            "HOUKAI_REDIS_URL": settings.redis_url,
            "HOUKAI_DATA_DIR": settings.data_dir,
            "HOUKAI_KEY_PREFIX": prefix,
            "HOUKAI_COLLECTION": collection,
            "HOUKAI_EMBEDDER": "hash:384",
            "HOUKAI_HNSW_M": "8",
            "HOUKAI_HNSW_EF_CONSTRUCTION": "40",
            "HOUKAI_MAINTENANCE_REFLECT_ENABLED": "false",
            "HOUKAI_HTTP_TOKENS": f"{RW},{RO}:{collection}:ro",
        }
    )
    return env


class Live:
    """A worker and ``houkai serve`` subprocess on the session Redis, plus seeded memories."""

    def __init__(self, settings, tmp: Path) -> None:
        self.prefix = settings.key_prefix + "-ui"
        self.collection = f"ui-{uuid.uuid4().hex[:6]}"
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.tmp = tmp
        self.procs: list[subprocess.Popen] = []
        self.settings = settings.replace(
            key_prefix=self.prefix,
            collection=self.collection,
            embedder="hash:384",
            hnsw_m=8,
            hnsw_ef_construction=40,
        )
        self.env = _env(settings, self.prefix, self.collection)

    def spawn(self, *args: str) -> subprocess.Popen:
        log = open(self.tmp / f"{args[0]}.log", "wb")  # noqa: SIM115
        proc = subprocess.Popen(
            [HOUKAI, *args],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.procs.append(proc)
        return proc

    def start(self) -> None:
        from houkai.db.connection import get_client
        from houkai.pipeline.jobs import workers_alive

        worker = self.spawn("worker", "-c", "1")
        server = self.spawn("serve", "--host", "127.0.0.1", "--port", str(self.port))
        client = get_client(self.settings.redis_url)
        deadline = time.monotonic() + 180
        while workers_alive(client, self.prefix) == 0 or not self._healthy():
            for proc in (worker, server):
                if proc.poll() is not None:
                    logs = "\n".join(p.read_text()[-1500:] for p in self.tmp.glob("*.log"))
                    pytest.fail(f"dashboard live stack exited:\n{logs}")
            assert time.monotonic() < deadline, "worker/server did not come up"
            time.sleep(0.3)

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(self.base + "/health", timeout=2) as resp:
                return resp.status == 200
        except OSError:
            return False

    def api(self, method: str, path: str, body=None, token: str = RW):
        req = urllib.request.Request(
            f"{self.base}/c/{self.collection}{path}",
            data=None if body is None else json.dumps(body).encode(),
            method=method,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@pytest.fixture(scope="module")
def live(settings, tmp_path_factory):
    from houkai.engines.embeddings import HashEmbedder
    from houkai.store import MemoryStore

    stack = Live(settings, tmp_path_factory.mktemp("ui-live"))
    store = MemoryStore(
        collection=stack.collection, settings=stack.settings, embedder=HashEmbedder(384)
    )
    ids = {}
    for key, text, kind, tags, importance in (
        ("prefs", "The user prefers dark mode in every editor", "semantic", ["prefs"], 0.8),
        ("deploy", "Deploys go out on Tuesdays after the standup", "procedural", ["ops"], 0.7),
        ("owner", "Alice owns the billing service", "semantic", ["people", "billing"], 0.6),
        ("db", "Billing service runs on Postgres 16", "semantic", ["billing", "infra"], 0.5),
        ("incident", "The billing deploy failed on a migration lock", "episodic", ["billing"], 0.9),
        ("flags", "Use feature flags for risky billing changes", "procedural", ["billing"], 0.75),
    ):
        ids[key] = store.remember(text, type=kind, tags=tags, importance=importance).id
    store.link(ids["owner"], ids["db"], "related")
    store.link(ids["incident"], ids["db"], "related")
    store.link(ids["flags"], ids["incident"], "derived_from")
    store.link(ids["db"], ids["deploy"], "related")
    store.edit(ids["db"], text="Billing service runs on Postgres 16 with pgbouncer")
    stack.ids = ids
    try:
        stack.start()
        yield stack
    finally:
        stack.stop()
        store.drop()


@pytest.fixture(scope="module")
def browser():
    from houkai.bench.dashboard import chromium_options

    profile = tempfile.mkdtemp(prefix="houkai-ui-chrome-")
    options = chromium_options(profile)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _wait(driver, condition, timeout: float = 30):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(condition)


def _view(driver, name: str, timeout: float = 30, after=None):
    """Wait for the view *name* to finish rendering; fail with its error if it could not.

    *after*: the view's root before the action that re-renders it (a search, a filter, a
    new hash), which stays ready until the router replaces it: wait for that first, or
    the old root is found ready and goes stale under the caller."""
    if after is not None:
        _wait(driver, staleness_of(after), timeout)

    def ready(d):
        found = d.execute_script(
            "const r = document.querySelector(arguments[0]);"
            "if (!r) return null;"
            "const e = r.querySelector('#view-error');"
            "return [r, e ? e.textContent : null];",
            f"#view > [data-view='{name}'][data-ready='1']",
        )
        return found or False

    root, error = _wait(driver, ready, timeout)
    assert error is None, error
    return root


def _root(driver):
    """The view's current root element (None before the first view)."""
    return driver.execute_script("return document.querySelector('#view > div')")


def _text_of(driver, element_id: str) -> str | None:
    """An element's text read in one script call (no stale references across re-renders)."""
    return driver.execute_script(
        "const e = document.getElementById(arguments[0]); return e ? e.textContent : null",
        element_id,
    )


def _go(driver, hash_: str, name: str):
    before = _root(driver)
    moved = driver.execute_script(  # as the browser encodes it: only a new hash re-renders
        "const b = location.hash; location.hash = arguments[0]; return location.hash !== b;",
        hash_,
    )
    return _view(driver, name, after=before if moved else None)


def _login(driver, live: Live, token: str) -> None:
    driver.get(live.base + "/ui")
    driver.execute_script("sessionStorage.clear(); location.hash = '#/search'")
    driver.refresh()
    field = _wait(driver, lambda d: d.find_element(By.ID, "token"))
    _wait(driver, lambda d: field.is_displayed())
    field.send_keys(token)
    driver.find_element(By.ID, "login-button").click()
    _view(driver, "search")
    assert token not in driver.current_url


def _shot(driver, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        driver.execute_script("document.getElementById('toast').className = ''")
        time.sleep(0.3)
        driver.save_screenshot(str(Path(SHOTS) / f"{name}.png"))


def test_login_search_open_a_memory_and_see_links_and_history(live, browser):
    _login(browser, live, RW)
    assert browser.find_element(By.ID, "mode-badge").text == "read-write"
    options = [
        o.get_attribute("value")
        for o in browser.find_elements(By.CSS_SELECTOR, "#collection option")
    ]
    assert live.collection in options
    browser.find_element(By.ID, "q").send_keys("postgres pgbouncer")
    before = _root(browser)
    browser.find_element(By.ID, "search-button").click()
    root = _view(browser, "search", after=before)
    first = root.find_element(By.CSS_SELECTOR, "#results li.result")
    assert first.get_attribute("data-id") == live.ids["db"]
    assert first.find_elements(By.CSS_SELECTOR, ".explain .fill"), "no explain bars"
    # one absolute scale for every hit (api/ui/static/explain.js; tests/test_dashboard_explain)
    bars = root.find_elements(By.CSS_SELECTOR, "#results .explain")
    assert len(bars) > 1 and {b.get_attribute("data-scale") for b in bars} == {"1"}
    _shot(browser, "search")
    first.find_element(By.CSS_SELECTOR, "a.open").click()
    root = _view(browser, "m")
    assert "pgbouncer" in root.find_element(By.ID, "memory-text").text
    linked = {
        li.get_attribute("data-id") for li in root.find_elements(By.CSS_SELECTOR, "#links li")
    }
    assert linked == {live.ids["owner"], live.ids["incident"], live.ids["deploy"]}
    # The graph reaches a neighbour's neighbour (flags → incident → db).
    nodes = {
        g.get_attribute("data-id") for g in root.find_elements(By.CSS_SELECTOR, "#link-graph .node")
    }
    assert live.ids["flags"] in nodes
    ops = [li.get_attribute("data-op") for li in root.find_elements(By.CSS_SELECTOR, "#history li")]
    assert ops[0] == "edit" and "remember" in ops
    _shot(browser, "memory")
    # Clicking a graph node opens that memory.
    before = _root(browser)
    browser.execute_script(
        "document.querySelector(`#link-graph .node[data-id='${arguments[0]}']`)"
        ".dispatchEvent(new MouseEvent('click', {bubbles: true}))",
        live.ids["flags"],
    )
    _wait(browser, lambda d: live.ids["flags"] in d.current_url)
    root = _view(browser, "m", after=before)
    assert root.find_element(By.ID, "memory-text").text.startswith("Use feature flags")


def test_edit_then_undo_brings_the_old_text_back(live, browser):
    _login(browser, live, RW)
    root = _go(browser, f"#/m/{live.ids['prefs']}", "m")
    old = root.find_element(By.ID, "memory-text").text
    root.find_element(By.ID, "edit").click()
    area = root.find_element(By.ID, "edit-text")
    area.clear()
    area.send_keys("The user prefers light mode now")
    root.find_element(By.ID, "edit-save").click()
    _wait(
        browser,
        lambda d: _text_of(d, "memory-text") == "The user prefers light mode now",
    )
    root = _view(browser, "m")
    assert (
        live.api("GET", f"/memories/{live.ids['prefs']}")["text"]
        == "The user prefers light mode now"
    )
    newest = root.find_element(By.CSS_SELECTOR, "#history li")
    assert newest.get_attribute("data-op") == "edit"
    newest.find_element(By.CSS_SELECTOR, "button.undo").click()
    _wait(browser, lambda d: _text_of(d, "memory-text") == old)
    assert live.api("GET", f"/memories/{live.ids['prefs']}")["text"] == old


def test_browse_health_and_narrow_screen(live, browser):
    _login(browser, live, RW)
    root = _go(browser, "#/browse", "browse")
    rows = root.find_elements(By.CSS_SELECTOR, "#browse-list li.result")
    assert len(rows) == 6
    facet = "//div[@id='type-facets']/a[starts-with(., 'procedural')]"
    before = _root(browser)
    _wait(browser, lambda d: d.find_elements(By.XPATH, facet))[0].click()
    _wait(browser, lambda d: "type=procedural" in d.current_url)
    root = _view(browser, "browse", after=before)
    kinds = {
        r.find_element(By.CSS_SELECTOR, ".badge").text
        for r in root.find_elements(By.CSS_SELECTOR, "#browse-list li.result")
    }
    assert kinds == {"procedural"}
    _go(browser, "#/browse", "browse")
    _shot(browser, "browse")
    root = _go(browser, "#/health", "health")
    labels = {
        svg.get_attribute("aria-label") for svg in root.find_elements(By.CSS_SELECTOR, "svg.chart")
    }
    assert {
        "memories per type",
        "growth over time",
        "decay score histogram",
        "recall latency percentiles",
        "redis bytes per memory",
    } <= labels
    # A collection never counted says so, then shows its figures once the first count is done.
    first = root.find_element(By.ID, "health-asof").text
    assert first.startswith(("Figures as of", "Counting this collection's figures")), first
    counted = (
        "const p = document.getElementById('health-asof');"
        "return !!p && p.textContent.startsWith('Figures as of')"
    )
    _wait(browser, lambda d: d.execute_script(counted), timeout=60)
    # Right after a write the view shows the last figures at once, said to be updating,
    # and catches up by itself once the server's background recount is done.
    live.api("POST", "/memories", {"text": "Health catches up after this write"})
    _go(browser, "#/health", "health")
    current = (
        "const p = document.getElementById('health-asof');"
        "return !!p && p.dataset.stale === '0' && p.textContent.includes('current')"
    )
    _wait(browser, lambda d: d.execute_script(current), timeout=60)
    assert "No LLM calls yet" in root.find_element(By.ID, "extraction-usage").text
    # LLM extraction's tokens and cost (issue #30) get their card once a call is counted
    from houkai.db.connection import get_client
    from houkai.db.keys import Keys
    from houkai.extraction.base import Usage
    from houkai.extraction.usage import record_usage

    spent = Usage("openai", "gpt-4o-mini", input_tokens=1200, output_tokens=300, calls=3)
    spent.cost_usd = 0.00036
    keys = Keys(live.prefix, live.collection)
    record_usage(get_client(live.settings.redis_url), keys, "job-ui", spent)
    _go(browser, "#/browse", "browse")
    root = _go(browser, "#/health", "health")
    usage = root.find_element(By.ID, "extraction-usage").text
    assert "3 calls" in usage and "openai $0.0004" in usage, usage
    assert root.find_elements(By.CSS_SELECTOR, "svg.chart[aria-label='LLM tokens by provider']")
    _shot(browser, "health")
    browser.set_window_size(390, 1100)
    try:
        for hash_, name in (
            ("#/search?q=postgres", "search"),
            ("#/browse", "browse"),
            ("#/pipeline", "pipeline"),
            ("#/health", "health"),
            (f"#/m/{live.ids['db']}", "m"),
        ):
            _go(browser, hash_, name)
            overflow = browser.execute_script(
                "return document.documentElement.scrollWidth - window.innerWidth"
            )
            assert overflow <= 0, f"{name} is {overflow}px wider than a phone screen"
        assert browser.find_element(By.CSS_SELECTOR, "#nav a[data-view='pipeline']").is_displayed()
        _shot(browser, "memory-narrow")
    finally:
        browser.set_window_size(1280, 900)


def test_ingest_progress_reaches_100_percent(live, browser):
    _login(browser, live, RW)
    root = _go(browser, "#/pipeline", "pipeline")
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#workers .dot.on"))
    browser.execute_script(
        "const t = document.getElementById('ingest-text'); t.value = arguments[0];", DOC
    )
    root.find_element(By.ID, "ingest-source").send_keys("quarterly-report.md")
    root.find_element(By.ID, "ingest-start").click()
    job_id = _wait(
        browser,
        lambda d: d.execute_script(
            "const r = document.querySelector('#jobs tr.selected'); return r && r.dataset.job"
        ),
    )
    seen: list[str] = []

    def done(d):
        pct, state = d.execute_script(
            "const r = document.querySelector(`#jobs tr[data-job='${arguments[0]}']`);"
            "return r ? [r.querySelector('.pct').textContent, r.querySelector('.badge')"
            ".textContent] : [null, null]",
            job_id,
        )
        seen.append(pct)
        return (pct, state) if pct == "100%" and state == "done" else False

    assert _wait(browser, done, timeout=120) == ("100%", "done")
    status = live.api("GET", f"/jobs/{job_id}")
    assert status["state"] == "done" and status["done"] == status["total"] > 1
    _shot(browser, "pipeline")


def test_read_only_token_sees_no_write_buttons_and_cannot_write(live, browser):
    _login(browser, live, RO)
    assert browser.find_element(By.ID, "mode-badge").text == "read-only"
    for hash_, name in (
        (f"#/m/{live.ids['deploy']}", "m"),
        ("#/pipeline", "pipeline"),
        ("#/search?q=billing", "search"),
        ("#/browse", "browse"),
    ):
        root = _go(browser, hash_, name)
        assert root.find_elements(By.CSS_SELECTOR, "button.write") == [], name
        assert not root.find_elements(By.ID, "ingest-text")
    root = _go(browser, f"#/m/{live.ids['deploy']}", "m")
    assert root.find_elements(By.CSS_SELECTOR, "#history li"), "history is still readable"
    status = browser.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        fetch(`/c/${arguments[0]}/memories/${arguments[1]}`, {
          method: 'PATCH',
          headers: {'Authorization': 'Bearer ' + sessionStorage.getItem('houkai.token'),
                    'Content-Type': 'application/json'},
          body: JSON.stringify({text: 'overwritten'}),
        }).then(r => done(r.status), e => done(String(e)));
        """,
        live.collection,
        live.ids["deploy"],
    )
    assert status == 403
    assert live.api("GET", f"/memories/{live.ids['deploy']}")["text"].startswith("Deploys go out")


# --------------------------------------------------------------------------- cross-site (issue 27)

ATTACK_PAGE = """<!doctype html><meta charset="utf-8"><title>attack</title><script>
window.attack = async function (base, collection) {
  const planted = JSON.stringify({text: "planted by another site", wait: true});
  const tries = [
    fetch(base + "/c/" + collection + "/memories", {method: "POST", mode: "no-cors",
      headers: {"Content-Type": "text/plain"}, body: planted}),
    fetch(base + "/c/" + collection + "/memories", {method: "POST", mode: "no-cors",
      body: new URLSearchParams({text: "planted by a form"})}),
    fetch(base + "/c/" + collection + "/nuke", {method: "POST", mode: "no-cors",
      headers: {"Content-Type": "text/plain"}, body: JSON.stringify({confirm: "DELETE ALL"})}),
    // a JSON request needs a CORS preflight, which the server never allows
    fetch(base + "/c/" + collection + "/memories", {method: "POST",
      headers: {"Content-Type": "application/json"}, body: planted}),
  ];
  const settled = await Promise.allSettled(tries);
  return settled.map((r) => r.status);
};
</script>"""


@pytest.fixture(scope="module")
def open_live(settings, tmp_path_factory):
    """The default ``houkai serve``: no tokens, loopback, memories embedded inline."""
    stack = Live(settings, tmp_path_factory.mktemp("ui-open"))
    stack.env["HOUKAI_HTTP_TOKENS"] = ""
    stack.env["HOUKAI_PIPELINE_MODE"] = "inline"
    server = stack.spawn("serve", "--host", "127.0.0.1", "--port", str(stack.port))
    deadline = time.monotonic() + 120
    try:
        while not stack._healthy():
            assert server.poll() is None, (stack.tmp / "serve.log").read_text()[-1500:]
            assert time.monotonic() < deadline, "houkai serve did not come up"
            time.sleep(0.3)
        stack.api("POST", "/memories", {"text": "The one memory already there", "wait": True})
        yield stack
    finally:
        stack.stop()
        from houkai.store import MemoryStore

        MemoryStore(collection=stack.collection, settings=stack.settings).drop()


def _open_count(stack: Live) -> int:
    return stack.api("GET", "/stats")["count"]


def _attack(driver, page_url: str, stack: Live) -> list[str]:
    driver.get(page_url)
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "window.attack(arguments[0], arguments[1]).then(done, (e) => done(String(e)));",
        stack.base,
        stack.collection,
    )


def test_pages_of_other_origins_cannot_write_to_the_default_setup(open_live, browser, tmp_path):
    """A ``file://`` page and a page served from another localhost port POST "simple"
    requests (no preflight) to the token-less server: nothing is stored or nuked."""
    import http.server
    import threading

    before = _open_count(open_live)
    page = tmp_path / "attack.html"
    page.write_text(ATTACK_PAGE)
    results = _attack(browser, page.as_uri(), open_live)  # Origin: null
    assert results[:3] == ["fulfilled"] * 3, results  # sent and answered (opaque)

    handler = type(
        "Quiet",
        (http.server.SimpleHTTPRequestHandler,),
        {"log_message": lambda *a: None},
    )
    other = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), lambda *a: handler(*a, directory=str(tmp_path))
    )
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:  # Origin: http://127.0.0.1:<another port>, the same host as the server
        _attack(browser, f"http://127.0.0.1:{other.server_address[1]}/attack.html", open_live)
    finally:
        other.shutdown()
    assert _open_count(open_live) == before
    texts = [m["text"] for m in open_live.api("GET", "/memories?limit=50")["memories"]]
    assert not any("planted" in t for t in texts), texts


def test_a_rebinding_name_gets_nothing_and_the_dashboard_still_works(open_live, tmp_path):
    """A name re-pointed at 127.0.0.1 (Chromium's --host-resolver-rules stands in for
    the attacker's DNS) reaches the server with its own Host: 421, no dashboard, no data.
    The real origin's dashboard loads and its same-origin JSON writes work."""
    from houkai.bench.dashboard import chromium_options

    profile = tempfile.mkdtemp(prefix="houkai-ui-rebind-")
    options = chromium_options(profile)
    options.add_argument("--host-resolver-rules=MAP rebind.test 127.0.0.1")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(30)
    try:
        driver.get(f"http://rebind.test:{open_live.port}/c/{open_live.collection}/memories")
        assert "misdirected" in driver.page_source and "The one memory" not in driver.page_source
        driver.get(open_live.base + "/ui")
        _view(driver, "search")  # no tokens: no login, the search view renders
        status = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch('/c/' + arguments[0] + '/memories', {method: 'POST',"
            " headers: {'Content-Type': 'application/json'},"
            " body: JSON.stringify({text: 'written by the dashboard origin', wait: true})})"
            ".then((r) => done(r.status), (e) => done(String(e)));",
            open_live.collection,
        )
        assert status == 201, status
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    texts = [m["text"] for m in open_live.api("GET", "/memories?limit=50")["memories"]]
    assert "written by the dashboard origin" in texts
