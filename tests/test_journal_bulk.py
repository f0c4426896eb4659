"""Bulk writes journal every memory in one round trip, and stay best-effort about it."""

from __future__ import annotations

import logging


def _xadds(store, monkeypatch) -> list[int]:
    """Count XADDs sent one at a time (not inside a pipeline)."""
    sent: list[int] = []
    original = store.client.execute_command

    def counting(*args, **kwargs):
        if args and str(args[0]).upper() == "XADD":
            sent.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(store.client, "execute_command", counting)
    return sent


def test_remember_many_journals_each_memory_without_a_round_trip_each(store, monkeypatch):
    single = _xadds(store, monkeypatch)
    written = store.remember_many([f"bulk journal fact {i}" for i in range(7)], sequence=True)
    assert single == []  # all seven entries went in one pipeline
    entries = store.journal_tail(20, op="remember")
    assert [e.id for e in reversed(entries)] == [m.id for m in written]
    assert all(e.after and e.after["text"].startswith("bulk journal fact") for e in entries)


def test_a_failing_journal_never_fails_the_write(store, caplog):
    store.client.set(store.keys.journal, "not a stream")  # every XADD now errors
    with caplog.at_level(logging.WARNING, logger="houkai.store.core"):
        written = store.remember_many(["kept although the journal refuses", "and this one"])
    assert set(store.get_many([m.id for m in written])) == {m.id for m in written}
    assert "journal append failed for 2 of 2 remember entries" in caplog.text
    store.client.delete(store.keys.journal)
