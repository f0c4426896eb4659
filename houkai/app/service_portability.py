"""Archives in and out: export, import, their streaming forms for network doors,
collection_copy (export → import), backup and archive_info."""

from __future__ import annotations

from typing import Any

from ..domain.coerce import as_str_list, as_timestamp
from ..domain.errors import BadRequest, HoukaiError, NotFound
from ..domain.model import ValidationError
from .operations import params as params
from .operations.bind import operation
from .service_args import given
from .service_base import ServiceBase


class PortabilityOps(ServiceBase):
    """Operations that move memories in and out of a collection."""

    # ------------------------------------------------------------------ portability
    @operation("export")
    def export(self, p: params.Export, *, collection: str | None = None) -> dict[str, Any]:
        """Write a ``.ahkai`` archive to a server-side *path*: ``{path, count, bytes, elapsed}``."""
        store = self.read_store(collection)
        summary = store.export(
            p.path,
            include_vectors=p.include_vectors,
            include_superseded=p.include_superseded,
            types=as_str_list(p.type, "type"),
            tags=as_str_list(p.tag, "tag"),
            since=as_timestamp(p.since, "since"),
            vector_format=p.vector_format,
        )
        return {
            "path": str(summary.path),
            "count": summary.count,
            "bytes": summary.bytes,
            "elapsed": round(float(summary.elapsed), 4),
        }

    @operation("import")
    def import_(self, p: params.Import, *, collection: str | None = None) -> dict[str, Any]:
        """Read a ``.ahkai`` archive from a server-side *path*.

        Returns ``{ok, imported, skipped, overwritten, renamed, errors,
        errors_total, vectors_regenerated, dry_run}``; ``errors`` lists the first
        ``import_max_errors`` refused rows, ``errors_total`` counts them all.
        """
        from ..store.archive import ArchiveLimits

        store = self.store(collection)
        summary = store.import_(
            p.path,
            on_conflict=p.on_conflict,
            regenerate_vectors=p.regenerate_vectors,
            dry_run=p.dry_run,
            limits=ArchiveLimits.from_settings(self.settings),
        )
        errors = [
            {"id": e[0], "error": e[1]} if isinstance(e, tuple | list) and len(e) == 2 else e
            for e in (summary.errors or [])
        ]
        return {
            "ok": True,
            "imported": summary.imported,
            "skipped": summary.skipped,
            "overwritten": summary.overwritten,
            "renamed": summary.renamed,
            "errors": errors,
            "errors_total": summary.errors_total,
            "vectors_regenerated": summary.vectors_regenerated,
            "dry_run": p.dry_run,
        }

    @operation("export_stream")
    def export_stream(
        self, p: params.ExportStream, *, collection: str | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Export into a private temp file: ``(chunks, summary)``.

        *chunks* yields the archive bytes and deletes the file when exhausted
        or closed, so a network door streams any size in bounded memory and
        never names a server path.
        """
        import os
        import tempfile

        fd, tmp = tempfile.mkstemp(prefix="houkai-export-", suffix=".ahkai")
        os.close(fd)
        try:
            summary = self.export(tmp, **given(p, *type(p).model_fields), collection=collection)
        except BaseException:
            os.unlink(tmp)
            raise
        summary.pop("path", None)

        def chunks() -> Any:
            try:
                with open(tmp, "rb") as handle:
                    while block := handle.read(1 << 16):
                        yield block
            finally:
                os.unlink(tmp)

        return chunks(), summary

    def import_stream(
        self,
        stream: Any,
        *,
        max_bytes: int | None = None,
        collection: str | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        """Import an archive read from a binary *stream* (an upload), at most
        *max_bytes* (default ``http_max_upload``) compressed bytes; 413 past it.
        *options* are :meth:`import_`'s (on_conflict, regenerate_vectors, dry_run).

        The bytes are spooled to a private temp file (the import reads it twice:
        validate, then write) and go through exactly the same checks as a file.
        """
        import os
        import tempfile

        from ..store.archive import ArchiveError

        cap = int(max_bytes if max_bytes is not None else self.settings.http_max_upload)
        fd, tmp = tempfile.mkstemp(prefix="houkai-import-", suffix=".ahkai")
        try:
            size = 0
            with os.fdopen(fd, "wb") as out:
                while block := stream.read(1 << 16):
                    size += len(block)
                    if size > cap:
                        raise HoukaiError(
                            f"uploaded archive over {cap} bytes (http_max_upload)", status=413
                        )
                    out.write(block)
            if size == 0:
                raise BadRequest(
                    "empty body: send the .ahkai archive as the request body "
                    "(Content-Type: application/gzip)"
                )
            try:
                return self.import_(tmp, **options, collection=collection)
            except ArchiveError as exc:  # name the upload, not the server's temp file
                raise ArchiveError(str(exc).replace(tmp, "upload")) from None
        finally:
            os.unlink(tmp)

    @operation("collection_copy")
    def collection_copy(self, p: params.CollectionCopy) -> dict[str, Any]:
        """Every memory of ``src`` into ``dst`` through the archive path (export → import):
        vectors travel (no re-embedding), ids, links, supersede state and access tracking
        are kept, same ids in ``dst`` are overwritten, and each copy is journaled in ``dst``
        as an ``import`` — the checks of ``export`` + ``import``."""
        import os
        import tempfile

        if p.src == p.dst:
            raise ValidationError("dst: the same collection as src")
        if not self.has_collection(p.src):
            raise NotFound(f"no collection named {p.src!r}")
        fd, tmp = tempfile.mkstemp(prefix="houkai-copy-", suffix=".ahkai")
        os.close(fd)
        try:
            self.export(tmp, include_vectors=True, include_superseded=True, collection=p.src)
            summary = self.import_(tmp, on_conflict="overwrite", collection=p.dst)
        finally:
            os.unlink(tmp)
        copied = int(summary["imported"]) + int(summary["overwritten"])
        return {"src": p.src, "dst": p.dst, "copied": copied}

    @operation("backup")
    def backup(self, p: params.Backup) -> dict[str, Any]:
        """Snapshot the Redis data (BGSAVE; the embedded server's files copied to ``dest``)."""
        from .backup import backup

        return backup(self.settings, p.dest, p.timeout)

    @operation("archive_info")
    def archive_info(self, p: params.ArchivePath) -> dict[str, Any]:
        """Describe a .ahkai archive (header and memory count) without touching the store."""
        from .backup import archive_info

        return archive_info(p.path)
