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
from .graph import delete_memory_lua
from .host import StoreHost

PURGE_BATCH = 500

# KEYS: memory hash, lexstats hash, access document. ARGV: now, incoming-set prefix, memory id.
# Deletes (keeping the BM25 corpus statistics and the reverse link index exact,
# like every other delete) only if 0 < expires_at <= now still holds.
_DELETE_IF_EXPIRED_LUA = (
    """
local raw = redis.call('HGET', KEYS[1], 'expires_at')
if not raw then return 0 end
local at = tonumber(raw)
if not at or at <= 0 or at > tonumber(ARGV[1]) then return 0 end
"""
    + delete_memory_lua("KEYS[1]", "KEYS[2]", "ARGV[2]", "ARGV[3]", "KEYS[3]")
    + "return 1\n"
)


def _check_now(now: object) -> float:
    if now is None:
        return time.time()
    if isinstance(now, bool) or not isinstance(now, int | float) or not math.isfinite(now):
        raise ValidationError(f"now must be a Unix timestamp — got {now!r}")
    return float(now)


def expired_query(now: float) -> str:
    """Memories with a deadline at or before *now* (0 means "never expires")."""
    return f"@expires_at:[(0 {float(now)!r}]"


class ExpiryMixin(StoreHost):
    """purge_expired."""

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
        self.count_call("purge_expired")
        expired: list[Memory] = []
        for batch in self.iter_memories(
            expired_query(cutoff), batch_size=PURGE_BATCH, sortby="created_at"
        ):
            expired.extend(m for m in batch if m.is_expired(cutoff))
        if dry_run or not expired:
            return expired
        purged: list[Memory] = []
        with self.as_actor("purge"):
            for start in range(0, len(expired), PURGE_BATCH):
                purged.extend(self._purge_batch(expired[start : start + PURGE_BATCH], cutoff))
        if purged:
            self.count_call("forget", len(purged))
        return purged

    def _purge_batch(self, memories: list[Memory], cutoff: float) -> list[Memory]:
        """Delete the still-expired memories of one batch and journal each one."""
        script = getattr(self, "_expiry_delete_script", None)
        if script is None:
            script = self._expiry_delete_script = self.client.register_script(
                _DELETE_IF_EXPIRED_LUA
            )
        pipe = self.client.pipeline(transaction=False)
        for memory in memories:
            script(
                keys=[
                    self.keys.memory(memory.id),
                    self.keys.lexstats,
                    self.keys.access_doc(memory.id),
                ],
                args=[repr(cutoff), self.keys.incoming_prefix, memory.id],
                client=pipe,
            )
        deleted = [m for m, ok in zip(memories, pipe.execute(), strict=True) if int(ok)]
        self.journal_append_many(
            "forget", ((m.id, m.to_dict(), None) for m in deleted), meta={"reason": "expired"}
        )
        return deleted
