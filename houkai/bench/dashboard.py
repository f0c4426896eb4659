"""``houkai bench dashboard``: how long each dashboard view takes against a large collection.

Fills a throwaway collection with *n* synthetic memories (``bench scale``'s writer:
derived from the recall corpus, no encoder, the store's real write path), links a
few of them, then times every REST call each ``/ui`` view makes, through the real
Flask app (in process, sequentially — the browser issues a view's calls in
parallel, so the sum is an upper bound). With ``--browser`` it also serves the app
with ``houkai serve`` and times a headless Chromium from navigation to the view
being rendered. Figures are medians of *repeat* runs, each next to the same view
on a small collection measured in the same run, so the machine's load cancels out
of the ratio.
"""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..domain.config import Settings

Progress = Callable[[str], None]
TOKEN = "bench-dashboard"
CORPUS = 20_000  # base texts the memories are derived from (as ``bench scale``)
SEED = 11


@dataclass
class ViewTiming:
    view: str
    calls: list[str]
    api_ms: float  # median of the summed call times
    call_ms: list[float] = field(default_factory=list)  # median of each call
    browser_ms: float | None = None
    base_api_ms: float | None = None  # the same view on the small baseline collection
    base_browser_ms: float | None = None
    cold_ms: float = 0.0  # median sum right after a write (no cached aggregate)
    cold_call_ms: list[float] = field(default_factory=list)
    base_cold_ms: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "view": self.view,
            "calls": self.calls,
            "api_ms": self.api_ms,
            "call_ms": self.call_ms,
            "browser_ms": self.browser_ms,
            "base_api_ms": self.base_api_ms,
            "base_browser_ms": self.base_browser_ms,
            "cold_ms": self.cold_ms,
            "cold_call_ms": self.cold_call_ms,
            "base_cold_ms": self.base_cold_ms,
        }


def _ratio(big: float | None, small: float | None) -> str:
    if big is None or not small:
        return "—"
    return f"{big / small:.1f}x"


@dataclass
class DashboardBenchResult:
    n: int
    repeat: int
    load_seconds: float
    baseline_n: int = 0
    views: list[ViewTiming] = field(default_factory=list)
    count_ms: float = 0.0  # GET /health (one index count) on the large collection
    machine: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "baseline_n": self.baseline_n,
            "repeat": self.repeat,
            "load_seconds": round(self.load_seconds, 1),
            "count_ms": self.count_ms,
            "machine": self.machine,
            "views": [v.to_dict() for v in self.views],
        }

    def lines(self) -> list[str]:
        out = [
            f"dashboard views against {self.n:,} memories, ratio to the same views on "
            f"{self.baseline_n:,} in the same run "
            f"(medians of {self.repeat} runs; loaded in {self.load_seconds:.0f}s)",
            f"machine: {self.machine.get('nproc')} cores, load "
            f"{self.machine.get('loadavg_start')} → {self.machine.get('loadavg_end')}; "
            f"GET /health (one index count): {self.count_ms:,.1f} ms",
            "REST = the view's calls in sequence, through the Flask app: right after a write"
            " (cold: the collection-wide figures are stale; Health, the facets and growth show"
            " the last ones and recount in the background) and again once recounted (warm);"
            " browser = headless Chromium, hash change to data shown, right after a write",
            f"{'view':<20} {'cold REST':>10} {'÷ small':>8} {'warm REST':>10} {'÷ small':>8}"
            f" {'browser':>9} {'÷ small':>8}  cold per call (ms)",
        ]
        for v in self.views:
            browser = "—" if v.browser_ms is None else f"{v.browser_ms:,.0f} ms"
            calls = ", ".join(f"{c} {t:,.0f}" for c, t in zip(v.calls, v.cold_call_ms, strict=True))
            out.append(
                f"{v.view:<20} {v.cold_ms:>7,.0f} ms {_ratio(v.cold_ms, v.base_cold_ms):>8} "
                f"{v.api_ms:>7,.0f} ms {_ratio(v.api_ms, v.base_api_ms):>8} "
                f"{browser:>9} {_ratio(v.browser_ms, v.base_browser_ms):>8}  {calls}"
            )
        return out


CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# Debian's Chromium, headless, with nothing that reaches out to the network on start.
CHROMIUM_FLAGS: tuple[str, ...] = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,900",
)


