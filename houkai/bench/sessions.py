"""``houkai bench sessions``: conversations in, memories out, measured (issue #30).

Three parts, each printed with what it compares:

* **quality**: LoCoMo's conversations fed as sessions (every turn a user message named by
  its speaker, one session per LoCoMo session, extraction run in process with the
  configured extractor), then LoCoMo's questions asked against what was extracted. A hit
  is a recalled memory whose provenance (``message_ids``) names an evidence turn: evidence
  recall@5/@10 and MRR, beside the same figures for storing every turn verbatim
  (``houkai bench locomo``'s collections, same recall mode) and the memory count of each.
* **rest**: *clients* keep-alive clients POST one message at a time to
  ``/c/<collection>/sessions/<id>/messages`` through the REST app under gunicorn for
  *seconds* seconds while a ``houkai worker`` extracts the sessions they fill (every
  ``extract_after_messages`` messages): p50/p99 of the request, messages accepted per
  second, errors.
* **freshness**: the time from a message's POST to the memory it becomes being recallable
  (a recall filtered to its session finds a memory whose provenance names it), with the
  worker and the idle trigger (``extract_after_idle``) of the run.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import statistics
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..domain.config import Settings
from .locomo import MODES, load, select
from .locomo import run as run_locomo

FACTS = (
    "I moved to {city} last spring and I love it there",
    "My favourite tea is {tea}, I drink it every morning",
    "We decided to use {tool} for the new billing service",
    "My sister {name} is getting married in June",
    "I prefer {tea} over coffee these days",
    "Our team standup moved to {time} on Tuesdays",
)
FILL = {
    "city": ("Lisbon", "Osaka", "Denver", "Tallinn", "Quito", "Perth"),
    "tea": ("sencha", "rooibos", "earl grey", "oolong", "chai", "mint tea"),
    "tool": ("Postgres", "Kafka", "Redis", "DuckDB", "NATS", "SQLite"),
    "name": ("Ana", "Bea", "Chloe", "Dana", "Emi", "Fay"),
    "time": ("9:15", "9:30", "10:00", "10:15", "8:45", "11:00"),
}


def fact(n: int) -> str:
    """A user-stated fact the rules extractor keeps, distinct per *n*."""
    template = FACTS[n % len(FACTS)]
    values = {key: f"{choices[(n // len(FACTS)) % len(choices)]}" for key, choices in FILL.items()}
    return template.format(**values) + f" (note {n})"


def _any_hit(ranked: list[set[str]], evidence: list[str]) -> tuple[float, float, float]:
    wanted = set(evidence)
    seen5 = set().union(*ranked[:5]) if ranked else set()
    seen10 = set().union(*ranked[:10]) if ranked else set()
    rr = next((1.0 / i for i, ids in enumerate(ranked, start=1) if ids & wanted), 0.0)
    return len(wanted & seen5) / len(wanted), len(wanted & seen10) / len(wanted), rr


def quality(
    settings: Settings,
    path: str | Path,
    *,
    conversations: str | None = None,
    mode: str = "hybrid",
    k: int = 10,
    progress: Callable[[str], None] = lambda _m: None,
) -> dict[str, Any]:
    """Extracted memories against every turn stored, on the same questions and mode."""
    from ..store import MemoryStore

    chosen = select(list(load(path)), conversations)
    rows: list[tuple[float, float, float]] = []
    memories = turns = 0
    extract_seconds = 0.0
    decisions: dict[str, int] = {}
    for conv in chosen:
        store = MemoryStore(
            collection=f"bench-sessions-{conv.sample_id}-{uuid.uuid4().hex[:6]}", settings=settings
        )
        try:
            groups: dict[str, list[dict[str, Any]]] = {}
            for t in conv.turns:
                groups.setdefault(t.dia_id.split(":")[0], []).append(
                    {"role": "user", "content": t.text, "id": t.dia_id, "ts": t.when,
                     "name": t.speaker}
                )  # fmt: skip
            for n, (session, messages) in enumerate(groups.items(), start=1):
                progress(f"{conv.sample_id}: extracting session {n}/{len(groups)}")
                sid = f"{conv.sample_id}-{session}"
                store.add_messages(sid, messages)
                started = time.perf_counter()
                report = store.extract_session(sid)
                extract_seconds += time.perf_counter() - started
                for name, value in report.items():
                    if name in ("candidates", "added", "updated", "unchanged") and isinstance(
                        value, int
                    ):
                        decisions[name] = decisions.get(name, 0) + value
            turns += len(conv.turns)
            memories += store.count()
            as_of = max((t.when for t in conv.turns), default=time.time()) + 86_400
            progress(f"{conv.sample_id}: asking {len(conv.questions)} questions")
            for q in conv.questions:
                hits = store.recall(q.text, k=k, touch=False, as_of=as_of, **MODES[mode])
                ranked = [set(getattr(m, "message_ids", []) or []) for m, _ in hits]
                rows.append(_any_hit(ranked, q.evidence))
        finally:
            store.drop()
    progress("storing every turn verbatim for the comparison")
    verbatim = run_locomo(path, modes=[mode], settings=settings, conversations=conversations)
    base = verbatim["modes"][0]
    n = len(rows) or 1
    return {
        "conversations": len(chosen),
        "turns": turns,
        "mode": mode,
        "extracted": {
            "memories": memories,
            "recall@5": round(sum(r[0] for r in rows) / n, 4),
            "recall@10": round(sum(r[1] for r in rows) / n, 4),
            "mrr": round(sum(r[2] for r in rows) / n, 4),
            "questions": len(rows),
            "extract_seconds": round(extract_seconds, 1),
            "messages_per_second_extracted": round(turns / extract_seconds, 1)
            if extract_seconds
            else 0.0,
            "decisions": decisions,
        },
        "verbatim": {
            "memories": verbatim["turns"],
            "recall@5": base["recall@5"],
            "recall@10": base["recall@10"],
            "mrr": base["mrr"],
            "questions": base["questions"],
        },
    }


def _post(conn: http.client.HTTPConnection, path: str, body: dict[str, Any]) -> int:
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    resp = conn.getresponse()
    resp.read()
    return resp.status


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def _load_phase(
    port: int, collection: str, clients: int, seconds: float, rate: float, tag: str
) -> dict[str, Any]:
    """*clients* keep-alive clients POST one message a request for *seconds* seconds.

    With *rate*, each client sends *rate* messages a second on average at independent
    random (Poisson) times, as separate users do: clients that all fired on the same tick
    would measure a burst of *clients* requests queued behind each other, an artefact of
    the generator. With rate 0 they send back to back (a closed loop that measures the
    server's queue as much as a request)."""
    latencies: list[float] = []
    errors: list[int] = []
    lock = threading.Lock()
    paced = rate > 0

    def client(c: int, until: float) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        own: list[float] = []
        n = 0
        arrivals = random.Random(f"{tag}-{c}")  # seeded: the same schedule every run
        next_at = time.monotonic() + (arrivals.expovariate(rate) if paced else 0.0)
        while time.monotonic() < until:
            if paced:
                pause = next_at - time.monotonic()
                if pause > 0:
                    time.sleep(pause)
                next_at += arrivals.expovariate(rate)
            session = f"{tag}-{c}-{n // 24}"  # a session per 24 messages: 3 extractions each
            body = {"messages": [{"role": "user", "content": fact(c * 100_000 + n)}],
                    "user_id": f"u{c}"}  # fmt: skip
            n += 1
            started = time.perf_counter()
            try:
                status = _post(conn, f"/c/{collection}/sessions/{session}/messages", body)
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                status = 0
            if status in (200, 201, 202):
                own.append(time.perf_counter() - started)
            else:
                errors.append(status)
        conn.close()
        with lock:
            latencies.extend(own)

    started = time.monotonic()
    threads = [
        threading.Thread(target=client, args=(c, started + seconds), daemon=True)
        for c in range(clients)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - started
    return {
        "clients": clients,
        "rate_per_client": rate,
        "seconds": round(wall, 1),
        "messages": len(latencies),
        "accepted_per_second": round(len(latencies) / wall, 1) if wall else 0.0,
        "p50_ms": round(1000 * _pct(latencies, 0.50), 2),
        "p99_ms": round(1000 * _pct(latencies, 0.99), 2),
        "errors": len(errors),
        "load_1m": round(os.getloadavg()[0], 1),  # the machine's run queue: neighbours count
    }


def _rounds(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The round with the median p99, plus every round's p50/p99 (``rounds``)."""
    ordered = sorted(results, key=lambda r: r["p99_ms"])
    median = dict(ordered[len(ordered) // 2])
    median["rounds"] = [{"p50_ms": r["p50_ms"], "p99_ms": r["p99_ms"]} for r in results]
    return median


def _drain(store: Any, quiet: float = 5.0, limit: float = 300.0) -> float:
    """Wait until the worker's extractions stop adding memories (*quiet* seconds without a
    new one, *limit* at most); the seconds waited."""
    started = last_change = time.monotonic()
    seen = store.count()
    while time.monotonic() - last_change < quiet and time.monotonic() - started < limit:
        time.sleep(0.5)
        now = store.count()
        if now != seen:
            seen, last_change = now, time.monotonic()
    return time.monotonic() - started


def rest(
    settings: Settings,
    *,
    clients: int = 16,
    seconds: float = 20.0,
    rate: float = 2.0,
    probes: int = 8,
    rounds: int = 3,
    progress: Callable[[str], None] = lambda _m: None,
) -> dict[str, Any]:
    """Message POST latency under *clients* while a worker extracts (paced at *rate* a
    client, *rounds* times: the median round is reported, on a shared machine one round's
    p99 is mostly its neighbours), then back to back, then the time from a message to its
    recallable memory."""
    from ..pipeline.jobs import workers_alive
    from ..store import MemoryStore
    from .contention import start_worker, stop_process
    from .recall_rest import RestServer

    s = settings.replace(pipeline_mode="celery", extract_after_idle="2s")
    collection = f"bench-sessions-rest-{uuid.uuid4().hex[:8]}"
    store = MemoryStore(collection=collection, settings=s)
    log = Path(settings.data_dir) / "bench-sessions-worker.log"
    worker = start_worker(s, log)
    try:
        deadline = time.monotonic() + 300
        while workers_alive(store.client, s.key_prefix) == 0:
            if worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the worker did not start (see {log})")
            time.sleep(0.2)
        with RestServer(s, collection, threads=clients) as server:
            _load_phase(server.port, collection, 2, 2.0, 0.0, "warm")
            phases = {}
            if rate > 0:
                progress(f"{clients} clients at {rate}/s each: {rounds} rounds of {seconds:.0f} s")
                phases["paced"] = _rounds(
                    [
                        _load_phase(server.port, collection, clients, seconds, rate, f"paced{i}")
                        for i in range(rounds)
                    ]
                )
            progress(f"{clients} clients back to back for {seconds:.0f} s")
            phases["saturated"] = _load_phase(
                server.port, collection, clients, seconds, 0.0, "saturated"
            )
            extracted = store.count()
            progress("waiting for the extraction backlog to drain")
            drained = _drain(store)
            progress("freshness: message to recallable memory")
            fresh: list[float] = []
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
            for p in range(probes):
                session, mid = f"fresh-{p}-{uuid.uuid4().hex[:6]}", f"m-{p}"
                body = {"messages": [{"role": "user", "content": fact(10**8 + p), "id": mid}]}
                t0 = time.perf_counter()
                _post(conn, f"/c/{collection}/sessions/{session}/messages", body)
                until = time.monotonic() + 120
                while time.monotonic() < until:
                    found = store.list_recent(limit=5, session_id=session)
                    if any(mid in (m.message_ids or []) for m in found):
                        fresh.append(time.perf_counter() - t0)
                        break
                    time.sleep(0.05)
            conn.close()
        return {
            "phases": phases,
            "extracted_during_load": extracted,
            "drain_seconds": round(drained, 1),
            "extract_after_messages": s.extract_after_messages,
            "extract_after_idle": s.extract_after_idle,
            "freshness_median_s": round(statistics.median(fresh), 2) if fresh else None,
            "freshness_max_s": round(max(fresh), 2) if fresh else None,
            "freshness_found": f"{len(fresh)}/{probes}",
        }
    finally:
        stop_process(worker)
        store.drop()


def lines(result: dict[str, Any]) -> list[str]:
    out: list[str] = []
    q = result.get("quality")
    if q:
        out.append(
            f"quality: {q['conversations']} LoCoMo conversations, {q['turns']:,} turns, "
            f"mode {q['mode']}"
        )
        out.append(f"{'':<10}{'memories':>10}{'R@5':>8}{'R@10':>8}{'MRR':>8}")
        for name in ("extracted", "verbatim"):
            row = q[name]
            out.append(
                f"{name:<10}{row['memories']:>10,}{row['recall@5']:>8.3f}"
                f"{row['recall@10']:>8.3f}{row['mrr']:>8.3f}"
            )
        e = q["extracted"]
        out.append(
            f"extraction: {e['messages_per_second_extracted']} messages/s in process; "
            f"decisions {e['decisions']}"
        )
    r = result.get("rest")
    if r:
        for name, ph in r["phases"].items():
            each = ph["rate_per_client"]
            pace = f"{each}/s each (Poisson)" if each else "back to back"
            out.append(
                f"rest {name}: {ph['clients']} clients {pace}, {ph['messages']:,} messages in "
                f"{ph['seconds']} s ({ph['accepted_per_second']}/s), POST p50 {ph['p50_ms']} ms, "
                f"p99 {ph['p99_ms']} ms, {ph['errors']} errors, load {ph.get('load_1m', '?')}"
            )
            if len(ph.get("rounds", ())) > 1:
                each = ", ".join(f"{x['p50_ms']}/{x['p99_ms']}" for x in ph["rounds"])
                out.append(f"  rounds (p50/p99 ms; the median round above): {each}")
        out.append(
            f"extraction meanwhile: {r['extracted_during_load']:,} memories; backlog drained "
            f"in {r['drain_seconds']} s"
        )
        out.append(
            f"freshness (worker idle, idle trigger {r['extract_after_idle']}): message to "
            f"recallable memory median {r['freshness_median_s']} s, max {r['freshness_max_s']} s "
            f"({r['freshness_found']} found)"
        )
    return out
