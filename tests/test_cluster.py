"""What is particular to a real local 3-master Redis Cluster (ADR 0079): collections on
different shards through the library, REST, MCP, CLI, a worker task and sessions; slot moves
fenced for searches and aggregate cursors; a failover that loses no acknowledged write. The
cluster is started once per session (``redis_cluster``). Every door test file runs on a
cluster as well: ``./dev test``'s second pass (``tests/doors.txt``, HOUKAI_TEST_REDIS=cluster)."""

from __future__ import annotations

import json
import uuid

import pytest
from click.testing import CliRunner
from houkai.api.rest import create_app

from houkai.app.service import MemoryService
from houkai.cli import cli
from houkai.db import cluster
from houkai.db.connection import connect
from houkai.db.keys import Keys
from houkai.domain.config import set_settings
from houkai.domain.model import ValidationError


def spread(cs, n: int = 3, stem: str = "c") -> list[str]:
    """*n* fresh collection names whose hash tags land on *n* different masters."""
    client = connect(cs.redis_url)
    names: dict[str, str] = {}
    while len(names) < n:
        name = f"{stem}-{uuid.uuid4().hex[:8]}"
        shard = cluster.shard_of(client, Keys(cs.key_prefix, name).index)
        names.setdefault(shard, name)
    return list(names.values())


def test_the_cluster_client_is_a_cluster_and_collections_spread(cluster_settings) -> None:
    from redis.cluster import RedisCluster

    client = connect(cluster_settings.redis_url)
    assert isinstance(client, RedisCluster) and len(client.get_primaries()) == 3
    names = spread(cluster_settings)
    shards = {
        cluster.shard_of(client, Keys(cluster_settings.key_prefix, n).memory("x")) for n in names
    }
    assert len(shards) == 3


def test_library_round_trip_on_three_shards(make_store, cluster_settings, embedder) -> None:
    stores = [make_store(name, settings=cluster_settings) for name in spread(cluster_settings)]
    client = stores[0].client
    for store in stores:
        own = cluster.shard_of(client, store.keys.index)
        tea = store.remember(
            f"{store.collection_name} drinks green tea every morning", tags=["tea"]
        )
        coffee = store.remember("Coffee is banned from the office kitchen")
        # every key of the collection sits on the shard its index lives on
        assert {cluster.shard_of(client, k) for k in (store.keys.memory(tea.id), store.keys.meta,
                store.keys.journal, store.keys.lexstats)} == {own}  # fmt: skip
        hits = store.recall("what does the team drink in the morning?", k=2)
        assert hits[0][0].id == tea.id
        assert store.recall("tea", mode="hybrid", k=1, tag="tea")[0][0].id == tea.id
        assert store.link(tea.id, coffee.id, "related")
        store.edit(tea.id, text=f"{store.collection_name} drinks jasmine tea every morning")
        assert "jasmine" in store.get(tea.id).text
        newer = store.remember("Decaf coffee is allowed in the kitchen again")
        store.supersede(coffee.id, newer.id)
        assert coffee.id not in [m.id for m, _ in store.recall("coffee kitchen", k=3)]
        entry = store.history(tea.id)[-1]
        assert store.undo(entry) and "green tea" in store.get(tea.id).text
        assert store.forget(newer.id) and store.get(newer.id) is None
        assert store.count() == 2


def test_a_collection_stays_on_its_shard(make_store, cluster_settings, embedder) -> None:
    """Writes of one collection never reach another master."""
    name = spread(cluster_settings, 1)[0]
    store = make_store(name, settings=cluster_settings)
    store.remember_many([f"fact {i}" for i in range(20)])
    owner = cluster.shard_of(store.client, store.keys.index)
    for node in store.client.get_primaries():
        keys = store.client.scan(0, match=store.keys.tag + "*", count=1000, target_nodes=node)[1]
        assert bool(keys) == (f"{node.host}:{node.port}" == owner)


