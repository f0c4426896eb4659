"""One place for houkai's configuration.

Resolution order, most explicit first (the seed's chain; README "Configuration"):

1. explicit overrides (CLI flags, constructor arguments) passed to :func:`load_settings`
2. environment variables ``HOUKAI_<KEY>`` (and the conventional ``REDIS_URL``)
3. a TOML config file: ``$HOUKAI_CONFIG`` or ``~/.config/houkai/config.toml``
4. the defaults below

Every process (library, workers, REST API, MCP server, CLI) reads the same
:class:`Settings` through :func:`get_settings`, which resolves once and caches.
Nested TOML tables flatten with ``_``: ``[maintenance] decay_every = "24h"`` is
the key ``maintenance_decay_every`` and the env var ``HOUKAI_MAINTENANCE_DECAY_EVERY``.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .model import ValidationError

ENV_PREFIX = "HOUKAI_"


def _default_data_dir() -> str:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "houkai")


@dataclass(frozen=True)
class Settings:
    """Every tunable houkai reads. Field names are the config keys."""

    # --- storage -------------------------------------------------------------
    redis_url: str = ""  # empty: start/use the embedded Redis Stack under data_dir
    data_dir: str = field(default_factory=_default_data_dir)
    # port of the embedded server: 0 = the one data_dir's runtime file remembers,
    # else 6390 (a free one when that is taken); a port set here always wins
    redis_port: int = 0
    key_prefix: str = "houkai"
    collection: str = "ai_houkai"
    # on a Redis Cluster whose masters have replicas, a door's write answers once one
    # replica has it (WAIT), for at most this many ms (then it answers, with a warning
    # logged); 0 = off. No effect on one node or on masters without replicas (ADR 0079)
    cluster_replica_wait_ms: int = 1000
    # --- index ---------------------------------------------------------------
    hnsw_m: int = 16
    hnsw_ef_construction: int = 200
    hnsw_ef_runtime: int = 64
    # KNN is exact (a FLAT field beside the HNSW graph, ~840 B more per memory at
    # FLOAT16) while a collection holds at most this many memories; above, HNSW.
    # 0: no FLAT field in new collections (ADR 0069)
    exact_knn_max: int = 50_000
    # above exact_knn_max, semantic recall adds the query's keyword hits to the HNSW
    # pool (still ranked by cosine): a distinct fact inside a dense cluster is found.
    # false: the bare HNSW pool, as 0.1 had it (ADR 0069)
    semantic_widen: bool = True
    # element type of NEW collections' vectors (FLOAT16 | BFLOAT16 | FLOAT32); an
    # existing collection keeps its own (`houkai collections migrate` changes it)
    vector_type: str = "FLOAT16"
    # --- embeddings ----------------------------------------------------------
    # "minilm" (bundled, offline: the fastest backend within the quality gate,
    # see ADR 0019) | "minilm-onnx-int8" | "minilm-onnx" | "minilm-torch" | "openai:MODEL"
    embedder: str = "minilm"
    model_cache_dir: str = ""  # exported ONNX files; empty: <data_dir>/models
    embed_batch_size: int = 32  # sentence-transformers' default; measured fastest on 2 cores
    embed_threads: int = 0  # torch / ONNX Runtime intra-op threads; 0 = default (cores / streams)
    # concurrent encode calls per process; 0 = auto: one per task slot (at most
    # one per core) in `houkai worker` (threads pool), else 1 (one call already
    # uses every core)
    embed_streams: int = 0
    query_cache_size: int = 1024
    # query encodes go before bulk sub-batches in one process (ADR 0073); false: a
    # bulk encode holds its slot for the whole call, queries wait behind it
    embed_query_priority: bool = True
    # hybrid recall's stages (registry: houkai/recall/stages/__init__.py); "default" = the
    # ones on by default there; "" turns them all off; "default,fitted" adds an opt-in one
    recall_stages: str = "default"
    # a file of more synonym groups for the `synonyms` stage, one group per line
    # ("k8s kubernetes"), beside the built-in ones; empty: the built-in ones only
    recall_synonyms: str = ""
    # --- library defaults ----------------------------------------------------
    default_type: str = "semantic"
    default_importance: float = 0.5
    conflict_policy: str = "ignore"
    conflict_threshold: float = 0.80
    journal_enabled: bool = True
    journal_maxlen: int = 100_000  # stream entries kept in Redis per collection
    journal_archive_dir: str = ""  # empty: <data_dir>/journal-archive
    # --- pipeline ------------------------------------------------------------
    # auto: enqueue to Celery when a worker is alive, else embed inline in the
    # calling process; celery: always enqueue; inline: never enqueue.
    pipeline_mode: str = "auto"
    broker_url: str = ""  # empty: same Redis as storage
    result_backend: str = ""  # empty: same as broker
    broker_visibility_timeout: str = "1h"  # > the longest task; unacked tasks return after it
    ingest_batch_size: int = 256
    # `houkai worker` lowers its CPU priority by this (os.nice, 0-19) so an API on the
    # same machine keeps its read latency while the worker embeds (ADR 0073); 0 = off
    worker_nice: int = 10
    reconcile_after: str = "10m"
    # --- conversation extraction: LLM providers (docs/extraction-llm.md) ---------
    # "rules" (no LLM) | "llm:openai:MODEL" | "llm:anthropic:MODEL" | "llm:ollama:MODEL"
    extractor: str = "rules"
    # OpenAI-compatible server (vLLM, LM Studio, llama.cpp, Ollama …); empty: the
    # provider's own endpoint (Ollama: http://localhost:11434/v1)
    llm_base_url: str = ""
    # name of the variable holding the key; empty: OPENAI_API_KEY / ANTHROPIC_API_KEY
    llm_api_key_env: str = ""
    llm_rate: float = 0.0  # requests per second per provider, all workers together; 0 = no limit
    llm_burst: float = 0.0  # requests at once from a full bucket; 0 = max(1, rate)
    llm_tpm: float = 0.0  # prompt tokens per minute per provider (estimated); 0 = no limit
    llm_concurrency: int = 4  # requests in flight per provider, all workers; 0 = no cap
    llm_timeout: float = 60.0  # seconds one request may take
    llm_retries: int = 3  # retries of one call on 429/5xx/timeouts/malformed replies
    llm_wait: float = 30.0  # seconds one attempt waits for a rate token or a slot
    llm_mode: str = "json_schema"  # OpenAI-compatible structured output: json_schema|tools|json
    llm_max_tokens: int = 0  # reply token limit; 0 = the server's (Anthropic: 2048)
    llm_prices: str = ""  # "model=in/out,…" USD per million tokens, over the built-in table
    llm_cache_ttl: int = 86400  # seconds a validated reply is reused for the same prompt
    llm_batch_chars: int = 24000  # message text per extraction call; longer batches go in parts
    # --- maintenance schedule (beat) -----------------------------------------
    maintenance_decay_every: str = "24h"
    maintenance_purge_every: str = "24h"
    maintenance_reconcile_every: str = "5m"
    maintenance_reflect_every: str = "7d"
    maintenance_archive_every: str = "24h"
    # findability (ADR 0069): a sample of memories asked for by their own vector and
    # text; what the HNSW graph misses is re-inserted
    maintenance_findable_every: str = "6h"
    maintenance_findable_enabled: bool = True
    maintenance_findable_sample: int = 1000
    maintenance_findable_threshold: float = 0.999
    maintenance_tick_interval: str = "5m"
    maintenance_decay_rate: float = 0.1
    maintenance_decay_min_score: float = 0.05
    maintenance_decay_protect_types: str = "procedural"
    maintenance_decay_frequency_weight: float = 0.0
    maintenance_decay_enabled: bool = True
    maintenance_purge_enabled: bool = True
    maintenance_reflect_enabled: bool = True
    maintenance_reflect_apply: bool = False
    maintenance_reflect_summarizer: str = "extractive"
    maintenance_reflect_similarity_threshold: float = 0.75
    maintenance_reflect_min_cluster_size: int = 2
    # --- sessions and extraction (issue 30) ---------------------------------
    # messages a session shows verbatim; older ones (once extracted) fold into its summary
    session_window: int = 20
    session_summary_chars: int = 2000  # the running summary keeps its newest lines within this
    session_ttl: str = "30d"  # an idle session is forgotten after this; "0" = never
    # extraction runs after this many not-yet-extracted messages, or this long after the
    # last message (debounced: every new message pushes it back)
    extract_after_messages: int = 8
    extract_after_idle: str = "30s"
    # the extractor is `extractor` above ("rules": no LLM; user-stated facts, preferences,
    # decisions, dated events), the provider's options the llm_* settings
    # reconciliation without an LLM: a candidate this close to a stored memory is a
    # duplicate (NOOP); this close with opposite polarity or a negation, an UPDATE
    extract_duplicate_similarity: float = 0.90
    extract_update_similarity: float = 0.80
    # --- front doors ---------------------------------------------------------
    http_host: str = "127.0.0.1"
    http_port: int = 8765
    http_tokens: str = ""  # "tok" or "tok:coll1|coll2:ro,tok2" (see README)
    # the bearer token the CLI presents to a running server that requires one
    # (HOUKAI_TOKEN); else it tries those of http_tokens, else runs in-process
    token: str = ""
    http_max_body: int = 4 * 1024 * 1024
    # Host names (name or name:port, comma-separated; "*" = any) the REST API and
    # MCP-over-HTTP answer besides the bind address and, on loopback, localhost.
    http_allowed_hosts: str = ""
    # Wrong bearer tokens one client address may send per window before 429 (0: off).
    http_auth_max_failures: int = 20
    http_auth_failure_window: float = 60.0
    # seconds a recall / recall_pack / auto_context may work before it is stopped
    # (HTTP 503 with the reason); 0 = no deadline
    request_deadline: float = 30.0
    mcp_host: str = "127.0.0.1"
    mcp_port: int = 8766
    auto_importance: bool = False
    # --- archives (.ahkai) ---------------------------------------------------
    # Server-side paths given over REST / MCP-over-HTTP resolve inside this
    # folder (admin tokens only); empty: <data_dir>/exports.
    export_dir: str = ""
    import_max_bytes: int = 4 * 1024**3  # decompressed size cap of one archive
    import_max_errors: int = 100  # error rows listed in an import summary (all are counted)
    http_max_upload: int = 512 * 1024 * 1024  # uploaded archive (POST /import body)

    def replace(self, **changes: Any) -> Settings:
        """A copy with *changes* applied (unknown keys raise ``TypeError``)."""
        return dataclasses.replace(self, **changes)

    @property
    def embedded(self) -> bool:
        """True when houkai runs its own Redis Stack under ``data_dir``."""
        return not self.redis_url


def _coerce(value: Any, target: type, key: str) -> Any:
    """Convert a config-file or env value to the field's declared type."""
    if target is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off", ""):
            return False
        raise ValidationError(f"config {key}: expected a boolean, got {value!r}")
    if target is int:
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ValidationError(f"config {key}: expected an integer, got {value!r}") from None
    if target is float:
        try:
            return float(value)
        except (TypeError, ValueError):
            raise ValidationError(f"config {key}: expected a number, got {value!r}") from None
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


