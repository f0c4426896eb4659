"""The parameter models of the collection, backup and archive operations.

Part of the operation registry's parameter model (:mod:`houkai.app.operations.params`,
which names every model): split out so each module stays short.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .fields import TIME_HELP, CollectionName, ImportPolicy, MemoryTypeName, Timestamp
from .spec import Params


class CollectionRef(Params):
    name: CollectionName = Field(description="The collection's name.")


class CollectionMigrate(Params):
    name: CollectionName = Field(description="The collection whose vectors are re-written.")
    vector_type: Literal["FLOAT32", "FLOAT16", "BFLOAT16"] = Field(
        "FLOAT16", description="Element type to re-write the collection's vectors in."
    )
    batch_size: Annotated[int, Field(ge=1, le=100_000)] = Field(
        1000, description="Vectors re-written per round trip."
    )


class CollectionCopy(Params):
    src: CollectionName = Field(description="The collection to copy from (must exist).")
    dst: CollectionName = Field(description="The collection to copy into (created if missing).")


class Backup(Params):
    dest: Annotated[str, Field(min_length=1, max_length=4096)] | None = Field(
        None, description="Parent folder on the server (default: <data_dir>-backups)."
    )
    timeout: Annotated[float, Field(ge=1, le=86_400)] = Field(
        120.0, description="Seconds to wait for the snapshot."
    )


class ArchivePath(Params):
    path: Annotated[str, Field(min_length=1, max_length=4096)] = Field(
        description="A .ahkai archive file on the server."
    )


class Nuke(Params):
    confirm: str = Field(
        description='Must be exactly "DELETE ALL".', json_schema_extra={"const": "DELETE ALL"}
    )


VectorFormat = Literal["json", "base64"]
_VECTOR_FORMAT_DOC = (
    "json: the seed's archive format (version 1); base64: each vector as base64 of its stored "
    "bytes (version 2: a third smaller, exact to the bit; read by houkai's importer only)."
)


class Export(Params):
    path: str = Field(
        description="Server-local output file path. Over HTTP: admin tokens only, relative to "
        "the server's export_dir."
    )
    include_vectors: bool = Field(True, description="Include embeddings.")
    include_superseded: bool = Field(False, description="Also export superseded memories.")
    vector_format: VectorFormat = Field("json", description=_VECTOR_FORMAT_DOC)
    type: MemoryTypeName | list[MemoryTypeName] | None = Field(
        None, description="Only memories of this type (or these types)."
    )
    tag: str | list[str] | None = Field(None, description="Only memories carrying this tag.")
    since: Timestamp | None = Field(
        None, description=f"Only memories created at/after this time. {TIME_HELP}"
    )


class ExportStream(Params):
    include_vectors: bool = Field(True, description="Include embeddings.")
    include_superseded: bool = Field(False, description="Also export superseded memories.")
    vector_format: VectorFormat = Field("json", description=_VECTOR_FORMAT_DOC)
    type: MemoryTypeName | None = Field(None, description="Only memories of this type.")
    tag: str | None = Field(None, description="Only memories carrying this tag.")
    since: Timestamp | None = Field(
        None, description=f"Only memories created at/after this time. {TIME_HELP}"
    )


class ImportOptions(Params):
    on_conflict: ImportPolicy = Field("skip", description="When an id already exists.")
    regenerate_vectors: bool = Field(False, description="Re-embed instead of stored vectors.")
    dry_run: bool = Field(False, description="Only report what would happen.")


class Import(Params):
    path: str = Field(
        description="Server-local .ahkai file path. Over HTTP: admin tokens only, relative to "
        "the server's export_dir."
    )
    on_conflict: ImportPolicy = Field("skip", description="When an id already exists.")
    regenerate_vectors: bool = Field(False, description="Re-embed instead of stored vectors.")
    dry_run: bool = Field(False, description="Only report what would happen.")