def test_rest_remember_recall_list_export_import(cluster_settings, embedder) -> None:
    first, second = spread(cluster_settings, 2, "rest")
    s = cluster_settings.replace(collection=first)
    service = MemoryService(s, actor="http")
    app = create_app(s, service, tokens="admin-tok")
    http = app.test_client()
    auth = {"Authorization": "Bearer admin-tok"}
    try:
        for text in ("The deploy window is Tuesday 10:00", "Rollbacks need two approvals"):
            r = http.post("/memories", json={"text": text, "wait": True}, headers=auth)
            assert r.status_code == 201, r.get_json()
        hits = http.get("/recall?query=when+can+we+deploy&k=1", headers=auth).get_json()["results"]
        assert hits[0]["text"] == "The deploy window is Tuesday 10:00"
        listed = http.get("/memories?limit=5", headers=auth).get_json()["memories"]
        assert len(listed) == 2
        health = http.get("/health", headers=auth)
        assert health.status_code == 200 and health.get_json()["count"] == 2
        assert http.get("/ready", headers=auth).status_code == 200
        stats = http.get("/stats", headers=auth)
        assert stats.status_code == 200 and stats.get_json()["count"] == 2, stats.get_json()
        archive = http.get(f"/c/{first}/export", headers=auth)
        assert archive.status_code == 200
        gz = {**auth, "Content-Type": "application/gzip"}
        r = http.post(f"/c/{second}/import", data=archive.get_data(), headers=gz)
        assert r.status_code == 200 and r.get_json()["imported"] == 2, r.get_json()
        hits = http.get(f"/c/{second}/recall?query=approvals+for+rollback&k=1", headers=auth)
        assert hits.get_json()["results"][0]["text"] == "Rollbacks need two approvals"
    finally:
        for name in (first, second):
            service.store(name).drop()


def test_mcp_tools_on_the_cluster(cluster_settings, embedder) -> None:
    from houkai.api import mcp_server

    name = spread(cluster_settings, 1, "mcp")[0]
    service = MemoryService(cluster_settings.replace(collection=name), actor="mcp")
    mcp_server.set_service(service)
    try:
        stored = mcp_server.call_tool("remember", {"text": "The staging database is kestrel-pg"})
        assert stored["stored"] is True
        hits = mcp_server.call_tool("recall", {"query": "staging database name", "k": 1})
        assert hits[0]["id"] == stored["id"]
        assert mcp_server.call_tool("stats", {})["collection"] == name
    finally:
        mcp_server.set_service(None)
        service.store(name).drop()


def test_cli_remember_recall_on_the_cluster(cluster_settings, embedder) -> None:
    name = spread(cluster_settings, 1, "cli")[0]
    env = {
        "REDIS_URL": cluster_settings.redis_url,
        "HOUKAI_BROKER_URL": cluster_settings.broker_url,
        "HOUKAI_KEY_PREFIX": cluster_settings.key_prefix,
        "HOUKAI_COLLECTION": name,
        "HOUKAI_PIPELINE_MODE": "inline",
        "HOUKAI_DATA_DIR": cluster_settings.data_dir,
    }
    runner = CliRunner()
    try:
        r = runner.invoke(cli, ["--format", "json", "redis", "status"], env=env)
        assert r.exit_code == 0 and json.loads(r.output)["cluster"] is True, r.output
        r = runner.invoke(cli, ["remember", "Our on-call rotation changes every Monday"], env=env)
        assert r.exit_code == 0, r.output
        r = runner.invoke(cli, ["--format", "json", "recall", "when does on-call rotate?"], env=env)
        assert r.exit_code == 0, r.output
        assert "Monday" in r.output
    finally:
        from houkai import MemoryStore

        MemoryStore(collection=name, settings=cluster_settings).drop()


def test_worker_task_embeds_a_queued_job(make_store, cluster_settings, embedder) -> None:
    """The worker path: a job queued through the outbox, then the Celery task run."""
    from houkai.workers.tasks import embed_batch

    from houkai.pipeline.write import Pipeline

    store = make_store(spread(cluster_settings, 1, "wk")[0], settings=cluster_settings)
    sent: list[tuple[str, dict, str]] = []
    pipeline = Pipeline(
        store, mode="celery", enqueue=lambda name, kw, tid: sent.append((name, kw, tid))
    )
    job = pipeline.submit([f"queued memory number {i}" for i in range(5)])
    assert sent and pipeline.job(job.id).state == "queued"
    set_settings(cluster_settings)
    for _name, kwargs, task_id in sent:
        assert embed_batch.apply(kwargs=kwargs, task_id=task_id).successful()
    status = pipeline.job(job.id)
    assert status.state == "done" and status.done == 5
    hits = store.recall("queued memory number 3", k=5)
    assert job.memory_ids[3] in [m.id for m, _ in hits]


