"""TTL reclaim: ``purge_expired`` (README "Expiry (TTL)").

Expired memories are already hidden from recall and list_recent by the
``expires_at`` clause every default query carries; this hard-deletes them.
Candidates come from a RediSearch numeric range query streamed in batches,
and each delete re-checks the deadline inside Redis, so a TTL extended by a
concurrent ``edit`` after the scan is never purged.
"""

from __future__ import annotations

import math
import time

from ..domain.model import Memory, ValidationError
from .core import CoreStore

PURGE_BATCH = 500


def _check_now(now: object) -> float:
    if now is None:
        return time.time()
    if isinstance(now, bool) or not isinstance(now, int | float) or not math.isfinite(now):
        raise ValidationError(f"now must be a Unix timestamp — got {now!r}")
    return float(now)


def expired_query(now: float) -> str:
    """Memories with a deadline at or before *now* (0 means "never expires")."""
    return f"@expires_at:[(0 {float(now)!r}]"


class Expiry:
    """purge_expired."""

    def __init__(self, core: CoreStore) -> None:
        self.core = core

    def purge_expired(self, now: float | None = None, dry_run: bool = False) -> list[Memory]:
        """Hard-delete every memory whose TTL has passed; returns those purged.

        Unlike decay's prune it ignores ``protect_types``: an explicit TTL is a
        stronger signal. Each deletion is journaled as its own ``forget``
        (actor ``purge``), so it is auditable and individually undoable.
        ``dry_run=True`` only reports. *now* overrides the clock (epoch seconds).
        """
        cutoff = _check_now(now)
        if not isinstance(dry_run, bool):
            raise ValidationError(f"dry_run must be true or false — got {dry_run!r}")
        self.core.count_call("purge_expired")
        expired: list[Memory] = []
        for batch in self.core.iter_memories(
            expired_query(cutoff), batch_size=PURGE_BATCH, sortby="created_at"
        ):
            expired.extend(m for m in batch if m.is_expired(cutoff))
        if dry_run or not expired:
            return expired
        purged: list[Memory] = []
        with self.core.as_actor("purge"):
            for start in range(0, len(expired), PURGE_BATCH):
                purged.extend(self._purge_batch(expired[start : start + PURGE_BATCH], cutoff))
        if purged:
            self.core.count_call("forget", len(purged))
        return purged

    def _purge_batch(self, memories: list[Memory], cutoff: float) -> list[Memory]:
        """Delete the still-expired memories of one batch and journal each one."""
        script = self.core.scripts.delete_if_expired
        pipe = self.core.client.pipeline(transaction=False)
        for memory in memories:
            script(
                keys=[
                    self.core.keys.memory(memory.id),
                    self.core.keys.lexstats,
                    self.core.keys.access_doc(memory.id),
                ],
                args=[repr(cutoff), self.core.keys.incoming_prefix, memory.id],
                client=pipe,
            )
        deleted = [m for m, ok in zip(memories, pipe.execute(), strict=True) if int(ok)]
        self.core.journal_append_many(
            "forget", ((m.id, m.to_dict(), None) for m in deleted), meta={"reason": "expired"}
        )
        return deleted
