"""The ``houkai`` CLI end to end: click's CliRunner against the real Redis Stack and model."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from _redis_mode import CLUSTER_MODE, single_node_only
from click.testing import CliRunner, Result

from houkai.app.operations import OPERATIONS
from houkai.cli import cli
from houkai.domain.config import Settings, set_settings
from houkai.domain.model import Memory
from houkai.domain.timeparse import parse_timestamp

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest.fixture()
def houkai(settings: Settings, embedder, tmp_path) -> Iterator[Callable[..., Result]]:
    """Run ``houkai ARGS`` in-process on a fresh collection; drops what it created."""
    collection = f"cli-{uuid.uuid4().hex[:10]}"
    env = {
        "REDIS_URL": settings.redis_url,
        "HOUKAI_KEY_PREFIX": settings.key_prefix,
        "HOUKAI_DATA_DIR": settings.data_dir,
        "HOUKAI_JOURNAL_ARCHIVE_DIR": settings.journal_archive_dir,
        "HOUKAI_CONFIG": str(tmp_path / "absent.toml"),
        "HOUKAI_COLLECTION": collection,
        "HOUKAI_PIPELINE_MODE": "inline",
        "NO_COLOR": "1",
    }
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, **extra_env: str) -> Result:
        try:
            return runner.invoke(
                cli, list(args), input=input, env={**env, **extra_env}, catch_exceptions=False
            )
        finally:
            set_settings(settings)

    invoke.collection = collection  # type: ignore[attr-defined]
    invoke.created = [collection]  # type: ignore[attr-defined]
    yield invoke
    from houkai import MemoryStore

    for name in invoke.created:  # type: ignore[attr-defined]
        MemoryStore(collection=name, settings=settings).drop()


def ok(result: Result) -> Result:
    assert result.exit_code == 0, f"exit {result.exit_code}\n{result.output}"
    return result


def as_json(result: Result):
    return json.loads(ok(result).stdout)


def remember(houkai, text: str, *args: str) -> str:
    out = ok(houkai("remember", text, *args)).stdout.strip()
    assert UUID_RE.fullmatch(out), out
    return out


def assert_one_error_line(result: Result, *needles: str) -> str:
    assert result.exit_code == 1, f"exit {result.exit_code}\n{result.output}"
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: "), lines[0]
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle.lower() in lines[0].lower(), lines[0]
    return lines[0]


def store_for(settings: Settings, collection: str):
    from houkai import MemoryStore

    return MemoryStore(collection=collection, settings=settings)


# --------------------------------------------------------------------------- round trips
def test_remember_list_show_forget_nuke(houkai):
    a = remember(
        houkai,
        "The deploy pipeline runs on GitHub Actions",
        "--tag",
        "ci",
        "-g",
        "deploy",
        "-t",
        "procedural",
        "--importance",
        "0.8",
    )
    b = remember(houkai, "Alice prefers dark mode in every editor")

    listed = as_json(houkai("list", "--format", "json"))
    assert {m["id"] for m in listed} == {a, b}
    first = next(m for m in listed if m["id"] == a)
    assert first["tags"] == ["ci", "deploy"] and first["type"] == "procedural"
    assert first["importance"] == pytest.approx(0.8)

    shown = as_json(houkai("show", a[:8], "--json"))
    assert shown["id"] == a and shown["text"].startswith("The deploy pipeline")

    ok(houkai("forget", a[:8], "--yes"))
    assert [m["id"] for m in as_json(houkai("--format", "json", "list"))] == [b]

    result = ok(houkai("nuke", "--yes"))
    assert "Deleted 1" in result.stdout
    assert as_json(houkai("list", "--json")) == []


def test_remember_reads_stdin(houkai):
    memory_id = ok(houkai("remember", "-", input="piped memory about kubernetes\n")).stdout.strip()
    shown = as_json(houkai("show", memory_id, "--json"))
    assert shown["text"] == "piped memory about kubernetes"


def test_recall_finds_by_meaning_with_filters(houkai):
    cat = remember(houkai, "The cat sleeps on the warm windowsill", "-g", "pets")
    remember(houkai, "Quarterly revenue grew by twelve percent", "-g", "finance")
    hits = as_json(houkai("recall", "kitten napping in the sun", "--k", "1", "--json"))
    assert hits[0]["id"] == cat and 0 < hits[0]["score"] <= 1

    hits = as_json(houkai("recall", "animal", "--tag", "finance", "--mode", "hybrid", "--json"))
    assert [h["tags"] for h in hits] == [["finance"]]

    explained = as_json(houkai("recall", "cat", "--explain", "--mode", "hybrid", "--json"))
    assert isinstance(explained[0]["explain"], dict)

    future = as_json(houkai("recall", "cat", "--since", "2999-01-01", "--json"))
    assert future == []
    past = as_json(
        houkai("recall", "cat", "--since", "7d", "--until", "2999-01-01T00:00:00Z", "--json")
    )
    assert cat in [h["id"] for h in past]


def test_pack_and_auto_context(houkai):
    remember(houkai, "Use pytest fixtures for database setup in tests")
    remember(houkai, "Database migrations run with alembic before deploy")
    result = ok(houkai("pack", "database testing", "--budget", "200", "--max-items", "5"))
    assert result.stdout.startswith("## Relevant memory")
    assert "tokens" in result.stderr
    packed = as_json(
        houkai("pack", "database testing", "--json", "--header", "", "--max-items", "5")
    )
    assert packed["used_tokens"] <= packed["budget"] == 800 and packed["items"]
    auto = as_json(houkai("auto-context", "set up database tests", "--max-phrases", "1", "--json"))
    assert auto["items"]


def test_tag_and_bump(houkai):
    memory_id = remember(houkai, "Tag me please", "-g", "old", "--importance", "0.5")
    tagged = as_json(houkai("tag", memory_id[:6], "--add", "new", "--remove", "old", "--json"))
    assert tagged["tags"] == ["new"]
    ok(houkai("bump", memory_id, "+0.2"))
    assert as_json(houkai("show", memory_id, "--json"))["importance"] == pytest.approx(0.7)
    ok(houkai("bump", memory_id, "-0.5"))
    assert as_json(houkai("show", memory_id, "--json"))["importance"] == pytest.approx(0.2)
    ok(houkai("bump", memory_id, "=0.9"))
    assert as_json(houkai("show", memory_id, "--json"))["importance"] == pytest.approx(0.9)
    assert_one_error_line(houkai("bump", memory_id, "lots"), "DELTA")


def test_registry_cli_bindings(houkai):
    """What the operations' CLI bindings declare: the service's rules, the switches."""
    memory_id = remember(houkai, "Bound through the registry", "-g", "keep")
    # tag's one rule (add and/or remove) is the registry's, worded as every door words it
    assert_one_error_line(houkai("tag", memory_id), "at least one of add or remove")
    # bump clamps to 0..1 in the service (the edit bound is never hit)
    bumped = as_json(houkai("bump", memory_id, "+5", "--json"))
    assert bumped["importance"] == 1.0 and bumped["id"] == memory_id
    # --apply is declared as dry_run=False: contradicting the parameter is an error
    assert_one_error_line(houkai("purge", "--apply", "--dry-run"), "--apply")
    assert as_json(houkai("purge", "--no-dry-run", "--yes", "--json"))["dry_run"] is False
    # several ids: the operation runs once per id
    other = remember(houkai, "A second memory to forget")
    gone = as_json(houkai("forget", memory_id, other, "--yes", "--json"))
    assert sorted(gone["deleted"]) == sorted([memory_id, other])
    # journal show reads through the service: the entry in full, by id or timestamp
    entry = as_json(houkai("journal", "tail", "-n", "1", "--json"))[0]
    by_id = as_json(houkai("journal", "show", entry["entry_id"], "--json"))
    assert by_id["op"] == "forget" and by_id["before"]["text"]
    by_ts = as_json(houkai("journal", "show", repr(entry["ts"]), "--json"))
    assert by_ts["op"] == "forget" and abs(by_ts["ts"] - entry["ts"]) <= 1e-3  # the ms tolerance
    # jobs: an unknown job is an error, the collection-wide retry is not
    assert_one_error_line(houkai("jobs", "cancel", "no-such-job"), "no job")
    assert as_json(houkai("jobs", "retry", "--json")) == {"job_id": None, "requeued": 0}
    ticked = as_json(houkai("maintenance", "tick", "--reflect-dry-run", "--wait", "1", "--json"))
    assert "summary" in ticked
    # nuke: --confirm (the REST/MCP spelling) needs no prompt; anything else is refused
    remember(houkai, "Something to nuke")
    assert_one_error_line(houkai("nuke", "--confirm", "yes please"), "DELETE ALL")
    assert as_json(houkai("nuke", "--confirm", "DELETE ALL", "--json"))["deleted"] == 1


def test_edit_with_flags_and_editor(houkai, tmp_path):
    memory_id = remember(houkai, "The capital of Australia is Sydney")
    edited = as_json(
        houkai(
            "edit",
            memory_id,
            "--text",
            "The capital of Australia is Canberra",
            "--type",
            "semantic",
            "--json",
        )
    )
    assert edited["changed"] and edited["id"] == memory_id
    hits = as_json(houkai("recall", "Canberra", "--k", "1", "--json"))
    assert hits[0]["id"] == memory_id and "Canberra" in hits[0]["text"]

    script = tmp_path / "fake-editor.sh"
    script.write_text(
        "#!/bin/sh\nsed -i -e 's/Canberra/Canberra (since 1913)/' "
        "-e 's/^importance: .*/importance: 0.95/' \"$1\"\n"
    )
    script.chmod(0o755)
    ok(houkai("edit", memory_id[:8], EDITOR=str(script)))
    shown = as_json(houkai("show", memory_id, "--json"))
    assert shown["text"] == "The capital of Australia is Canberra (since 1913)"
    assert shown["importance"] == pytest.approx(0.95)


def test_link_neighbors_unlink_graph(houkai):
    a = remember(houkai, "Parent concept: caching")
    b = remember(houkai, "Child detail: cache invalidation on write")
    ok(houkai("link", b[:8], a[:8], "--rel", "refines"))
    near = as_json(houkai("neighbors", a, "--json"))
    assert [(n["id"], n["rel"]) for n in near] == [(b, "refines")]
    graph = as_json(houkai("graph", b[:8], "--json"))
    assert {"src": b, "dst": a, "rel": "refines"} in graph["edges"]
    dot = ok(houkai("graph", b, "--dot")).stdout
    assert dot.startswith("digraph") and "refines" in dot
    # DOT reads UTF-8: the label keeps "…" (JSON's \u2026 would be printed as it is)
    assert '[label="Child detail: cache invalidation on wri…"]' in dot and "\\u" not in dot
    assert as_json(houkai("unlink", b, a, "--json"))["removed"] == 1
    assert as_json(houkai("neighbors", a, "--json")) == []
    assert_one_error_line(houkai("link", a, b, "--rel", "friends"), "--rel")


def test_supersede_restore_and_conflicts(houkai):
    old = remember(houkai, "The office wifi password is hunter2")
    new = remember(houkai, "The office wifi password is hunter3")
    ok(houkai("supersede", old[:8], new[:8]))
    assert [m["id"] for m in as_json(houkai("list", "--json"))] == [new]
    everything = as_json(houkai("list", "--include-superseded", "--json"))
    assert {m["id"] for m in everything} == {old, new}
    # piped (TSV, no dimmed rows), the listing says which memory is superseded, and by what
    header, *rows = ok(houkai("list", "--include-superseded", "-f", "tsv")).stdout.splitlines()
    assert header.split("\t")[-1] == "superseded_by"
    by_id = {r.split("\t")[0]: r.split("\t")[-1] for r in rows}
    assert by_id == {old: new, new: ""}
    assert "superseded_by" not in ok(houkai("list", "-f", "tsv")).stdout
    assert as_json(houkai("restore", old, "--json"))["restored"] is True
    assert len(as_json(houkai("list", "--json"))) == 2
    found = as_json(houkai("conflicts", "--threshold", "0.8", "--json"))
    assert {found[0]["a"]["id"], found[0]["b"]["id"]} == {old, new}


def test_ttl_list_and_purge(houkai):
    keep = remember(houkai, "Sprint goal: ship the importer", "--ttl", "7d")
    shown = as_json(houkai("show", keep, "--json"))
    assert shown["expires_at"] == pytest.approx(time.time() + 7 * 86400, abs=120)
    gone = remember(houkai, "Temporary note that already expired", "--expires-at", "1000")
    assert [m["id"] for m in as_json(houkai("list", "--json"))] == [keep]
    assert gone in [m["id"] for m in as_json(houkai("list", "--include-expired", "--json"))]

    preview = as_json(houkai("purge", "--json"))
    assert preview["dry_run"] and [m["id"] for m in preview["memories"]] == [gone]
    assert houkai("show", gone, "--json").exit_code == 0  # dry-run kept it
    applied = as_json(houkai("purge", "--apply", "--yes", "--json"))
    assert applied["applied"] == 1
    assert_one_error_line(houkai("show", gone), "no memory")
    assert_one_error_line(houkai("remember", "x", "--ttl", "soon"), "--ttl")
    assert_one_error_line(houkai("remember", "x", "--ttl", "0"), "--ttl: must be > 0")
    ok(houkai("journal", "tail", "--since", "0s"))  # a span that may be 0 stays allowed
    nan = houkai("recall", "x", "--min-importance", "nan")
    assert_one_error_line(nan, "min_importance: must be a finite number, got nan")
    assert_one_error_line(houkai("remember", "x", "--expires-at", "7d"), "--ttl")
    # registry-declared spellings next to the CLI's: seconds, an int choice, --tags
    noted = remember(
        houkai,
        "Do not deploy on Fridays",
        "--ttl-seconds",
        "3600",
        "--polarity",
        "-1",
        "--tags",
        "deploy",
    )
    shown = as_json(houkai("show", noted, "--json"))
    assert shown["polarity"] == -1 and shown["tags"] == ["deploy"]
    assert shown["expires_at"] == pytest.approx(time.time() + 3600, abs=120)


def test_prune_dry_run_keeps_everything(houkai):
    remember(houkai, "Barely important", "--importance", "0.01")
    remember(houkai, "Very important", "--importance", "0.99")
    preview = as_json(houkai("prune", "--min-score", "0.5", "--json"))
    assert preview["dry_run"] and preview["count"] == 1 and preview["applied"] == 0
    assert len(as_json(houkai("list", "--json"))) == 2
    applied = as_json(houkai("prune", "--min-score", "0.5", "--apply", "--yes", "--json"))
    assert applied["applied"] == 1
    assert [m["text"] for m in as_json(houkai("list", "--json"))] == ["Very important"]


def test_reflect_dry_run_writes_nothing(houkai):
    for text in (
        "Debugged the login timeout bug today",
        "Debugged the login timeout bug again today",
        "Baked sourdough bread",
    ):
        remember(houkai, text, "--type", "episodic")
    plan = as_json(houkai("reflect", "--threshold", "0.8", "--json"))
    assert plan["dry_run"] and plan["count"] == 1
    assert len(as_json(houkai("list", "--json"))) == 3
    assert_one_error_line(houkai("reflect", "--summarizer", "nosuch:model"), "nosuch")


def test_export_info_import_round_trip(houkai, tmp_path):
    a = remember(houkai, "Exported memory one", "-g", "x")
    remember(houkai, "Exported memory two")
    archive = tmp_path / "dump.ahkai"
    exported = as_json(houkai("export", str(archive), "--json"))
    assert exported["count"] == 2 and archive.is_file()
    info = as_json(houkai("info", str(archive), "--json"))
    assert info["memories"] == 2 and info["format"] == "ai-houkai/export"

    other = f"cli-imp-{uuid.uuid4().hex[:8]}"
    houkai.created.append(other)
    dry = as_json(houkai("-c", other, "import", str(archive), "--dry-run", "--json"))
    assert dry["imported"] == 2
    assert as_json(houkai("-c", other, "list", "--json")) == []
    done = as_json(houkai("-c", other, "import", str(archive), "--yes", "--json"))
    assert done["imported"] == 2
    hits = as_json(houkai("-c", other, "recall", "memory one", "--k", "1", "--json"))
    assert hits[0]["id"] == a and hits[0]["tags"] == ["x"]


def test_stats_and_health(houkai):
    remember(houkai, "Stat me", "-g", "s", "--type", "episodic")
    data = as_json(houkai("stats", "--health", "--json"))
    assert data["health"]["active"] == 1
    assert sum(data["health"]["decay_histogram"].values()) == 1
    assert "0.0–0.2" in data["health"]["decay_histogram"]  # en dash, as stats() and the seed
    assert "health" not in as_json(houkai("stats", "--json"))  # only with --health
    tsv = ok(houkai("stats")).stdout
    assert all("\t" in line for line in tsv.splitlines())


def test_journal_tail_show_undo(houkai):
    memory_id = remember(houkai, "Journaled then forgotten")
    ok(houkai("forget", memory_id, "--yes"))
    entries = as_json(houkai("journal", "tail", "-n", "5", "--json"))
    assert [e["op"] for e in entries[:2]] == ["forget", "remember"]
    forget_entry = entries[0]["entry_id"]
    full = as_json(houkai("journal", "show", forget_entry, "--json"))
    assert full["before"]["text"] == "Journaled then forgotten"
    ok(houkai("journal", "undo", forget_entry, "--yes"))
    assert as_json(houkai("show", memory_id, "--json"))["text"] == "Journaled then forgotten"
    # --memory-id (the registry's parameter): undo the newest change to that memory
    ok(houkai("edit", memory_id, "--text", "Edited afterwards"))
    undone = as_json(houkai("journal", "undo", "--memory-id", memory_id, "--yes", "--json"))
    assert undone["ok"] and undone["op"] == "edit"
    assert as_json(houkai("show", memory_id, "--json"))["text"] == "Journaled then forgotten"
    # neither: the collection's newest change an undo has not reversed yet, as REST and
    # MCP undo; undo after undo walks back (the edit and the forget are undone already)
    undone = as_json(houkai("journal", "undo", "--yes", "--json"))
    assert (undone["op"], undone["id"]) == ("remember", memory_id)
    assert_one_error_line(houkai("show", memory_id), "no memory")
    assert_one_error_line(houkai("journal", "show", "12-0"), "no journal entry")
    assert_one_error_line(houkai("journal", "show", "yesterday"), "ENTRY")


def test_collections_create_copy_list_delete(houkai, settings):
    a = remember(houkai, "Copied memory with a link")
    b = remember(houkai, "Link target")
    ok(houkai("link", a, b))
    target = f"cli-copy-{uuid.uuid4().hex[:8]}"
    houkai.created.append(target)
    copied = as_json(houkai("collections", "copy", houkai.collection, target, "--json"))
    assert copied["copied"] == 2
    names = {c["name"]: c for c in as_json(houkai("collections", "list", "--json"))}
    assert names[target]["count"] == 2 and names[houkai.collection]["active"]
    hits = as_json(houkai("-c", target, "recall", "copied link", "--k", "1", "--json"))
    assert hits[0]["id"] == a
    near = as_json(houkai("-c", target, "neighbors", b, "--direction", "in", "--json"))
    assert [n["id"] for n in near] == [a]

    created = f"cli-new-{uuid.uuid4().hex[:8]}"
    houkai.created.append(created)
    ok(houkai("collections", "create", created))
    assert_one_error_line(houkai("collections", "create", created), "already exists")
    ok(houkai("collections", "delete", target, "--yes"))
    names = {c["name"] for c in as_json(houkai("collections", "list", "--json"))}
    assert target not in names and created in names
    assert_one_error_line(houkai("collections", "delete", "no-such-coll", "--yes"), "no collection")


def test_collections_migrate_brings_old_statistics_up_to_date(houkai, settings):
    """The one-off pass for a collection an earlier release wrote: with the collection's
    own vector type only the statistics change, and the output says what it found."""
    from houkai.db.connection import connect
    from houkai.db.keys import Keys
    from houkai.store.lexstats import FOLLOWS_FIELD

    remember(houkai, "Deploys go out on Tuesdays")
    client = connect(settings.redis_url, None)
    stats = Keys(settings.key_prefix, houkai.collection).lexstats
    client.hdel(stats, FOLLOWS_FIELD)  # as a release before the flag left it
    vtype = settings.vector_type.upper()
    out = ok(houkai("collections", "migrate", houkai.collection, "--vector-type", vtype, "--yes"))
    assert f"already holds {vtype} vectors" in out.stdout
    said = (
        "0 memories given stems, 0 recounted (name marks, acronyms' plurals), "
        "0 new update links; no memory"
    )
    assert f"{said} follows another" in out.stdout
    assert client.hget(stats, FOLLOWS_FIELD) == b"0"


def test_config_show_and_path(houkai, settings):
    shown = as_json(houkai("config", "show", "--json"))
    assert shown["key_prefix"] == {"value": settings.key_prefix, "source": "env HOUKAI_KEY_PREFIX"}
    assert shown["hnsw_m"]["source"] == "default"
    flagged = as_json(houkai("-c", "flagged", "config", "show", "collection", "--json"))
    assert flagged == {"collection": {"value": "flagged", "source": "flag"}}
    path = ok(houkai("config", "path")).stdout.strip()
    assert path.endswith("absent.toml")
    assert_one_error_line(houkai("config", "show", "nope"), "nope")


def test_config_synonyms_checks_a_file_as_recall_reads_it(houkai, tmp_path):
    built_in = as_json(houkai("config", "synonyms", "--json"))
    assert built_in["path"] == "" and built_in["groups"] == built_in["built_in_groups"] > 0
    good = tmp_path / "ours.txt"
    good.write_text("k8s kubernetes\nhpa = horizontal pod autoscaler\n", encoding="utf-8")
    read = as_json(
        houkai(
            "config", "synonyms", str(good), "-q", "Does the pod autoscaler scale on CPU?", "--json"
        )
    )
    assert read["groups"] == built_in["groups"] + 1
    assert read["abbreviations"] == built_in["abbreviations"] + 1
    assert read["related"] == {"pod": ["hpa"], "autoscaler": ["hpa"]}
    said = ok(houkai("config", "synonyms", "-q", "how big should my pull requests be?")).stdout
    assert "pull: pr" in said and "requests: pr" in said
    bad = tmp_path / "bad.txt"
    bad.write_text("k8s kubernetes\nhpa = autoscaler\n", encoding="utf-8")
    assert_one_error_line(houkai("config", "synonyms", str(bad)), "bad.txt, line 2", "two words")
    assert_one_error_line(houkai("config", "synonyms", str(tmp_path / "no.txt")), "cannot read")
    assert_one_error_line(houkai("config", "synonyms", str(tmp_path)), "is a directory")
    assert_one_error_line(houkai("config", "synonyms", ""), "empty path")


def test_doctor_reports_ready(houkai):
    report = as_json(houkai("doctor", "--json"))
    assert report["ok"] is True
    assert {c["name"] for c in report["checks"]} >= {
        "config",
        "redis",
        "store",
        "embedder",
        "embed_dim",
    }
    bad = houkai("--redis-url", "redis://127.0.0.1:1/0", "doctor", "--json")
    assert bad.exit_code == 1 and json.loads(bad.stdout)["ok"] is False


def test_backup_of_an_external_server_explains(houkai):
    data = as_json(houkai("backup", "--json"))
    assert data["embedded"] is False and data["server_dir"]
    assert len(data.get("nodes", [data])) == (3 if CLUSTER_MODE else 1)  # each master saved


# --------------------------------------------------------------------------- output
def test_tsv_when_piped_and_table_on_request(houkai):
    memory_id = remember(houkai, "Tab\tseparated\nand multi-line", "-g", "a", "-g", "b")
    lines = ok(houkai("list")).stdout.splitlines()
    assert lines[0].split("\t") == ["id", "type", "importance", "tags", "created_at", "text"]
    row = lines[1].split("\t")
    assert row[0] == memory_id and row[3] == "a,b" and row[5] == "Tab separated and multi-line"

    table = ok(houkai("--format", "table", "list")).stdout
    assert memory_id[:8] in table and memory_id not in table and "TEXT" in table


def test_id_prefixes(houkai, settings):
    store = store_for(settings, houkai.collection)
    vector = store.encode(["prefix test"])
    twins = []
    for suffix in ("1111", "2222"):
        m = Memory(
            id=f"abcd{suffix}-0000-4000-8000-000000000000",
            text=f"twin {suffix}",
            collection=store.collection_name,
        )
        store.write([m], np.asarray(vector))
        twins.append(m.id)
    assert as_json(houkai("show", "abcd1111", "--json"))["id"] == twins[0]
    assert_one_error_line(houkai("show", "abcd"), "ambiguous", "abcd1111", "abcd2222")
    assert_one_error_line(houkai("show", "abc"), "at least 4")
    assert_one_error_line(houkai("show", "ffff0000"), "no memory")
    assert_one_error_line(houkai("show", "ab*d"), "no memory")


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "args, needle",
    [
        (("remember", "x", "--type", "nonsense"), "--type"),
        (("recall", "x", "--mode", "fuzzy"), "--mode"),
        (("remember", "x", "--importance", "abc"), "--importance"),
        (("remember", "x", "--importance", "1.5"), "--importance"),
        (("recall", "x", "--k", "many"), "--k"),
        (("recall", "x", "--since", "last tuesday"), "since"),
        (("list", "--since", "2026-13-45"), "since"),  # the registry's words, as REST
        (("import", "/definitely/not/here.ahkai"), "does not exist"),
        (("info", "/definitely/not/here.ahkai"), "does not exist"),
        (("show", "deadbeef-0000-4000-8000-000000000000"), "no memory"),
        (("nosuchcommand",), "nosuchcommand"),
        (("remember", "   "), "text"),  # the registry words it (one message for all doors)
        (("--collection", "bad name!", "list"), "collection"),
    ],
)
def test_errors_are_one_line(houkai, args, needle):
    assert_one_error_line(houkai(*args), needle)


def test_invalid_archive_is_one_line(houkai, tmp_path):
    junk = tmp_path / "junk.ahkai"
    junk.write_text("not gzip at all")
    assert_one_error_line(houkai("info", str(junk)))
    assert_one_error_line(houkai("import", str(junk), "--yes"))


def test_destructive_commands_refuse_without_yes(houkai, tmp_path):
    memory_id = remember(
        houkai, "Please do not delete me", "--importance", "0.01", "--type", "episodic"
    )
    remember(houkai, "Please do not delete me either", "--importance", "0.01", "--type", "episodic")
    remember(houkai, "Expired but still here", "--expires-at", "1000")
    archive = tmp_path / "a.ahkai"
    ok(houkai("export", str(archive)))
    refused = [
        ("forget", memory_id),
        ("nuke",),
        ("prune", "--apply", "--min-score", "0.9"),
        ("purge", "--apply"),
        ("reflect", "--apply", "--consolidate", "hard", "--threshold", "0.8"),
        ("import", str(archive)),
    ]
    for args in refused:
        assert_one_error_line(houkai(*args), "--yes")
    # the active collection is refused outright, as in the seed
    assert_one_error_line(houkai("collections", "delete", houkai.collection, "--yes"), "active")
    # a piped answer is read as the confirmation; "n" declines (exit 0), nothing else is one
    declined = ok(houkai("forget", memory_id, input="n\n"))
    assert "Aborted." in declined.stderr
    assert_one_error_line(houkai("nuke", input="maybe\n"), "--yes")
    listed = as_json(houkai("list", "--include-expired", "--json"))
    assert len(listed) == 3
    assert not [m for m in listed if "reflection" in m["tags"]]


def test_help_and_bare_group():
    runner = CliRunner()
    result = runner.invoke(cli, ["--help"])
    assert result.exit_code == 0 and "remember" in result.stdout
    result = runner.invoke(cli, ["journal"])
    assert result.exit_code == 0 and "tail" in result.stdout


# --------------------------------------------------------------------------- timeparse
def test_parse_timestamp_forms():
    assert parse_timestamp(None) is None and parse_timestamp("  ") is None
    assert parse_timestamp(1700000000) == 1700000000.0
    assert parse_timestamp("1700000000.5") == 1700000000.5
    assert parse_timestamp("2026-01-31") == parse_timestamp("2026-01-31T00:00:00Z")
    assert parse_timestamp("2026-01-31T02:00:00+02:00") == parse_timestamp("2026-01-31")
    assert parse_timestamp("7d", now=1_000_000.0) == 1_000_000.0 - 7 * 86400
    assert parse_timestamp("24h", now=100_000.0) == 100_000.0 - 86400
    for bad in ("yesterday", "7 days", True, "nan", float("inf")):
        with pytest.raises(ValueError):
            parse_timestamp(bad)


def test_on_conflict_raise_refuses_in_one_line(houkai):
    remember(houkai, "The build server is called jenkins-01")
    result = houkai("remember", "The build server is called jenkins-01", "--on-conflict", "raise")
    assert_one_error_line(result, "not stored", "duplicate")
    assert len(as_json(houkai("list", "--json"))) == 1


def test_history_state_at_get_at_metrics(houkai):
    memory_id = remember(houkai, "Version one of the fact")
    time.sleep(0.01)
    between = time.time()
    time.sleep(0.01)
    ok(houkai("edit", memory_id, "--text", "Version two of the fact"))
    timeline = as_json(houkai("history", memory_id[:8], "--json"))
    assert [e["op"] for e in timeline] == ["remember", "edit"]
    then = as_json(houkai("get-at", memory_id, repr(between), "--json"))
    assert then["text"] == "Version one of the fact"
    state = as_json(houkai("state-at", repr(between), "--json"))  # REST's shape
    assert state["count"] == 1 and state["ts"] == pytest.approx(between)
    assert [m["text"] for m in state["memories"]] == ["Version one of the fact"]
    assert_one_error_line(houkai("get-at", memory_id, "1000"), "did not exist")
    counters = as_json(houkai("metrics", "--json"))
    assert isinstance(counters, dict) and counters


@single_node_only("copies the embedded single-node server's own files")
def test_backup_of_the_embedded_server(houkai, settings, tmp_path):
    import os

    import redis

    from houkai.db import server as redis_server

    if os.environ.get("HOUKAI_TEST_REDIS_URL"):
        pytest.skip("the test server is external")
    client = redis.Redis.from_url(settings.redis_url)
    data_dir = client.config_get("dir")["dir"]
    client.close()
    assert redis_server.status(data_dir) is not None
    result = as_json(
        houkai(
            "--data-dir", data_dir, "backup", "--dest", str(tmp_path / "bk"), "--json", REDIS_URL=""
        )
    )
    target = tmp_path / "bk" / os.path.basename(result["path"])
    assert result["embedded"] is True and target.is_dir()
    names = {p.name for p in target.iterdir()}
    assert "dump.rdb" in names and names & {"appendonlydir", "appendonly.aof"}


def test_table_format_renders_every_read_command(houkai):
    a = remember(houkai, "Table rendering check about caching", "-g", "t1", "--type", "episodic")
    b = remember(houkai, "Another caching note for the table", "--ttl", "1d")
    ok(houkai("link", a, b))
    commands = [
        ("show", a),
        ("recall", "caching", "--explain", "--mode", "hybrid"),
        ("list",),
        ("neighbors", a),
        ("graph", a),
        ("conflicts",),
        ("stats", "--health"),
        ("doctor",),
        ("journal", "tail"),
        ("journal", "show", as_json(houkai("journal", "tail", "--json"))[0]["entry_id"]),
        ("collections", "list"),
        ("config", "show"),
        ("metrics",),
        ("history", a),
        ("purge",),
        ("prune", "--min-score", "0.9"),
        ("reflect", "--threshold", "0.5"),
    ]
    for args in commands:
        result = ok(houkai("--format", "table", *args))
        assert "Traceback" not in result.output
    shown = ok(houkai("--format", "table", "show", a)).stdout
    assert a in shown and "t1" in shown


def test_worker_gives_each_task_slot_its_own_encode_stream(houkai, monkeypatch) -> None:
    from houkai.workers import app as app_module

    from houkai.domain.config import get_settings

    seen: list[tuple[int, list[str], int]] = []
    niceness: list[int] = []  # never renice the test process: record what the worker asks
    monkeypatch.setattr(app_module, "lower_priority", niceness.append)
    monkeypatch.setattr(
        app_module.app,
        "worker_main",
        lambda argv: seen.append(
            (get_settings().embed_streams, argv, get_settings().embed_threads)
        ),
    )
    from houkai.engines.embeddings import cpu_count

    ok(houkai("worker", "-Q", "embed", "--concurrency", "3"))
    streams, argv, _threads = seen[-1]
    assert streams == min(3, cpu_count()) and argv[argv.index("--concurrency") + 1] == "3"
    ok(houkai("worker", "--concurrency", "1"))
    assert seen[-1][0] == 1
    ok(houkai("worker", "--pool", "solo", "--concurrency", "1"))
    assert seen[-1][0] == 0  # solo: one encode at a time, torch's threads (auto → 1)
    ok(houkai("worker", "--concurrency", "2", HOUKAI_EMBED_STREAMS="1"))
    assert seen[-1][0] == 1  # configured explicitly: kept
    ok(houkai("worker", "--pool", "prefork", "--concurrency", "2"))
    assert seen[-1][2] == max(1, cpu_count() // 2)  # one model per child: share the cores
    result = houkai("worker", "--concurrency", "0")
    assert result.exit_code == 1 and "Error" in result.output and "concurrency" in result.output
    assert set(niceness) == {10}  # worker_nice's default, asked for by every start
    ok(houkai("worker", HOUKAI_WORKER_NICE="0"))
    assert niceness[-1] == 0


def test_worker_refuses_a_bad_worker_nice(houkai, monkeypatch) -> None:
    from houkai.workers import app as app_module

    started: list[list[str]] = []
    monkeypatch.setattr(app_module.app, "worker_main", started.append)
    result = houkai("worker", HOUKAI_WORKER_NICE="25")
    assert result.exit_code == 1 and "Error: worker_nice must be 0-19" in result.output
    assert not started


# --------------------------------------------------------------------------- seed compatibility
def test_seed_short_flags_and_stdin(houkai):
    mid = remember(houkai, "Deploys go through make release", "-t", "procedural", "-g", "ops")
    listed = as_json(houkai("list", "-t", "procedural", "-g", "ops", "-f", "json"))
    assert [m["id"] for m in listed] == [mid] and listed[0]["type"] == "procedural"
    assert as_json(houkai("list", "-g", "procedural", "-f", "json")) == []  # -g is the tag
    piped = ok(houkai("remember", "--stdin", input="Memory from stdin\n")).stdout.strip()
    assert as_json(houkai("show", piped, "--json"))["text"] == "Memory from stdin"
    assert houkai("remember", "both", "--stdin", input="x").exit_code == 1
    hits = as_json(
        houkai("-C", houkai.collection, "recall", "release", "-t", "procedural", "-f", "json")
    )
    assert hits and hits[0]["id"] == mid
    empty = ok(houkai("list", "-g", "nothing-here"))
    assert "No memories found." in empty.stderr
    assert "No memories found." in ok(houkai("list", "-g", "nothing-here", "--json")).stderr
    assert_one_error_line(houkai("recall", "x", "--mode", "hybird"), "mode must be one of")


def test_ingest_follows_the_seed(houkai, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text(
        "## Deploy\n\nAlways deploy with make release, never by hand.\n\nok\n\n"
        "The staging box is at 10.0.0.7 and runs Debian.\n"
    )
    dry = ok(houkai("ingest", str(notes), "--dry-run"))
    assert "2 chunk(s) from 1 input(s)." in dry.stdout and "Dry-run" in dry.stdout
    # every chunk whole, not only its first line (the heading): issue #26
    assert (
        "## Deploy\n" in dry.stdout
        and "Always deploy with make release, never by hand." in dry.stdout
    )
    assert as_json(houkai("list", "--json")) == []
    done = ok(houkai("ingest", str(notes), "-g", "ops", "--yes"))
    assert "Stored 2 memories." in done.stderr
    listed = as_json(houkai("list", "--json"))
    assert {m["source"] for m in listed} == {"ingest:notes.md"}
    assert all(m["type"] == "episodic" and m["tags"] == ["ops"] for m in listed)
    ok(
        houkai(
            "ingest", "-i", "0.9", "-t", "semantic", input="A paragraph that arrives on stdin.\n"
        )
    )
    piped = [m for m in as_json(houkai("list", "--json")) if m["source"] == "ingest:stdin"]
    assert len(piped) == 1 and piped[0]["importance"] == 0.9 and piped[0]["type"] == "semantic"
    packed = ok(houkai("ingest", str(notes), "--chunking", "pack", "--dry-run")).stdout
    assert "1 chunk(s)" in packed


def test_ingest_takes_the_operations_parameters(houkai):
    """ingest is the registry's operation: --documents (JSON), --jsonl, the chunk defaults."""
    doc = json.dumps({"text": "Documents arrive as JSON objects.", "tags": ["doc"]})
    out = as_json(houkai("ingest", "--documents", doc, "-s", "api", "-i", "0.8", "--json"))
    assert out["total"] == out["done"] == 1
    stored = as_json(houkai("list", "--json"))[0]
    assert stored["tags"] == ["doc"] and stored["source"] == "api"
    assert stored["importance"] == 0.8 and stored["type"] == "episodic"
    lines = '{"text": "First line of JSONL input."}\n{"text": "Second line of JSONL input."}\n'
    assert as_json(houkai("ingest", "--jsonl", "--json", input=lines))["done"] == 2
    assert_one_error_line(houkai("ingest", "--documents", "{not json"), "JSON")
    assert_one_error_line(houkai("ingest", "--documents", '{"txt": "typo"}'), "documents")