def test_sessions_add_messages_on_the_cluster(make_store, cluster_settings, embedder) -> None:
    store = make_store(spread(cluster_settings, 1, "ses")[0], settings=cluster_settings)
    out = store.add_messages("s-1", [{"role": "user", "content": "I moved to Lisbon in May"}])
    assert out["added"] == 1
    same = {"role": "user", "content": "I moved to Lisbon", "id": "m1"}
    again = store.add_messages("s-1", [same, {**same, "content": "again"}])
    assert again["added"] == 1


def test_a_cluster_without_its_own_broker_fails_in_one_sentence(cluster_settings) -> None:
    from houkai.workers.app import broker_url

    with pytest.raises(ValidationError, match="HOUKAI_BROKER_URL"):
        broker_url(cluster_settings.replace(broker_url=""))
    assert broker_url(cluster_settings) == cluster_settings.broker_url


# ----------------------------------------------------------------- slot moves
def test_a_search_during_a_move_is_503_with_retry_after_never_partial(
    make_store, cluster_settings, embedder
) -> None:
    """The fence, deterministically: while the move counter is odd, recall through the
    library and REST refuses (503 + Retry-After) instead of answering from a half index."""
    from houkai.db.cluster_client import SlotMoving

    name = spread(cluster_settings, 1, "fence")[0]
    s = cluster_settings.replace(collection=name)
    service = MemoryService(s, actor="http")
    store = service.store(name)
    tea = store.remember("The team drinks green tea at ten")
    http = create_app(s, service, tokens="").test_client()
    try:
        store.client.incr(store.keys.moves)  # a move begins
        with pytest.raises(SlotMoving):
            store.recall("what does the team drink?", k=1)
        r = http.get("/recall?query=tea&k=1")
        assert r.status_code == 503 and r.headers["Retry-After"] == "1"
        assert "moving" in r.get_json()["error"]
        store.client.incr(store.keys.moves)  # and ends
        assert store.recall("what does the team drink?", k=1)[0][0].id == tea.id
        assert http.get("/recall?query=tea&k=1").get_json()["results"][0]["id"] == tea.id
    finally:
        store.drop()


def test_a_slot_move_keeps_every_write_and_never_answers_wrong(
    make_store, cluster_settings, embedder
) -> None:
    import threading

    from houkai.db.cluster_client import SlotMoving

    store = make_store(spread(cluster_settings, 1, "move")[0], settings=cluster_settings)
    client = store.client
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"] * 5
    texts = [f"record {i}: the {w} server is in rack {i}" for i, w in enumerate(words)]
    ids = [store.remember(t).id for t in texts]
    slot = client.keyslot(store.keys.tag)
    source = cluster.owner_port(client, slot)
    target = next(n.port for n in client.get_primaries() if n.port != source)
    answers = {"right": 0, "moving": 0, "wrong": []}
    acked: list[str] = []
    done, reading, fenced = threading.Event(), threading.Event(), threading.Event()

    def reader() -> None:
        while not done.is_set():
            try:
                hits = store.recall(texts[7], k=1, touch=False)
            except SlotMoving:
                answers["moving"] += 1
                fenced.set()
                continue
            if hits and hits[0][0].id == ids[7]:
                answers["right"] += 1
                reading.set()
            else:
                answers["wrong"].append(hits)

    def writer() -> None:
        n = 0
        while not done.is_set():
            try:
                acked.append(store.remember(f"written during the move, number {n}").id)
            except Exception:  # refused during the move: not acknowledged, not counted
                pass
            n += 1

    threads = [threading.Thread(target=reader), threading.Thread(target=writer)]
    for t in threads:
        t.start()
    assert reading.wait(30)  # the reader answers before the move begins
    try:
        result = cluster.move_slot(
            client, cluster_settings.key_prefix, slot, target,
            on_step=lambda _step: fenced.wait(30),  # hold the move until a search met the fence
        )  # fmt: skip
    finally:
        done.set()
        for t in threads:
            t.join()
    assert result["keys"] > len(ids) and store.collection_name in result["collections"]
    assert cluster.owner_port(client, slot) == target
    assert cluster.shard_of(client, store.keys.index).endswith(f":{target}")
    assert answers["wrong"] == []  # a 503 at worst, never a partial answer
    assert answers["moving"] > 0 and answers["right"] > 0  # the reader ran through the move
    assert store.count() == len(ids) + len(acked)
    for memory_id in ids + acked:  # no acknowledged write lost
        assert store.get(memory_id) is not None
    assert store.recall(texts[3], k=1)[0][0].id == ids[3]
    cluster.move_slot(client, cluster_settings.key_prefix, slot, source)  # and back
    assert store.recall(texts[5], k=1)[0][0].id == ids[5] and store.count() == len(ids) + len(acked)


