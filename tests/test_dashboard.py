"""The dashboard's REST routes and its /ui shell through the Flask test client.

A hash embedder (no model) under its own key prefix keeps these fast; the
browser tests live in test_dashboard_browser.py.
"""

from __future__ import annotations

import time
import uuid

import pytest
from houkai.api.rest import create_app

from houkai.app.service import MemoryService
from houkai.engines.embeddings import HashEmbedder
from houkai.store import MemoryStore

RW, RO, OTHER = "dash-rw", "dash-ro", "dash-other"


class Dash:
    def __init__(self, settings) -> None:
        self.collection = f"d-{uuid.uuid4().hex[:8]}"
        self.settings = settings.replace(
            key_prefix=settings.key_prefix + "-dash",
            embedder="hash:384",
            collection=self.collection,
            pipeline_mode="inline",
            hnsw_m=8,
            hnsw_ef_construction=40,
        )
        self.store = MemoryStore(
            collection=self.collection,
            settings=self.settings,
            embedder=HashEmbedder(384, fail="POISON"),
            actor="http",
        )
        service = MemoryService(self.settings, actor="http")
        service._stores[self.collection] = self.store
        self.app = create_app(
            self.settings, service, tokens=f"{RW},{RO}:ro,{OTHER}:elsewhere-{self.collection}"
        )
        self.client = self.app.test_client()

    def get(self, path: str, token: str | None = RW, **query):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return self.client.get(path, query_string=query, headers=headers)

    def post(self, path: str, body=None, token: str = RW):
        return self.client.post(path, json=body or {}, headers={"Authorization": f"Bearer {token}"})


@pytest.fixture()
def dash(settings):
    d = Dash(settings)
    yield d
    d.store.drop()


def _pages(dash: Dash, **query) -> list[dict]:
    seen: list[dict] = []
    after = None
    for _ in range(50):
        r = dash.get("/browse", limit=4, **query, **({"after": after} if after else {}))
        assert r.status_code == 200, r.get_json()
        body = r.get_json()
        assert len(body["memories"]) <= 4
        seen += body["memories"]
        after = body["next"]
        if after is None:
            return seen
    raise AssertionError("paging never ended")


def test_browse_keyset_pages_cover_every_memory_once_in_order(dash):
    # One remember_many call: every memory shares its created_at, so ties must
    # be broken by the cursor, and importance repeats too.
    items = [{"text": f"note {i}", "importance": [0.2, 0.5, 0.9][i % 3]} for i in range(17)]
    dash.store.remember_many(items)
    dash.store.remember("the newest one", importance=0.1)
    everything = {m.id for batch in dash.store.iter_memories() for m in batch}
    for sort, key in (
        ("created", "created_at"),
        ("importance", "importance"),
        ("decay", "decay_score"),
    ):
        rows = _pages(dash, sort=sort)
        ids = [m["id"] for m in rows]
        assert len(ids) == len(set(ids)) == 18, sort
        assert set(ids) == everything
        values = [m[key] for m in rows]
        assert values == sorted(values, reverse=True), sort
    assert _pages(dash, sort="created")[0]["text"] == "the newest one"
    assert _pages(dash, sort="importance")[-1]["text"] == "the newest one"


def test_browse_filters_and_refuses_bad_input(dash):
    dash.store.remember("a procedure", type="procedural", tags=["ops"])
    dash.store.remember("a fact", type="semantic", tags=["misc"])
    only = dash.get("/browse", type="procedural").get_json()["memories"]
    assert [m["text"] for m in only] == ["a procedure"]
    tagged = dash.get("/browse", tag="misc").get_json()["memories"]
    assert [m["text"] for m in tagged] == ["a fact"]
    for query, needle in (
        ({"after": "1234"}, 'after: expected the previous page\'s "next" cursor'),
        ({"after": "1:abc"}, "after"),
        ({"after": '1:x" || 1'}, "after"),
        ({"sort": "bogus"}, "sort"),
        ({"limit": "0"}, "limit"),
        ({"type": "nope"}, "type"),
        ({"colour": "red"}, "unknown query parameter"),
    ):
        r = dash.get("/browse", **query)
        assert r.status_code == 400, query
        assert needle in r.get_json()["error"]