def test_conflicts_resolve_interactively(houkai):
    for text in (
        "The database uses Postgres for storage.",
        "Our primary database is Postgres.",
        "We run Postgres as the database backend.",
    ):
        remember(houkai, text)
    result = ok(houkai("conflicts", "-T", "0.3", "--resolve", "interactive", input="d\ns\ns\n"))
    assert "Deleted A." in result.stdout
    assert "already resolved" in result.stdout or "superseded" in result.stdout
    assert len(as_json(houkai("list", "--json"))) < 3


def test_interactive_answers_that_run_out_say_what_was_applied(houkai):
    for text in (
        "The cache server is Redis 7 on port 6379.",
        "Our cache server runs Redis 7 on port 6379.",
        "The cache server listens on port 6379 (Redis 7).",
    ):
        remember(houkai, text)
    result = houkai("conflicts", "-T", "0.3", "--resolve", "interactive", input="d\n")
    assert_one_error_line(result, "of 3: the 1 change(s) answered before it are applied")
    capped = ok(houkai("conflicts", "-T", "0.3", "--limit", "1"))
    assert capped.stderr == "Note: the first 1 pairs (--limit); there may be more.\n"
    assert "Error: stopped at pair " in result.stderr
    assert len(as_json(houkai("list", "--json"))) == 2


