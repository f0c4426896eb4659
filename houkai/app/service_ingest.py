"""Ingest: documents, server-side files and streams chunked into memories as one job.

The ``ingest`` operation takes ``documents`` or a server-side ``path``. The CLI also
ingests a stream (stdin's JSONL, read line by line, once) and shows what an ingest
would store before it stores it (:meth:`IngestOps.ingest_preview`, then
:meth:`IngestOps.ingest_chunks` with those very chunks): every source is read and
chunked once, and the CLI never reaches past the service into the pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..domain.errors import Unavailable
from . import operations
from .operations import check_arguments, coerce_arguments
from .operations import params as params
from .operations.bind import operation
from .service_args import given, remember_item
from .service_base import ServiceBase
from .shapes import status_dict


@dataclass(frozen=True)
class IngestOptions:
    """One ingest's chunking (``chunk_sizes``), per-chunk defaults and batch size."""

    sizes: dict[str, Any]
    defaults: dict[str, Any]
    batch_size: int | None

    @property
    def pipeline_options(self) -> dict[str, Any]:
        """As keyword arguments of ``Pipeline.ingest_documents`` / ``ingest_path``."""
        out = {k: v for k, v in self.sizes.items() if k not in ("mode", "auto_importance")}
        if "mode" in self.sizes:
            out["chunking"] = self.sizes["mode"]
        out["auto_importance"] = bool(self.sizes.get("auto_importance"))
        if self.batch_size is not None:
            out["batch_size"] = self.batch_size
        return out


class IngestOps(ServiceBase):
    """The ingest operation and its stream and preview forms."""

    def _ingest_options(self, p: params.Ingest) -> IngestOptions:
        from ..pipeline.chunking import DEFAULT_MAX_CHARS, DEFAULT_MIN_CHARS
        from ..pipeline.documents import chunk_sizes

        sizes = given(p, "max_chars", "min_chars", "chunking")
        if sizes:
            # Merging never grows a chunk past max_chars, so a larger min_chars means
            # "merge as much as fits": clamp rather than refuse a well-formed request.
            sizes["min_chars"] = min(
                sizes.get("min_chars", DEFAULT_MIN_CHARS), sizes.get("max_chars", DEFAULT_MAX_CHARS)
            )
        auto = p.importance is None and self.settings.auto_importance
        auto = auto if p.auto_importance is None else bool(p.auto_importance)
        return IngestOptions(
            sizes=chunk_sizes(
                sizes.get("max_chars"), sizes.get("min_chars"), sizes.get("chunking"), auto
            ),
            defaults=remember_item(p, ("type", "tags", "source", "importance")),
            batch_size=p.batch_size,
        )

    def _ingest_pipeline(self, collection: str | None) -> Any:
        pipeline = self.pipeline(collection)
        if pipeline is None:
            raise Unavailable("ingestion pipeline is not available")
        return pipeline

    def _ingest_reply(self, pipeline: Any, job: Any, p: params.Ingest) -> dict[str, Any]:
        reply: dict[str, Any] = {"job_id": job.id, "total": job.total, "ids": list(job.memory_ids)}
        if p.wait:
            status, finished = self._wait_result(pipeline, job, p.timeout)
            reply["job"] = status_dict(status) if status is not None else None
            if not finished:
                reply["timed_out"] = True
        return reply

    @operation("ingest")
    def ingest(self, p: params.Ingest, *, collection: str | None = None) -> dict[str, Any]:
        """Chunk documents (or files under a server-side *path*) into memories as one job.

        ``chunking``: ``paragraph`` (default: the seed's one memory per paragraph)
        or ``pack`` (houkai's packing up to ``max_chars``).
        """
        opts = self._ingest_options(p)
        pipeline = self._ingest_pipeline(collection)
        if p.documents is not None:
            documents = [
                {**opts.defaults, **remember_item(d, params.Document.model_fields)}
                for d in p.documents
            ]
            job = pipeline.ingest_documents(documents, **opts.pipeline_options)
        else:
            # a path naming nothing to ingest raises NothingToIngest: a 404 (app.errors)
            job = pipeline.ingest_path(
                str(p.path), glob=p.glob, **opts.defaults, **opts.pipeline_options
            )
        return self._ingest_reply(pipeline, job, p)

    @staticmethod
    def _checked_ingest(arguments: Mapping[str, Any]) -> params.Ingest:
        """*arguments* checked as the ``ingest`` operation's (a stream or chunks stand
        in for ``documents``/``path``), with the same words as every door."""
        op = operations.get("ingest")
        values = {k: v for k, v in arguments.items() if v is not None}
        stand_in = {} if "documents" in values or "path" in values else {"path": "-"}
        checked = check_arguments(op, coerce_arguments(op, {**values, **stand_in}))
        for key in stand_in:
            checked.pop(key, None)
        return params.Ingest.model_construct(**checked)

    def _items_of(
        self, what: Mapping[str, Any], p: params.Ingest, opts: IngestOptions
    ) -> Callable[[], Iterator[dict]]:
        """The chunk maker of one input: ``documents``, ``path`` or ``lines`` (a stream
        of JSONL records, labelled ``source``)."""
        from ..pipeline import documents as docs

        extra = {k: v for k, v in opts.defaults.items() if k != "source"}
        source = opts.defaults.get("source")
        if "lines" in what:
            label = what.get("source") or source or "ingest:stdin"
            return lambda: docs.records_items(
                docs.parse_jsonl(what["lines"]), extra, opts.sizes, label
            )
        if "documents" in what:
            documents = [
                {**opts.defaults, **(d if isinstance(d, Mapping) else {"text": d})}
                for d in what["documents"]
            ]
            return lambda: docs.documents_items(documents, opts.sizes)
        files = docs.expand_path(str(what["path"]), p.glob)
        return lambda: docs.files_items(files, extra, opts.sizes, source)

    def ingest_stream(
        self, lines: Iterable[str], *, collection: str | None = None, **arguments: Any
    ) -> dict[str, Any]:
        """JSONL records read from *lines* (a stream such as stdin) as one ingest job,
        consumed once, line by line; *arguments* are the ``ingest`` operation's."""
        p = self._checked_ingest(arguments)
        opts = self._ingest_options(p)
        pipeline = self._ingest_pipeline(collection)
        job = pipeline.ingest_items(
            self._items_of({"lines": lines}, p, opts), batch_size=opts.batch_size
        )
        return self._ingest_reply(pipeline, job, p)

    def ingest_preview(
        self, inputs: list[Mapping[str, Any]], **arguments: Any
    ) -> list[list[dict[str, Any]]]:
        """The chunks each input (``documents``, ``path`` or ``lines``) would be stored
        as, read and chunked now, once: show them, then store them with
        :meth:`ingest_chunks`. Nothing is written."""
        p = self._checked_ingest(arguments)
        opts = self._ingest_options(p)
        return [list(self._items_of(what, p, opts)()) for what in inputs]

    def ingest_chunks(
        self,
        chunks: list[dict[str, Any]],
        *,
        collection: str | None = None,
        **arguments: Any,
    ) -> dict[str, Any]:
        """Store chunks made by :meth:`ingest_preview` as one ingest job (checked again
        as the pipeline writes them: all-or-nothing)."""
        p = self._checked_ingest(arguments)
        pipeline = self._ingest_pipeline(collection)
        job = pipeline.ingest_items(lambda: iter(chunks), batch_size=p.batch_size)
        return self._ingest_reply(pipeline, job, p)
