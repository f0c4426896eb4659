"""BGSAVE waits out a running save by the server's state, not by its error's wording."""

from __future__ import annotations

import pytest
import redis

from houkai.app.backup import _bgsave
from houkai.domain.errors import Unavailable


class Server:
    """Answers BGSAVE and INFO persistence as a Redis with *busy* saves still running."""

    def __init__(self, busy: int, refusals: int) -> None:
        self.busy, self.refusals = busy, refusals

    def bgsave(self) -> None:
        if self.refusals:
            self.refusals -= 1
            raise redis.ResponseError("ERR some wording houkai does not read")

    def info(self, section: str) -> dict:
        assert section == "persistence"
        running = self.busy > 0
        self.busy -= 1
        return {
            "rdb_bgsave_in_progress": int(running),
            "rdb_last_bgsave_status": "ok",
            "rdb_last_save_time": 1_700_000_000,
        }


def test_a_refusal_while_a_save_runs_is_waited_out() -> None:
    assert _bgsave(Server(busy=2, refusals=2), timeout=10) == 1_700_000_000.0


def test_refusals_with_nothing_running_are_an_error() -> None:
    with pytest.raises(Unavailable, match="BGSAVE failed"):
        _bgsave(Server(busy=0, refusals=5), timeout=10)