# ------------------------------------------------------------ one operation, three doors
@pytest.fixture()
def doors(houkai, settings):
    """The REST app and the MCP tool caller on the CLI fixture's collection (all in-process)."""
    from houkai.api import mcp_server
    from houkai.api.rest import create_app

    from houkai.app.service import MemoryService

    scoped = settings.replace(collection=houkai.collection, pipeline_mode="inline")
    client = create_app(scoped, MemoryService(scoped, actor="http")).test_client()
    mcp_server.set_service(MemoryService(scoped, actor="mcp"))

    def mcp(name: str, arguments: dict) -> str:
        """What an MCP client reads: the tool's text content (see mcp_server.on_call_tool)."""
        try:
            data = mcp_server.to_jsonable(mcp_server.call_tool(name, arguments))
        except Exception as exc:
            return f"Error: {mcp_server.error_message(exc)}"
        return json.dumps(data, ensure_ascii=False)

    try:
        yield client, mcp
    finally:
        mcp_server.set_service(None)


def cli_json(result: Result) -> bytes:
    out = ok(result).stdout_bytes
    assert out.endswith(b"\n") and out.count(b"\n") == 1, out  # one JSON line, like REST
    return out[:-1]


def test_recall_list_pack_give_the_same_json_through_cli_rest_and_mcp(houkai, doors):
    """Issue 11: the CLI door answers with the service's serializer, byte for byte."""
    rest, mcp = doors
    remember(houkai, "The staging database runs Postgres 16", "-g", "db", "--ttl", "7d")
    remember(houkai, "Deploys go out every Tuesday", "-t", "procedural")

    listed = cli_json(houkai("list", "--json"))
    assert b'"source": null' in listed and b'"superseded_by": null' in listed  # not "" / 0.0
    assert rest.get("/memories").data == b'{"memories": ' + listed + b"}\n"
    assert mcp("list_recent", {}).encode() == listed

    query = "which database do we run"
    recalled = cli_json(houkai("recall", query, "--no-touch", "--json"))
    body = rest.post("/recall", json={"query": query, "touch": False}).data
    assert body == b'{"results": ' + recalled + b"}\n"
    assert mcp("recall", {"query": query, "touch": False}).encode() == recalled

    # pack bumps access tracking of what it ranks, so only those two values may differ
    def untouched(raw: bytes) -> bytes:
        return re.sub(rb'"(access_count|last_accessed)": [0-9.e+]+', rb'"\1": _', raw)

    packed = cli_json(houkai("pack", query, "--mode", "semantic", "--json"))
    assert json.loads(packed)["compressed_groups"] == []  # REST's list, not a count
    body = rest.post("/recall_pack", json={"query": query, "mode": "semantic"}).data
    assert untouched(body) == untouched(packed) + b"\n"
    assert untouched(mcp("recall_pack", {"query": query, "mode": "semantic"}).encode()) == (
        untouched(packed)
    )