# ----------------------------------------------------------------- aggregate cursors
def _aggregate(store, count: int = 5) -> tuple[list, int]:
    reply, cursor = store.client.execute_command(
        "FT.AGGREGATE", store.keys.index, "*", "LOAD", 1, "@__key",
        "WITHCURSOR", "COUNT", count, "DIALECT", 2,
    )  # fmt: skip
    return reply, int(cursor)


def test_an_open_cursor_is_fenced_by_the_move_counter(make_store, cluster_settings, embedder):
    """``FT.CURSOR READ`` is fenced like a search: 503 while the counter is odd, and 503
    for a cursor opened before a move even once the move has ended (its index is gone)."""
    from houkai.db.cluster_client import SlotMoving

    store = make_store(spread(cluster_settings, 1, "cur")[0], settings=cluster_settings)
    store.remember_many([f"note {i} about cursor fencing" for i in range(30)])
    index, read = store.keys.index, ("FT.CURSOR", "READ")
    rows, cursor = _aggregate(store)
    assert len(rows) - 1 == 5 and cursor
    rows, cursor = store.client.execute_command(*read, index, cursor, "COUNT", 5)
    assert len(rows) - 1 == 5 and cursor  # no move: the cursor reads on
    store.client.incr(store.keys.moves)  # a move begins
    with pytest.raises(SlotMoving, match="moving"):
        store.client.execute_command(*read, index, cursor, "COUNT", 5)
    store.client.incr(store.keys.moves)  # and ends: the cursor still predates it
    with pytest.raises(SlotMoving, match="open cursor"):
        store.client.execute_command(*read, index, cursor, "COUNT", 5)
    store.client.execute_command("FT.CURSOR", "DEL", index, cursor)
    rows, cursor = _aggregate(store, 10)  # a fresh aggregate reads to the end
    seen = len(rows) - 1
    while cursor:
        rows, cursor = store.client.execute_command(*read, index, cursor, "COUNT", 10)
        seen += len(rows) - 1
    assert seen == 30


def test_a_cursor_across_a_real_slot_move_is_503_never_partial(
    make_store, cluster_settings, embedder
) -> None:
    """Decay streams its candidates through an aggregate cursor: a slot move between two
    reads answers SlotMoving (a maintenance retry), never a silently shortened pass."""
    import time

    from houkai.db.cluster_client import SlotMoving
    from houkai.store.decay import DecayEngine

    store = make_store(spread(cluster_settings, 1, "curmv")[0], settings=cluster_settings)
    store.remember_many([f"decaying note {i} about slot moves" for i in range(30)])
    engine = DecayEngine(store, min_score=10.0, protect_types=())
    client, prefix = store.client, cluster_settings.key_prefix
    slot = client.keyslot(store.keys.tag)
    source = cluster.owner_port(client, slot)
    target = next(n.port for n in client.get_primaries() if n.port != source)
    batches = engine._candidate_batches(time.time(), 5)
    assert len(next(batches)) == 5
    cluster.move_slot(client, prefix, slot, target)
    try:
        with pytest.raises(SlotMoving):
            next(batches)
        batches.close()
        assert len(engine.prune(dry_run=True, batch_size=7)) == 30  # whole, on the new owner
    finally:
        cluster.move_slot(client, prefix, slot, source)
    assert len(engine.prune(dry_run=True, batch_size=7)) == 30  # cursor reads on its shard