def chromium_options(profile: str) -> Any:
    """Selenium options for headless Chromium with a fresh profile (bench and browser tests)."""
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    return options


def _load(store: Any, n: int, progress: Progress | None) -> float:
    """Write *n* memories the way ``bench scale`` does; reuse them if already there.

    ``bench scale``'s writer: memories derived from the recall corpus (creation times
    spread over two years, realistic access times, importance and expiry), vectors
    blended from the corpus's own (here hash-embedded, so no model runs), written
    through the store's real write path in batches.
    """
    from .recall import wait_indexed
    from .scale import load_base, write_corpus

    if store.count() == n:
        return 0.0
    if store.count():
        store.nuke()
    started = time.perf_counter()
    corpus = load_base(store.settings, store.embedder, min(n, CORPUS), SEED)
    write_corpus(store, corpus, n, SEED, progress=progress)
    wait_indexed(store.client, store.keys.index, n, timeout=3600)
    return time.perf_counter() - started


def _views(client: Any, memory_id: str) -> dict[str, list[tuple[str, str, Any]]]:
    """Each view's REST calls, as the page makes them."""
    after = deep = client.get("/browse?limit=25").get_json()["next"]
    for _ in range(20):  # a page 21 pages deep (or the last one, in a small collection)
        if after is None:
            break
        deep = after
        after = client.get(f"/browse?limit=25&after={after}").get_json()["next"]
    m = f"/memories/{memory_id}"
    return {
        "search": [("GET", "/recall?query=billing+deploy+failed&explain=true&k=10", None)],
        "browse (newest)": [("GET", "/browse?limit=25", None), ("GET", "/facets", None)],
        "browse (deep)": [
            ("GET", f"/browse?limit=25&after={deep or ''}", None),
            ("GET", "/facets", None),
        ],
        "browse (decay)": [("GET", "/browse?limit=25&sort=decay", None), ("GET", "/facets", None)],
        "memory": [
            ("GET", m, None),
            ("GET", m + "/history", None),
            ("GET", m + "/neighbors?direction=both&depth=2", None),
        ],
        "pipeline": [("GET", "/pipeline", None), ("GET", "/jobs?limit=15", None)],
        "collections": [("GET", "/whoami", None), ("GET", "/collections", None)],
        # Browse clicked while Health's background recount runs (Redis runs one command
        # at a time): with the recount's passes sliced, and as one pass per aggregate.
        "browse, recounting": [("GET", "/browse?limit=25", None), ("GET", "/facets", None)],
        "  … one-pass recount": [("GET", "/browse?limit=25", None), ("GET", "/facets", None)],
        "health": HEALTH_CALLS,
        # A new server process (nothing in its memory) right after a write: the figures
        # kept in Redis are shown at once, recounted behind.
        "health (restart)": HEALTH_CALLS,
        # No figures kept at all (a collection never viewed): the one view that waits
        # for the passes over every memory.
        "health (none kept)": HEALTH_CALLS,
    }


RECOUNTING = ("browse, recounting", "  … one-pass recount")
HEALTH_CALLS: list[tuple[str, str, Any]] = [
    ("GET", "/overview", None),
    ("GET", "/growth?bucket=day", None),
    ("GET", "/metrics", None),
]


def _wait_refreshed(store: Any, timeout: float = 300.0) -> None:
    """Until no process is recounting this collection's aggregates (their Redis locks)."""
    deadline = time.monotonic() + timeout
    pattern = f"{store.keys.aggregate_cache}:refresh:*"
    while time.monotonic() < deadline and any(store.client.scan_iter(match=pattern, count=100)):
        time.sleep(0.05)