def test_a_number_comes_back_as_typed_through_every_door(houkai, doors):
    """ADR 0117, 0118: the index holds one form for a number written several ways."""
    rest, mcp = doors
    for n in range(130, 138):
        remember(houkai, f"Vendor hotline +1 (415) 555-0{n}, ask for the billing desk")
    remember(houkai, "Dentist appointment at 14:30 on Friday")
    remember(houkai, "Team retro at 15:30 on Friday")
    for month in range(1, 7):
        remember(houkai, f"Invoice batch closed on 14.{month:02d}.2026")
    asked_as = (("4155550134", "555-0134"), ("2:30pm", "14:30"), ("invoice of March 14", "14.03"))
    for query, wanted in asked_as:
        hits = as_json(houkai("recall", query, "--k", "1", "--mode", "hybrid", "--json"))
        assert wanted in hits[0]["text"], (query, hits)
        asked = {"query": query, "k": 1, "mode": "hybrid"}
        assert rest.post("/recall", json=asked).get_json()["results"][0]["id"] == hits[0]["id"]
        assert json.loads(mcp("recall", asked))[0]["id"] == hits[0]["id"]


def test_unknown_collection_and_empty_query_are_the_rest_errors(houkai, doors):
    rest, mcp = doors
    remember(houkai, "Something to find")
    missing = f"cli-none-{uuid.uuid4().hex[:8]}"
    houkai.created.append(missing)  # dropped afterwards should the read create it
    line = assert_one_error_line(houkai("-c", missing, "recall", "foo"), missing, "collection")
    response = rest.post(f"/c/{missing}/recall", json={"query": "foo"})
    assert response.status_code == 404
    assert line == f"Error: {response.get_json()['error']}"
    assert mcp("recall", {"query": "foo", "collection": missing}) == line
    for args in (("list",), ("show", "abcd1234"), ("stats",), ("journal", "tail")):
        assert_one_error_line(houkai("-c", missing, *args), missing)
    names = {c["name"] for c in as_json(houkai("collections", "list", "--json"))}
    assert missing not in names  # reading never created it

    line = assert_one_error_line(houkai("recall", ""), "query")
    assert mcp("recall", {"query": ""}) == line
    response = rest.post("/recall", json={"query": ""})
    assert response.status_code == 400
    assert line == f"Error: {response.get_json()['error']}"

    # a write creates the collection, as POST /c/<name>/memories does
    ok(houkai("-c", missing, "remember", "First memory of a new collection"))
    assert [m["text"] for m in as_json(houkai("-c", missing, "list", "--json"))] == [
        "First memory of a new collection"
    ]