def test_facets_count_active_memories_by_type_and_tag(dash):
    dash.store.remember_many(
        [
            {"text": "p1", "type": "procedural", "tags": ["ops", "shared"]},
            {"text": "p2", "type": "procedural", "tags": ["ops"]},
            {"text": "s1", "type": "semantic", "tags": ["shared"]},
        ]
    )
    old = dash.store.remember("old", type="semantic", tags=["gone"])
    new = dash.store.remember("new", type="semantic")
    dash.store.supersede(old.id, new.id)
    body = dash.get("/facets").get_json()
    assert body["by_type"] == {"procedural": 2, "semantic": 2}
    assert body["active"] == 4
    assert body["top_tags"] == {"ops": 2, "shared": 2}
    assert dash.get("/facets", top_tags=1).get_json()["top_tags"].keys() <= {"ops", "shared"}
    assert dash.get("/facets", top_tags=-1).status_code == 400


def test_growth_series_adds_up_to_the_count(dash):
    dash.store.remember_many([f"g {i}" for i in range(5)])
    body = dash.get("/growth", bucket="hour").get_json()
    assert body["as_of"] is None and body["series"] == []  # first counted behind the answer
    deadline = time.monotonic() + 30
    while body["as_of"] is None:
        assert time.monotonic() < deadline, "the first count never finished"
        time.sleep(0.1)
        body = dash.get("/growth", bucket="hour").get_json()
    assert body["series"][-1]["total"] == body["count"] == 5
    assert body["series"][-1]["t"] % 3600 == 0
    assert body["redis"]["used_memory"] > 0 and body["redis"]["bytes_per_memory"] > 0
    assert dash.get("/growth", bucket="fortnight").status_code == 400


def test_pipeline_status_reports_queues_workers_and_the_schedule(dash):
    dash.store.remember("something to maintain")
    before = dash.get("/pipeline").get_json()
    assert set(before["queues"]) == {"embed", "maintenance", "extract"}
    assert before["workers_alive"] == sum(w["alive"] for w in before["workers"])
    assert before["maintenance"]["jobs"]["decay"]["last_run"] is None
    assert before["maintenance"]["beat_every_seconds"] > 0
    assert dash.post("/maintenance/tick", {"force": True}).status_code == 200
    after = dash.get("/pipeline").get_json()["maintenance"]["jobs"]
    assert after["decay"]["last_run"] is not None
    assert after["decay"]["next_due"] > after["decay"]["last_run"]


def test_failed_job_items_can_be_retried(dash):
    r = dash.post("/memories/batch", {"items": ["fine text", "POISON text"]})
    job_id = r.get_json()["job_id"]
    job = dash.get(f"/jobs/{job_id}").get_json()
    assert job["failed"] == 1 and job["errors"]
    assert dash.post(f"/jobs/{job_id}/retry", token=RO).status_code == 403
    retried = dash.post(f"/jobs/{job_id}/retry").get_json()
    assert retried == {"job_id": job_id, "requeued": 1}
    assert dash.post("/jobs/no-such-job/retry").status_code == 404


def test_whoami_reports_the_tokens_scope(dash):
    assert dash.get("/whoami").get_json() == {"auth": True, "read_only": False, "collections": None}
    assert dash.get("/whoami", token=RO).get_json()["read_only"] is True
    other = dash.get("/whoami", token=OTHER).get_json()
    assert other["collections"] == [f"elsewhere-{dash.collection}"]
    assert dash.get("/whoami", token=None).status_code == 401
    assert dash.get("/browse", token=OTHER).status_code == 403
    names = [c["name"] for c in dash.get("/collections", token=OTHER).get_json()["collections"]]
    assert dash.collection not in names


def test_ui_shell_and_assets_are_served_without_a_token(dash):
    page = dash.client.get("/ui")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert "/ui/static/app.js" in html and "/ui/static/app.css" in html
    assert html.index("/ui/static/explain.js") < html.index("/ui/static/app.js")
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    assert "procedural" in html  # the type vocabulary comes from the server
    for name in ("explain.js", "app.js", "app.css", "icon.svg"):
        asset = dash.client.get(f"/ui/static/{name}")
        assert asset.status_code == 200, name
        asset.close()
    assert dash.client.get("/ui/static/nope.js").status_code == 404
    # The page itself carries no data: everything else still needs the token.
    assert dash.client.get("/browse").status_code == 401