# ----------------------------------------------------------------- failover
def test_no_replica_wait_where_there_is_no_replica(cluster_settings, settings) -> None:
    """WAIT only where a replica exists: the session's cluster has none, one node never
    waits, and the setting at 0 turns it off."""
    from houkai.app.replication import replicate

    name = spread(cluster_settings, 1, "nowait")[0]
    service = MemoryService(cluster_settings.replace(collection=name))
    try:
        assert service.remember("no replica to wait for")["stored"] is True
        store = service.store(name)
        assert not store.client.exists(store.keys.ack)  # no WAIT: nothing written for it
        assert replicate(service, None) is None
    finally:
        service.store(name).drop()
    off = cluster_settings.replace(cluster_replica_wait_ms=0)
    assert replicate(MemoryService(off), None) is None
    if not settings.redis_url.startswith("redis+cluster"):
        from houkai.db.cluster_client import wait_replicated
        from houkai.db.connection import connect

        assert wait_replicated(connect(settings.redis_url), "x:{y}:ack", 1000) is None


def test_a_master_fails_over_and_no_acknowledged_write_is_lost(
    tmp_path, settings, broker_url, embedder
) -> None:
    """SIGKILL the master of a collection's slot right after the doors acknowledged writes:
    each acknowledgement waited for the replica (WAIT), so the promoted replica has every
    one of them; houkai's client follows the failover on its own and the collection answers
    again (503 in between, never a wrong answer)."""
    import os
    import signal
    import time

    import redis

    from houkai.app.errors import classify
    from houkai.app.replication import replicate
    from houkai.db import cluster_client

    info = cluster.start(tmp_path / "ha", masters=3, replicas=1)
    try:
        s = settings.replace(
            redis_url=info.url, broker_url=broker_url, collection="ha", pipeline_mode="inline",
            key_prefix=f"hk-ha-{uuid.uuid4().hex[:6]}",
        )  # fmt: skip
        service = MemoryService(s, actor="http")
        http = create_app(s, service, tokens="").test_client()
        store = service.store("ha")
        stored = service.remember_many(
            [{"text": f"fact {i} about failover drills"} for i in range(10)]
        )
        ids = list(stored["ids"])
        client = store.client
        slot = client.keyslot(store.keys.tag)
        # a client that read the map before the replica joined: the wait reads it again
        client.nodes_manager.slots_cache[slot] = client.nodes_manager.slots_cache[slot][:1]
        cluster_client._map_reread.clear()
        for i in range(3):
            r = http.post("/memories", json={"text": f"door fact {i} on the rota", "wait": True})
            assert r.status_code == 201, r.get_json()
            ids.append(r.get_json()["id"])
        ids.append(service.dispatch("remember", {"text": "the drill ends at noon"})["id"])
        assert len(client.nodes_manager.slots_cache[slot]) == 2  # the map was read again
        port = cluster.owner_port(client, slot)
        master = next(n for n in info.nodes if n.port == port)
        replica = client.nodes_manager.slots_cache[slot][1]
        assert client.pttl(store.keys.ack) > 0  # the doors' acknowledgements waited (WAIT)
        assert replicate(service, "ha") == 1  # the wait the doors make: the replica answers
        mirror = redis.Redis(port=replica.port, protocol=2)
        mirror.execute_command("READONLY")
        assert all(mirror.exists(store.keys.memory(i)) for i in ids)  # on the replica already
        mirror.close()
        os.kill(master.pid, signal.SIGKILL)  # no WAIT of the test's own before the kill
        deadline, answered, refusals = time.monotonic() + 60, None, 0
        while answered is None and time.monotonic() < deadline:
            try:
                answered = store.recall("failover drills fact 4", k=3, touch=False)
            except Exception as exc:  # mid-failover: a 503 for the doors, never a wrong answer
                status = classify(exc)
                assert status is not None and status[0] == 503, repr(exc)
                refusals += 1
                time.sleep(0.5)
        assert answered is not None, "no answer within 60 s of the failover"
        assert cluster.owner_port(client, slot) == replica.port  # the replica serves the slot
        assert ids[4] in [m.id for m, _ in answered]
        assert all(store.get(i) is not None for i in ids)  # no acknowledged write lost
        r = http.post("/memories", json={"text": "written after the failover", "wait": True})
        assert r.status_code == 201 and store.get(r.get_json()["id"]) is not None
        hits = http.get("/recall?query=when+does+the+drill+end&k=1").get_json()["results"]
        assert hits[0]["text"] == "the drill ends at noon"
    finally:
        cluster.stop(tmp_path / "ha")