@pytest.mark.parametrize(
    "command, operation",
    [
        ("recall", "recall"),
        ("pack", "recall_pack"),
        ("auto-context", "auto_context"),
        ("list", "list_recent"),
        ("remember", "remember"),
        ("show", "get"),
        ("link", "link"),
        ("unlink", "unlink"),
        ("neighbors", "neighbors"),
        ("supersede", "supersede"),
        ("restore", "restore"),
        ("history", "history"),
        ("state-at", "state_at"),
        ("get-at", "get_at"),
        ("metrics", "metrics"),
        ("journal tail", "journal_tail"),
        ("edit", "edit"),
        ("export", "export"),
        ("import", "import"),
        ("conflicts", "find_conflicts"),
        ("jobs list", "jobs"),
        ("jobs show", "job"),
        ("graph", "subgraph"),
        ("stats", "stats"),
        ("journal undo", "undo"),
        # and every operation with a CLI binding, under the command it names
        *[(o.cli.command, o.name) for o in OPERATIONS if o.cli is not None],
    ],
)
def test_operation_commands_take_every_declared_parameter(command, operation):
    """The options come from the registry: a parameter added there is a CLI option."""
    from houkai.app.operations import get

    group, _, sub = command.rpartition(" ")
    found = cli.commands[group].commands[sub] if group else cli.commands[sub]  # type: ignore[attr-defined]
    params = {p.name: p for p in found.params}
    op = get(operation)
    assert set(op.fields()) <= set(params), set(op.fields()) - set(params)
    for name, flag in op.short.items():
        assert flag in params[name].opts  # short flags declared once, in the registry


