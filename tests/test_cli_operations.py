"""The commands that became registry operations (ADR 0050) answer alike through the doors."""

# ruff: noqa: F811  (``houkai`` is test_cli's fixture, imported to be used here)

from __future__ import annotations

import time

from houkai.api.rest import create_app
from test_cli import as_json, houkai, ok, remember  # noqa: F401  (houkai is a fixture)

from houkai.app.service import MemoryService


def _rest(settings, collection: str, tokens: str | None = None):
    s = settings.replace(collection=collection, pipeline_mode="inline")
    return create_app(s, MemoryService(s, actor="http"), tokens=tokens).test_client()


def test_prune_answers_the_same_candidates_on_cli_and_rest(houkai, settings):
    low = remember(houkai, "Barely important", "--importance", "0.01")
    remember(houkai, "Very important", "--importance", "0.99")
    cli_preview = as_json(houkai("prune", "--min-score", "0.5", "--json"))
    client = _rest(settings, houkai.collection)
    r = client.post("/prune", json={"min_score": 0.5, "dry_run": True})
    assert r.status_code == 200, r.get_json()
    rest_preview = r.get_json()
    assert [m["id"] for m in rest_preview["memories"]] == [low]
    assert [m["id"] for m in cli_preview["memories"]] == [low]
    assert rest_preview["pruned"] == 0 and rest_preview["count"] == cli_preview["count"] == 1
    # bounds come from the one declaration: REST and the CLI refuse a negative score alike
    bad = client.post("/prune", json={"min_score": -1})
    assert bad.status_code == 400 and bad.get_json()["error"].startswith("min_score: must be >=")
    refused = houkai("prune", "--min-score", "-1")
    assert refused.exit_code == 1 and "min-score" in refused.stderr.replace("_", "-")


def test_prune_and_reflect_are_writes_for_tokens(houkai, settings):
    remember(houkai, "something to keep")
    client = _rest(settings, houkai.collection, tokens="admin-tok,read-tok:ro")
    for path in ("/prune", "/reflect"):
        r = client.post(path, json={"dry_run": True}, headers={"Authorization": "Bearer read-tok"})
        assert r.status_code == 403, (path, r.get_json())
    r = client.post(
        "/reflect", json={"dry_run": True}, headers={"Authorization": "Bearer admin-tok"}
    )
    assert r.status_code == 200 and r.get_json()["dry_run"] is True


def test_edit_ttl_and_clear_tags_come_from_the_binding(houkai):
    memory_id = remember(houkai, "A tagged note", "-g", "a", "-g", "b")
    before = time.time()
    edited = as_json(houkai("edit", memory_id, "--ttl", "1d", "--clear-tags", "--json"))
    memory = edited["memory"]
    assert memory["tags"] == []
    assert before + 86_000 < memory["expires_at"] < time.time() + 86_500
    clash = houkai("edit", memory_id, "--clear-tags", "-g", "x")
    assert clash.exit_code == 1 and "--clear-tags contradicts --tags" in clash.output
    both = houkai("edit", memory_id, "--ttl", "1d", "--expires-at", "0")
    assert both.exit_code == 1 and "pass at most one of --ttl and --expires-at" in both.output
    ok(houkai("edit", memory_id, "-g", "c"))


def test_only_an_admin_may_choose_reflects_summarizer_remotely(houkai, settings):
    """``summarizer`` picks which LLM provider receives memory text with the server's
    keys: a remote caller needs an admin token to set it (Operation.admin_params)."""
    remember(houkai, "something to reflect on")
    coll = houkai.collection
    client = _rest(settings, coll, tokens=f"admin-tok,team-tok:{coll}:rw")
    team = {"Authorization": "Bearer team-tok"}
    r = client.post(
        f"/c/{coll}/reflect", json={"dry_run": True, "summarizer": "openai:gpt-x"}, headers=team
    )
    assert r.status_code == 403, r.get_json()
    assert r.get_json()["error"] == (
        "reflect: summarizer may be set only with an admin token (all collections, read-write);"
        " leave it out to use the server's configured value"
    )
    r = client.post(f"/c/{coll}/reflect", json={"dry_run": True}, headers=team)
    assert r.status_code == 200, r.get_json()  # the configured summarizer
    admin = {"Authorization": "Bearer admin-tok"}
    r = client.post("/reflect", json={"dry_run": True, "summarizer": "extractive"}, headers=admin)
    assert r.status_code == 200, r.get_json()


def test_conflict_scan_since_is_incremental_in_every_door(houkai, settings):
    """``since`` scans only memories created since then, each against the whole collection."""
    old = remember(houkai, "The office wifi password is hunter2")
    cutoff = time.time()
    time.sleep(0.01)
    new = remember(houkai, "The office wifi password is hunter3")
    full = as_json(houkai("conflicts", "--threshold", "0.8", "--json"))
    assert {full[0]["a"]["id"], full[0]["b"]["id"]} == {old, new}
    cli = as_json(houkai("conflicts", "--threshold", "0.8", "--since", f"{cutoff:.3f}", "--json"))
    assert cli == full  # the new memory finds its older twin
    client = _rest(settings, houkai.collection)
    later = client.post("/conflicts", json={"threshold": 0.8, "since": time.time() + 60})
    assert later.status_code == 200 and later.get_json()["conflicts"] == []
    both = client.post("/conflicts", json={"memory_id": old, "since": cutoff})
    assert both.status_code == 400, both.get_json()
