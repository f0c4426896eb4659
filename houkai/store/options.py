"""What a store is built from: its options, before any Redis call.

The seed's constructor arguments that need translating (a plain embedding
function, the file journal's path and rotation size) and the shape of one
``remember_many`` item. Kept apart from :mod:`houkai.store.core` so the core
holds only the repository's primitives.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..domain.config import Settings
from ..domain.model import REMEMBER_ITEM_FIELDS, RememberItem, ValidationError, ValidationTypeError


class CallableEmbedder:
    """Adapts a seed-style ``embedding_function(texts) -> list[list[float]]``."""

    def __init__(self, fn: Callable[[list[str]], Any], name: str = "custom") -> None:
        self.fn = fn
        self.name = name
        self._dimension: int | None = None

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self.encode(["dimension probe"]).shape[1])
        return self._dimension

    def encode(self, texts: list[str]) -> np.ndarray:
        matrix = np.asarray(self.fn(list(texts)), dtype=np.float32)
        if matrix.ndim == 1:
            matrix = matrix.reshape(1, -1)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        self._dimension = int(matrix.shape[1]) if matrix.size else self._dimension
        return matrix / norms


def coerce_remember_item(item: str | RememberItem | Mapping[str, Any]) -> dict[str, Any]:
    """One ``remember_many`` entry as ``remember()`` keyword arguments."""
    if isinstance(item, str):
        return {"text": item}
    if isinstance(item, RememberItem):
        return {f: getattr(item, f) for f in REMEMBER_ITEM_FIELDS}
    if isinstance(item, Mapping):
        unknown = set(item) - set(REMEMBER_ITEM_FIELDS)
        if unknown:
            raise ValidationError(
                f"unknown remember item field(s): {sorted(unknown)} "
                f"(allowed: {', '.join(REMEMBER_ITEM_FIELDS)})"
            )
        if "text" not in item:
            raise ValidationError("each remember_many item needs a 'text' field")
        return dict(item)
    raise ValidationTypeError(
        f"remember_many item must be a string, RememberItem or mapping — got {type(item).__name__}"
    )


# The seed rotated its file journal at ``journal_rotate_mb``; houkai caps the
# stream by entries. A journaled mutation (with its snapshots) is about 1 KiB.
_JOURNAL_ENTRY_BYTES = 1024
_UNSAFE_PATH = re.compile(r"[^A-Za-z0-9_.\-]")


def journal_archive_dir(settings: Settings, key_prefix: str) -> Path:
    """``<journal_archive_dir or data_dir/journal-archive>/<key prefix>``.

    One sub-directory per key prefix, so two deployments sharing a data
    directory never mix their collections' histories.
    """
    base = (
        Path(settings.journal_archive_dir)
        if settings.journal_archive_dir
        else (Path(settings.data_dir) / "journal-archive")
    )
    return base / (_UNSAFE_PATH.sub("_", key_prefix) or "_")


def journal_settings(
    s: Settings, journal_path: str | os.PathLike[str] | None, rotate_mb: int | None
) -> Settings:
    """Map the seed's file-journal arguments onto houkai's journal settings.

    ``journal_path`` (the seed's ``journal.log``): its directory receives the
    gzip archives; ``journal_rotate_mb``: the live stream keeps about that many
    MiB of entries before older ones are archived.
    """
    changes: dict[str, Any] = {}
    if journal_path is not None:
        changes["journal_archive_dir"] = str(Path(journal_path).expanduser().parent)
    if rotate_mb is not None:
        if isinstance(rotate_mb, bool) or not isinstance(rotate_mb, int | float) or rotate_mb <= 0:
            raise ValidationError(
                f"journal_rotate_mb must be a positive number — got {rotate_mb!r}"
            )
        changes["journal_maxlen"] = max(1000, int(rotate_mb * 1024 * 1024 / _JOURNAL_ENTRY_BYTES))
    return s.replace(**changes) if changes else s