def test_the_specific_stage_is_explained_and_switchable_in_every_door(houkai, doors):
    """ADR 0068: ``stages.specific`` in explain; ``stages`` without it turns it off."""
    rest, mcp = doors
    remember(houkai, "Tim finished The Name of the Wind by Patrick Rothfuss")
    remember(houkai, "Tim loves books, books are great")
    query = "What books has Tim read?"
    clock = str(int(time.time()) + 60)  # one clock for every door: recency is in the scores

    def stages(raw: bytes | str) -> list[dict]:
        return [hit["explain"]["stages"] for hit in json.loads(raw)]

    flags = ("--mode", "hybrid", "--explain", "--no-touch", "--json", "--as-of", clock)
    on = cli_json(houkai("recall", query, *flags))
    assert all("specific" in s["active"] and s["specific"] > 0 for s in stages(on))
    args = {"query": query, "mode": "hybrid", "explain": True, "touch": False, "as_of": int(clock)}
    assert rest.post("/recall", json=args).data == b'{"results": ' + on + b"}\n"
    assert mcp("recall", args).encode() == on

    off_args = {**args, "stages": "query,context,prf"}
    off = cli_json(houkai("recall", query, *flags, "--stages", "query,context,prf"))
    assert all("specific" not in s and "specific" not in s["active"] for s in stages(off))
    assert rest.post("/recall", json=off_args).data == b'{"results": ' + off + b"}\n"
    assert mcp("recall", off_args).encode() == off