def _time_calls(client: Any, calls: list[tuple[str, str, Any]]) -> list[float]:
    """Milliseconds of each call, in order."""
    out = []
    for method, path, body in calls:
        started = time.perf_counter()
        response = client.open(path, method=method, json=body)
        out.append((time.perf_counter() - started) * 1000)
        if response.status_code >= 400:
            raise RuntimeError(f"{method} {path}: {response.status_code} {response.get_data()!r}")
    return out


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _browser_times(
    settings: Settings,
    memory_id: str,
    hashes: dict[str, str],
    repeat: int,
    invalidate: Callable[[], None],
) -> dict[str, float]:
    """Median ms from setting the hash to the view's ``data-ready`` in headless Chromium.

    *invalidate* (a write) runs before every sample, so no view is served from the
    aggregate cache: these are first-view-after-a-write figures.
    """
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOUKAI_")}
    env.update(
        HOUKAI_CONFIG="/nonexistent/houkai.toml",
        HOUKAI_REDIS_URL=settings.redis_url,
        HOUKAI_DATA_DIR=settings.data_dir,
        HOUKAI_KEY_PREFIX=settings.key_prefix,
        HOUKAI_COLLECTION=settings.collection,
        HOUKAI_EMBEDDER=settings.embedder,
        HOUKAI_HTTP_TOKENS=TOKEN,
    )
    exe = str(Path(sys.executable).parent / "houkai")
    server = subprocess.Popen(
        [exe, "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    profile = tempfile.mkdtemp(prefix="houkai-bench-chrome-")
    options = chromium_options(profile)
    driver = None
    try:
        import urllib.request

        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        driver.set_script_timeout(60)
        driver.get(f"http://127.0.0.1:{port}/ui")
        driver.execute_script("sessionStorage.setItem('houkai.token', arguments[0])", TOKEN)
        driver.refresh()
        time.sleep(1.0)
        out: dict[str, float] = {}
        for view, target in hashes.items():
            samples = []
            for _ in range(repeat):
                invalidate()
                samples.append(
                    driver.execute_async_script(
                        """
                        const [target, done] = [arguments[0], arguments[arguments.length - 1]];
                        location.hash = '#/';
                        const start = () => {
                          const before = document.querySelector('#view > *');
                          const t0 = performance.now();
                          location.hash = target;
                          const poll = () => {
                            const el = document.querySelector('#view > [data-ready="1"]');
                            if (el && el !== before) {
                              requestAnimationFrame(() => done(performance.now() - t0));
                            } else { setTimeout(poll, 5); }
                          };
                          poll();
                        };
                        setTimeout(start, 300);
                        """,
                        target,
                    )
                )
            out[view] = round(statistics.median(samples), 1)
        samples = []
        for _ in range(repeat):
            invalidate()
            driver.get("about:blank")  # else a URL differing only in its hash does not reload
            driver.get(f"http://127.0.0.1:{port}/ui{PAGE_LOAD_HASH}")
            samples.append(
                driver.execute_async_script(
                    """
                    const done = arguments[arguments.length - 1];
                    const poll = () => {
                      if (document.querySelector('#view > [data-ready="1"]')) {
                        requestAnimationFrame(() => done(performance.now()));
                      } else { setTimeout(poll, 5); }
                    };
                    poll();
                    """
                )
            )
        out["collections"] = round(statistics.median(samples), 1)
        return out
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(profile, ignore_errors=True)


BROWSER_HASHES: dict[str, str] = {
    "search": "#/search?q=billing+deploy+failed",
    "browse (newest)": "#/browse",
    "browse (decay)": "#/browse?sort=decay",
    "memory": "#/m/{center}",
    "pipeline": "#/pipeline",
    "health": "#/health",
}
#: A full page load (shell, /whoami, the collection switcher's /collections, then the
#: pipeline view), timed from navigation start: the "collections" row's browser figure.
PAGE_LOAD_HASH = "#/pipeline"


def _measure(
    settings: Settings,
    n: int,
    *,
    repeat: int,
    browser: bool,
    keep: bool,
    progress: Progress | None,
) -> tuple[list[ViewTiming], float, float]:
    """Load (or reuse) an *n*-memory collection and time every view: (views, load s, /health ms)."""
    from ..api.rest import create_app
    from ..app.service import MemoryService
    from ..engines.embeddings import HashEmbedder
    from ..store import MemoryStore, observability

    settings = settings.replace(collection=f"bench-dashboard-{n}", embedder="hash:384")
    store = MemoryStore(collection=settings.collection, settings=settings, embedder=HashEmbedder())
    try:
        load_seconds = _load(store, n, progress)
        recent = store.list_recent(limit=4, sort="importance")
        center = recent[0].id
        for other in recent[1:]:
            store.link(center, other.id, "related")
        store.edit(center, importance=recent[0].importance)
        service = MemoryService(settings, actor="http", store_factory=lambda _name: store)
        app = create_app(settings, service, tokens=TOKEN)
        client = app.test_client()
        client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {TOKEN}"
        flip = [recent[0].importance, 0.5 if recent[0].importance != 0.5 else 0.6]

        def invalidate() -> None:
            """A write (an importance edit, undone by the next): every cached aggregate is
            stale. First any recount the previous sample started is let finish, so each
            sample starts from figures computed before its write."""
            _wait_refreshed(store)
            flip.reverse()
            store.edit(center, importance=flip[0])

        def restarted() -> Any:
            """A test client of a new service and store: a restarted server."""
            fresh = MemoryStore(
                collection=settings.collection, settings=settings, embedder=HashEmbedder()
            )
            service = MemoryService(settings, actor="http", store_factory=lambda _name: fresh)
            other = create_app(settings, service, tokens=TOKEN).test_client()
            other.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {TOKEN}"
            return other

        timings = []
        slice_size = observability.SLICE_SIZE
        for view, calls in _views(client, center).items():
            cold = []
            for _ in range(repeat):
                invalidate()
                target = client
                if view == "health (restart)":
                    target = restarted()
                elif view == "health (none kept)":
                    store.forget_aggregates()
                elif view in RECOUNTING:
                    if view != "browse, recounting":
                        observability.SLICE_SIZE = 10**12
                    _time_calls(client, HEALTH_CALLS[:1])  # starts the recount
                    time.sleep(observability.REFRESH_DELAY + 0.2)  # … now in its passes
                cold.append(_time_calls(target, calls))
                if view in RECOUNTING:
                    _wait_refreshed(store)
                    observability.SLICE_SIZE = slice_size
            _wait_refreshed(store)
            warm = [_time_calls(client, calls) for _ in range(repeat)]
            timings.append(
                ViewTiming(
                    view=view,
                    calls=[p.split("?")[0].replace(center, "<id>") for _, p, _ in calls],
                    api_ms=round(statistics.median(sum(x) for x in warm), 1),
                    call_ms=[round(statistics.median(col), 1) for col in zip(*warm, strict=True)],
                    cold_ms=round(statistics.median(sum(x) for x in cold), 1),
                    cold_call_ms=[
                        round(statistics.median(col), 1) for col in zip(*cold, strict=True)
                    ],
                )
            )
            if progress:
                progress(f"n={n:,} {view}: cold {timings[-1].cold_ms} warm {timings[-1].api_ms} ms")
        if browser:
            hashes = {k: v.format(center=center) for k, v in BROWSER_HASHES.items()}
            times = _browser_times(settings, center, hashes, repeat, invalidate)
            for v in timings:
                v.browser_ms = times.get(v.view)
        health = [("GET", "/health", None)]
        count_ms = round(
            statistics.median(_time_calls(client, health)[0] for _ in range(max(5, repeat))), 1
        )
        return timings, load_seconds, count_ms
    finally:
        _wait_refreshed(store)
        store.wait_refreshes()
        if not keep:
            store.drop()


def run(
    settings: Settings,
    n: int = 100_000,
    *,
    repeat: int = 5,
    browser: bool = False,
    keep: bool = False,
    baseline_n: int = 1000,
    progress: Progress | None = None,
) -> DashboardBenchResult:
    """Time every view at *n* memories and at *baseline_n* in the same run (load cancels out)."""
    from .recall import loadavg, machine_facts

    machine = machine_facts()
    small, _, _ = _measure(
        settings, baseline_n, repeat=repeat, browser=browser, keep=keep, progress=progress
    )
    views, load_seconds, count_ms = _measure(
        settings, n, repeat=repeat, browser=browser, keep=keep, progress=progress
    )
    for big, base in zip(views, small, strict=True):
        big.base_api_ms, big.base_browser_ms = base.api_ms, base.browser_ms
        big.base_cold_ms = base.cold_ms
    machine["loadavg_end"] = loadavg()
    return DashboardBenchResult(
        n=n,
        repeat=repeat,
        load_seconds=load_seconds,
        baseline_n=baseline_n,
        views=views,
        count_ms=count_ms,
        machine=machine,
    )
