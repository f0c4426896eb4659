"""Forget, link, unlink and edit racing on the same memories keep the link index exact.

The invariant: every edge a live memory holds has its reverse-index entry, and
every reverse-index entry names a live memory that holds that edge. (Edges
*towards* a forgotten memory stay by design, so undo can bring it back whole.)
"""

from __future__ import annotations

import random
import threading

from houkai import MemoryNotFound


def _violations(store) -> list[str]:
    """Every breach of the link-index invariant in the store's collection."""
    live = {m.id: m for m in store.list_recent(limit=10000, include_superseded=True)}
    out: list[str] = []
    for memory in live.values():
        for link in memory.links:
            members = store.client.smembers(store.keys.incoming(link.to))
            if f"{memory.id}|{link.rel}".encode() not in members:
                out.append(f"forward {memory.id}->{link.to} ({link.rel}) has no reverse entry")
    prefix = store.keys.incoming_prefix
    for key in store.client.scan_iter(match=prefix + "*", count=1000):
        dst = key.decode()[len(prefix) :]
        for member in store.client.smembers(key):
            src, _, rel = member.decode().rpartition("|")
            source = live.get(src)
            if source is None:
                out.append(f"reverse {src}->{dst} ({rel}) from a deleted memory")
            elif not any(x.to == dst and x.rel == rel for x in source.links):
                out.append(f"reverse {src}->{dst} ({rel}) not held by its source")
    return out


def test_link_between_forgets_read_and_delete_leaves_no_reverse_entry(store, monkeypatch):
    """The reported race, made deterministic: a link lands right after forget reads."""
    a, b = store.remember("memory that is being forgotten"), store.remember("link target")
    original_get = type(store).get

    def get_then_race(self, memory_id, **kw):
        found = original_get(self, memory_id, **kw)
        if memory_id == a.id and found is not None:
            self.link(a.id, b.id, "related")  # another client, between read and delete
        return found

    monkeypatch.setattr(type(store), "get", get_then_race)
    assert store.forget(a.id) is True
    monkeypatch.undo()
    assert store.get(a.id) is None
    assert _violations(store) == []
    assert store.client.smembers(store.keys.incoming(b.id)) == set()


def test_forget_journals_exactly_what_it_deleted(store):
    a, b = store.remember("journaled source"), store.remember("journaled target")
    store.link(a.id, b.id, "refines")
    assert store.forget(a.id)
    entry = next(e for e in store.journal.tail(5) if e.op == "forget")
    assert entry.before["links"] == [{"to": b.id, "rel": "refines"}]
    assert store.undo(entry)
    assert _violations(store) == []
    assert store.get(a.id).links[0].to == b.id


def test_threads_racing_forget_link_unlink_edit_keep_the_index_exact(store):
    pool = [store.remember(f"race memory number {i}").id for i in range(6)]
    lock = threading.Lock()
    errors: list[BaseException] = []
    rels = ("related", "refines", "example_of")

    def pick(rng: random.Random, n: int) -> list[str]:
        with lock:
            return rng.sample(pool, n) if len(pool) >= n else []

    def linker(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(120):
            ids = pick(rng, 2)
            if ids:
                try:
                    if rng.random() < 0.8:
                        store.link(ids[0], ids[1], rng.choice(rels))
                    else:
                        store.unlink(ids[0], ids[1])
                except MemoryNotFound:
                    pass

    def forgetter(seed: int) -> None:
        rng = random.Random(seed)
        for i in range(25):
            ids = pick(rng, 1)
            if ids and store.forget(ids[0]):
                fresh = store.remember(f"replacement {seed}-{i}").id
                with lock:
                    if ids[0] in pool:
                        pool.remove(ids[0])
                    pool.append(fresh)

    def editor(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(60):
            ids = pick(rng, 1)
            if ids:
                try:
                    store.edit(ids[0], importance=rng.random(), tags=[f"t{rng.randint(0, 3)}"])
                except MemoryNotFound:
                    pass

    def run(target, seed: int) -> None:
        try:
            target(seed)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [
        threading.Thread(target=run, args=(fn, seed))
        for seed, fn in enumerate((linker, linker, linker, forgetter, forgetter, editor, editor))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    assert _violations(store) == []