def test_jobs_take_a_unique_id_prefix_of_four_characters(houkai, settings):
    """README: any id argument takes a full id or a unique prefix of at least 4 characters
    (issue #26: ``jobs show`` refused prefixes)."""
    from houkai import MemoryStore
    from houkai.pipeline.write import Pipeline

    pipeline = Pipeline(MemoryStore(collection=houkai.collection, settings=settings))
    for job_id in ("beef0001", "beef0002", "cafe0001"):
        pipeline.jobs_store.create(houkai.collection, "remember", 0, "ignore", job_id)
    assert as_json(houkai("jobs", "show", "cafe", "--json"))["id"] == "cafe0001"
    assert as_json(houkai("jobs", "show", "beef0002", "--json"))["id"] == "beef0002"
    assert "cafe0001" in ok(houkai("jobs", "cancel", "cafe0")).stdout
    assert as_json(houkai("jobs", "retry", "cafe", "--json"))["job_id"] == "cafe0001"
    assert_one_error_line(houkai("jobs", "show", "beef"), "ambiguous", "beef0001", "beef0002")
    assert_one_error_line(houkai("jobs", "show", "caf"), "at least 4 characters")
    assert_one_error_line(houkai("jobs", "show", "dead"), "no job")


def test_a_one_word_recall_credits_the_plural_on_a_fresh_collection(houkai):
    """Issue #26: `recall backup --mode hybrid` gave "Backups …" no keyword credit."""
    remember(houkai, "Backups run nightly at 2am to the S3 bucket")
    hits = as_json(houkai("recall", "backup", "--mode", "hybrid", "--explain", "--json"))
    assert hits[0]["text"].startswith("Backups") and hits[0]["explain"]["lexical"] > 0