_TYPES = {"str": str, "int": int, "float": float, "bool": bool}


def _field_types() -> dict[str, type]:
    return {f.name: _TYPES[str(f.type)] for f in fields(Settings)}


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}{key}".replace("-", "_").replace(".", "_")
        if isinstance(value, dict):
            out.update(_flatten(value, name + "_"))
        else:
            out[name] = value
    return out


def config_path() -> Path:
    """Where the config file is looked for (it need not exist)."""
    explicit = os.environ.get(ENV_PREFIX + "CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "houkai" / "config.toml"


def read_config_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        with path.open("rb") as fh:
            return _flatten(tomllib.load(fh))
    except tomllib.TOMLDecodeError as exc:
        raise ValidationError(f"config file {path} is not valid TOML: {exc}") from None


# The seed's environment variables, read below the HOUKAI_* ones: its store path
# becomes the embedded Redis data directory, its collection the collection.
SEED_ENV = {
    "AI_HOUKAI_PATH": "data_dir",
    "AI_HOUKAI_COLLECTION": "collection",
    "AI_HOUKAI_AUTO_IMPORTANCE": "auto_importance",
}


def load_settings(
    overrides: dict[str, Any] | None = None, *, env: Mapping[str, str] | None = None
) -> Settings:
    """Resolve settings from defaults → file → env → *overrides* (None values skipped)."""
    source: Mapping[str, str] = os.environ if env is None else env
    types = _field_types()
    values: dict[str, Any] = {}
    for key, value in read_config_file(config_path()).items():
        if key in types:
            values[key] = _coerce(value, types[key], key)
    if source.get("REDIS_URL"):
        values["redis_url"] = source["REDIS_URL"]
    for name, key in SEED_ENV.items():  # an existing seed registration keeps its target
        if source.get(name):
            raw_value = os.path.expanduser(source[name]) if key == "data_dir" else source[name]
            values[key] = _coerce(raw_value, types[key], name)
    for key, target in types.items():
        raw = source.get(ENV_PREFIX + key.upper())
        if key == "data_dir" and raw is not None and not raw.strip():
            # ``HOUKAI_DATA_DIR=`` is unset, as an empty model_cache_dir means its default:
            # not the working directory
            continue
        if raw is not None:
            values[key] = _coerce(raw, target, ENV_PREFIX + key.upper())
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if key not in types:
            raise ValidationError(f"unknown setting {key!r}")
        values[key] = _coerce(value, types[key], key)
    return Settings(**values)


_lock = threading.Lock()
_cached: Settings | None = None


def get_settings() -> Settings:
    """The process-wide settings, resolved once."""
    global _cached
    with _lock:
        if _cached is None:
            _cached = load_settings()
        return _cached


def set_settings(settings: Settings | None) -> None:
    """Replace (or with ``None`` forget) the process-wide settings; for tests and CLIs."""
    global _cached
    with _lock:
        _cached = settings


def parse_duration(text: str | float | int) -> float:
    """``"90s"``, ``"5m"``, ``"24h"``, ``"7d"``, ``"1w"`` or plain seconds → seconds."""
    if isinstance(text, int | float):
        if text < 0:
            raise ValidationError(f"duration must be >= 0, got {text!r}")
        return float(text)
    raw = str(text).strip().lower()
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
    try:
        if raw and raw[-1] in units:
            value = float(raw[:-1]) * units[raw[-1]]
        else:
            value = float(raw)
    except ValueError:
        raise ValidationError(
            f"invalid duration {text!r}: use a number of seconds or e.g. 90s, 5m, 24h, 7d"
        ) from None
    if value < 0:
        raise ValidationError(f"duration must be >= 0, got {text!r}")
    return value


def format_duration(seconds: float) -> str:
    """The inverse of :func:`parse_duration` for display (largest whole unit)."""
    for unit, size in (("w", 604800), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"