def test_ingest_links_a_documents_chunks_not_independent_jsonl_records(houkai, tmp_path):
    """``follows`` joins what is one sequence: a document's chunks, JSONL records naming the
    same source (a conversation id); independent records stay apart (issue #26)."""
    notes = tmp_path / "notes.md"
    notes.write_text("First paragraph of the notes file.\n\nSecond paragraph of the notes file.\n")
    records = tmp_path / "facts.jsonl"
    lines = [
        {"text": "The office wifi password rotates monthly."},
        {"text": "Invoices are paid on the 5th."},
        {"text": "User: when is the standup?", "source": "chat-1"},
        {"text": "Assistant: every day at 9:30.", "source": "chat-1"},
        {"text": "User: where is the build log?", "source": "chat-2"},
    ]
    records.write_text("".join(json.dumps(line) + "\n" for line in lines))
    for path in (notes, records):
        ok(houkai("ingest", str(path), "--yes"))
    by_text = {m["text"]: m for m in as_json(houkai("list", "-n", "50", "--json"))}
    follows = {
        text: [by_id["text"] for link in m["links"] if link["rel"] == "follows"
               for by_id in by_text.values() if by_id["id"] == link["to"]]
        for text, m in by_text.items()
    }  # fmt: skip
    assert follows["Second paragraph of the notes file."] == ["First paragraph of the notes file."]
    assert follows["Assistant: every day at 9:30."] == ["User: when is the standup?"]
    for alone in (
        "The office wifi password rotates monthly.",
        "Invoices are paid on the 5th.",
        "User: when is the standup?",
        "User: where is the build log?",
    ):
        assert follows[alone] == [], alone


def test_recall_explain_piped_and_at_80_columns(houkai):
    """Issue #26: piped `recall --explain` dropped the explanation, and at 80 columns its
    table broke every "name=value" into fragments."""
    remember(houkai, "Backups run nightly at 2am to the S3 bucket")
    remember(houkai, "The cafeteria serves lunch at noon")
    piped = ok(houkai("recall", "backups at 2am", "--mode", "hybrid", "--explain")).stdout
    header, *rows = piped.splitlines()
    assert header.split("\t")[-1] == "explain" and len(rows) == 2
    explained = [json.loads(row.split("\t")[-1]) for row in rows]
    assert all(e["mode"] == "hybrid" and "cosine" in e and "stages" in e for e in explained)
    table = ok(
        houkai(
            "--format", "table", "recall", "backups at 2am", "--mode", "hybrid", "--explain",
            COLUMNS="80",
        )
    ).stdout  # fmt: skip
    lines = table.splitlines()
    assert max(len(line) for line in lines) <= 80, table
    assert lines[0].startswith("1. ") and "Backups run nightly at 2am to the S3 bucket" in table
    why = [line for line in lines if line.lstrip().startswith("why:")]
    assert len(why) == 2 and all(re.search(r"cosine=-?\d\.\d{3} lexical=\d\.\d{3}", w) for w in why)
    assert re.search(r"stages: .*specific=\+0\.\d{3}", table)
