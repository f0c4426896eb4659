"""``houkai bench suite`` and the agent-memory sets it runs (issue #29, ADR 0078)."""

from __future__ import annotations

import json
import uuid
import zipfile
from pathlib import Path

import pytest
from _childenv import bench_cli
from test_bench_locomo import SAMPLE

from houkai.bench import agentset_run, suite
from houkai.bench.agentsets import coding, personal, versions
from houkai.bench.agentsets.common import KINDS, SUITE_SETS
from houkai.recall.stages import default_names
from houkai.recall.statements import says_update


@pytest.mark.parametrize(
    "build", [coding.build, personal.build, lambda: personal.build(restate=True)]
)
def test_each_committed_set_is_what_its_generator_writes(build):
    """The JSON is the generator's output for its seed: nobody edits a set by hand."""
    built = build().document()
    committed = json.loads(agentset_run.path_of(built["name"]).read_text())
    assert committed == built
    ids = {m["id"] for m in committed["memories"]}
    assert 300 <= len(ids) <= 500 and 100 <= len(committed["queries"]) <= 200
    assert all(set(q["relevant"]) <= ids for q in committed["queries"])
    assert {q["kind"] for q in committed["queries"]} <= set(KINDS)
    assert {"current", "past", "distractor", "paraphrase", "keyword"} <= {
        q["kind"] for q in committed["queries"]
    }
    splits: dict[str, set[str]] = {}
    for q in committed["queries"]:
        splits.setdefault(q["topic"], set()).add(q["split"])
    assert all(len(s) == 1 for s in splits.values())  # a topic's questions stay together
    assert {s for v in splits.values() for s in v} == {"dev", "test"}
    linked = [m for m in committed["memories"] if m.get("supersedes")]
    assert linked and all(m["supersedes"] in ids for m in linked)


def test_the_versions_set_holds_six_versions_of_forty_settings():
    """Committed as generated; each changed setting is six memories of one topic, the
    newest asked for now and by keywords, the first for a chain without links."""
    built = versions.build().document()
    assert json.loads(agentset_run.path_of("versions").read_text()) == built
    by_topic: dict[str, list[dict]] = {}
    for m in built["memories"]:
        by_topic.setdefault(m["topic"], []).append(m)
    chains = {t: ms for t, ms in by_topic.items() if len(ms) > 1}
    assert len(chains) == versions.CHANGED
    assert all(len(ms) == versions.VERSIONS for ms in chains.values())
    linked = [t for t, ms in chains.items() if any("supersedes" in m for m in ms)]
    assert len(linked) == versions.CHANGED // 2
    for q in built["queries"]:
        ms = by_topic[q["topic"]]
        ages = sorted(ms, key=lambda m: m["days_ago"])
        want = {"current": ages[0], "keyword": ages[0], "past": ages[-1]}.get(q["kind"], ms[0])
        assert q["relevant"] == [want["id"]], q
        assert q["kind"] != "past" or q["topic"] not in linked


def test_the_restated_set_says_nothing_of_replacing():
    # its updates read as first statements ("Zoe's home is in Austin."): the shape an
    # extractor that states facts writes; the same people and slots as personal
    data = agentset_run.load("personal-restated")
    texts = {m["id"]: m["text"] for m in data["memories"]}
    answers = [texts[r] for q in data["queries"] if q["kind"] == "current" for r in q["relevant"]]
    assert len(answers) >= 20
    assert not [t for t in answers if says_update(t)]
    assert "personal-restated" in SUITE_SETS.split(",")


def test_suite_modes_toggle_each_stage_against_the_defaults():
    modes = suite.suite_modes(("query", "context", "current"))
    assert modes["plain"]["stages"] == ()
    assert modes["-current"]["stages"] == ("query", "context")
    assert modes["+prf"]["stages"] == ("query", "context", "current", "prf")
    assert "fitted" not in " ".join(modes) and modes["rrf"]["fusion"] == "rrf"
    with pytest.raises(ValueError, match="unknown mode"):
        suite.pick_modes(modes, "plain,-nothing")


def test_a_mode_may_name_its_stages():
    # what ADR 0106 measured: the defaults less every stage a test split marks
    modes = suite.suite_modes(("query", "context", "current"))
    picked = suite.pick_modes(modes, "plain,stages:current+synonyms,stages:")
    assert list(picked) == ["plain", "stages:current+synonyms", "stages:"]
    # the registry's order, whatever order the mode lists them in
    assert picked["stages:current+synonyms"] == {
        "mode": "hybrid",
        "stages": ("synonyms", "current"),
    }
    assert picked["stages:"]["stages"] == ()
    # "default" stands for the defaults, as in a recall's stage list
    both = suite.pick_modes(modes, "stages:default+overlap")["stages:default+overlap"]
    assert both["stages"] == (*default_names(), "overlap")
    with pytest.raises(ValueError, match=r"mode 'stages:current\+nothing': unknown recall stage"):
        suite.pick_modes(modes, "stages:current+nothing")


def _scored(n: int, defaults: float, off: float) -> dict:
    """A suite result of one set of *n* questions: the defaults' R@5 and one stage off."""
    modes = [
        {"mode": "defaults", "n": n, "recall@5": defaults, "mrr": 0.7},
        {"mode": "-current", "n": n, "recall@5": off, "mrr": 0.7},
    ]
    return {"sets": {"personal": {"questions": n, "modes": modes}}}


def test_a_stage_that_costs_exactly_one_question_holds_whatever_the_rounding():
    # 57 questions: one question is 0.01754; the scores are kept to four decimals, so
    # 0.9211 - 0.9035 = 0.0176 is still that one question
    (one,) = suite.verdicts(_scored(57, 0.9035, 0.9211))
    assert one["holds"] and one["delta_r5"] == pytest.approx(-0.0176)
    (two,) = suite.verdicts(_scored(57, 0.8860, 0.9211))  # two questions
    assert not two["holds"]
    assert " ✗ |" in suite.stage_effects(_scored(57, 0.8860, 0.9211))
    assert " ✗ |" not in suite.stage_effects(_scored(57, 0.9035, 0.9211))


def test_the_trades_name_where_each_setting_of_a_stage_costs():
    # -current scores above the defaults on one set and below them on the other: on, the
    # stage costs the first; off, the second (ADR 0106)
    result = {
        "sets": {
            name: {
                "questions": 57,
                "modes": [
                    {"mode": "defaults", "n": 57, "recall@5": 0.90, "mrr": 0.7},
                    {"mode": "-current", "n": 57, "recall@5": off, "mrr": 0.7},
                ],
            }
            for name, off in (("personal", 0.95), ("team", 0.85), ("coding", 0.90))
        }
    }
    table = suite.stage_effects(result)
    assert "| current | on | personal | team |" in table
    assert [v["gains"] for v in suite.verdicts(result)] == [False, True, False]


def test_per_kind_rows_show_plain_to_defaults_for_every_kind():
    def mode(name: str, r5: float) -> dict:
        kinds = {"current": {"n": 2, "recall@5": r5, "mrr": 0.75}}
        return {"mode": name, "n": 2, "recall@5": r5, "mrr": 0.75, "by_kind": kinds}

    result = {
        "sets": {"coding": {"questions": 2, "modes": [mode("plain", 0.5), mode("defaults", 1.0)]}}
    }
    table = suite.per_kind(result)
    assert "| coding | current (2) 0.50 → 1.00, 0.75 |" in table
    assert table in suite.readme_block({**result, "split": "test"})
    # a LongMemEval run scores its kinds by R@5 only
    for m in result["sets"]["coding"]["modes"]:
        del m["by_kind"]["current"]["mrr"]
    assert "| coding | current (2) 0.50 → 1.00 |" in suite.per_kind(result)


TINY_SET = {
    "name": "tiny",
    "as_of": "2026-06-01T12:00:00+00:00",
    "seed": 1,
    "rule": "test data",
    "memories": [
        {"id": "m1", "text": "Atlas runs on Postgres 14.", "days_ago": 200, "tags": []},
        {"id": "m2", "text": "Migrated Atlas to Postgres 16.", "days_ago": 20, "tags": []},
        {"id": "m3", "text": "Beacon runs on MySQL 8.", "days_ago": 90, "tags": []},
        {"id": "m4", "text": "ATL-42: login loop fixed.", "days_ago": 30, "tags": []},
        {
            "id": "m5",
            "text": "Beacon moved to MySQL 9.",
            "days_ago": 10,
            "tags": [],
            "supersedes": "m3",
        },
    ],
    "queries": [
        {
            "id": "q1",
            "text": "Which database does Atlas use?",
            "kind": "current",
            "relevant": ["m2"],
            "topic": "atlas:db",
            "split": "dev",
        },
        {
            "id": "q2",
            "text": "What was ATL-42?",
            "kind": "keyword",
            "relevant": ["m4"],
            "topic": "atl-42",
            "split": "dev",
        },
        {
            "id": "q3",
            "text": "Which database does Beacon use?",
            "kind": "current",
            "relevant": ["m5"],
            "topic": "beacon:db",
            "split": "test",
        },
    ],
}


@pytest.fixture()
def bench(settings, embedder, tmp_path):
    return bench_cli(
        settings,
        tmp_path,
        "bench",
        "suite",
        key_prefix=f"{settings.key_prefix}-{uuid.uuid4().hex[:6]}",
    )


def test_suite_runs_end_to_end_on_tiny_data(bench, tmp_path: Path):
    tiny = tmp_path / "tiny.json"
    tiny.write_text(json.dumps(TINY_SET))
    archive = tmp_path / "locomo_small.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("data/locomo/1.json", json.dumps(SAMPLE))
    out = tmp_path / "suite.json"
    result = bench(
        "--quick", "--sets", str(tiny), "--data", str(archive),
        "--modes", "plain,defaults,-current,rrf", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["split"] == "dev" and data["modes"] == ["plain", "defaults", "-current", "rrf"]
    tiny_modes = {m["mode"]: m for m in data["sets"]["tiny"]["modes"]}
    assert data["sets"]["tiny"]["questions"] == 2  # the dev split only
    assert tiny_modes["defaults"]["by_kind"]["keyword"]["recall@5"] == 1.0
    locomo = {m["mode"]: m for m in data["locomo"]["modes"]}
    assert locomo["defaults"]["questions"] == 3  # category 5 is asked too
    assert {"any@5", "any@10", "session@5", "session@10"} <= set(locomo["defaults"])
    assert "adversarial" in locomo["defaults"]["by_category"]
    assert any(v["stage"] == "current" and v["set"] == "tiny" for v in data["verdicts"])
    assert "current (on) on tiny" in result.output and "R@5" in result.output
    head = suite.summary(data).splitlines()
    tiny_row = next(line for line in head if line.startswith("| tiny dev (2 questions) |"))
    plain = tiny_modes["plain"]
    assert f"{plain['recall@5']:.3f} / {plain['mrr']:.3f}" in tiny_row
    assert any(line.startswith("| LoCoMo, categories 1–4 |") for line in head)
    assert "| stage | default | tiny | locomo |" in suite.readme_block(data)


def test_a_set_written_in_one_sitting_keeps_its_order_seconds_apart(bench, tmp_path: Path):
    coding_set = agentset_run.load("coding")
    sat = agentset_run.load("coding:sitting")
    assert sat["name"] == "coding-sitting" and len(sat["memories"]) == len(coding_set["memories"])
    order = lambda data: sorted(  # noqa: E731
        range(len(data["memories"])), key=lambda i: -data["memories"][i]["days_ago"]
    )
    assert order(sat) == order(coding_set)  # the same history, in the same order
    seconds = sorted(m["days_ago"] * 86_400 for m in sat["memories"])
    assert seconds[0] == pytest.approx(agentset_run.SITTING_STEP)
    assert seconds[-1] == pytest.approx(agentset_run.SITTING_STEP * len(seconds))
    tiny = tmp_path / "tiny.json"
    tiny.write_text(json.dumps(TINY_SET))
    out = tmp_path / "suite.json"
    result = bench(
        "--sets", f"{tiny}:sitting", "--no-locomo", "--modes", "defaults", "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    assert list(json.loads(out.read_text())["sets"]) == ["tiny-sitting"]


def test_a_set_asked_as_typed_keeps_its_memories_and_lowers_its_questions():
    typed = agentset_run.load("personal:typed")
    written = agentset_run.load("personal")
    assert typed["name"] == "personal-typed" and typed["memories"] == written["memories"]
    pairs = list(zip(written["queries"], typed["queries"], strict=True))
    assert all(t["text"] == q["text"].lower().rstrip("?").rstrip() for q, t in pairs)
    assert all({**t, "text": q["text"]} == q for q, t in pairs)  # kinds, splits, answers kept
    assert "Where does Mia work?" in {q["text"] for q, _ in pairs}
    assert "where does mia work" in {t["text"] for _, t in pairs}


def test_heldout_in_one_sitting_or_typed_is_a_clear_error(bench):
    for variant in ("sitting", "typed"):
        result = bench("--sets", f"coding,heldout:{variant}", "--no-locomo")
        assert result.exit_code == 1
        assert "Error: heldout is no agent-memory set" in result.output


def test_misses_are_refused_on_the_test_split(bench):
    result = bench("--split", "test", "--misses", "--no-locomo")
    assert result.exit_code == 1
    assert "Error: --misses reads the dev split only" in result.output


def test_a_missing_locomo_file_is_a_clear_error(bench, tmp_path: Path):
    result = bench("--data", str(tmp_path / "nope.zip"), "--sets", "coding")
    assert result.exit_code == 1 and "Error: no LoCoMo data at" in result.output


def test_longmemeval_reads_a_local_file_and_scores_sessions(settings, embedder, tmp_path: Path):
    from houkai.bench import longmemeval

    def turn(role: str, text: str) -> dict:
        return {"role": role, "content": text}

    item = {
        "question_id": "q1",
        "question_type": "single-session-user",
        "question": "Which city did I move to?",
        "answer": "Porto",
        "question_date": "2023/06/01 (Thu) 10:00",
        "haystack_session_ids": ["s1", "s2", "s3"],
        "haystack_dates": [
            "2023/05/01 (Mon) 09:00",
            "2023/05/10 (Wed) 09:00",
            "2023/05/20 (Sat) 09:00",
        ],
        "haystack_sessions": [
            [turn("user", "I love baking sourdough bread."), turn("assistant", "Nice hobby!")],
            [turn("user", "I just moved to Porto last week."), turn("assistant", "Welcome!")],
            [turn("user", "My cat is called Miso."), turn("assistant", "Cute name.")],
        ],
        "answer_session_ids": ["s2"],
    }
    abstained = {**item, "question_id": "q2_abs", "answer_session_ids": []}
    path = tmp_path / "lme.json"
    path.write_text(json.dumps([item, abstained]))
    result = longmemeval.run(path, {"defaults": {"mode": "hybrid"}}, settings=settings)
    (mode,) = result["modes"]
    assert result["questions"] == 1  # the abstention question has no answer session
    assert mode["recall@5"] == 1.0 and mode["any@5"] == 1.0
    assert mode["by_kind"]["single-session-user"]["n"] == 1
    assert longmemeval.session_scores(["s1", "s1", "s3", "s2"], {"s2"})[:2] == (1.0, 1.0)


def test_a_malformed_longmemeval_file_is_a_clear_error(bench, tmp_path: Path):
    path = tmp_path / "lme.json"
    path.write_text(json.dumps([{"question_id": "q1", "question": "?"}]))
    result = bench(
        "--no-locomo", "--sets", "heldout", "--modes", "plain", "--longmemeval", str(path)
    )
    assert result.exit_code == 1
    assert "Error:" in result.output and "lacks" in result.output


#: A set as a user might write it: numeric ids, no tags, no dates, no splits, its own kinds.
USER_SET = {
    "memories": [
        {"id": 1, "text": "Billing-api runs on Postgres 14."},
        {"id": 2, "text": "Migrated billing-api to Postgres 16 last weekend.", "supersedes": 1},
        {"id": 3, "text": "Ana prefers tea in the afternoon."},
        {"id": 4, "text": "The ledger worker reads from Kafka."},
    ],
    "queries": [
        {"text": "Which database does billing-api use?", "relevant": [2]},
        {"text": "What does Ana drink in the afternoon?", "relevant": ["3"], "kind": "preference"},
    ],
}


def test_a_users_own_set_runs_with_only_ids_texts_and_relevant(bench, tmp_path: Path):
    mine = tmp_path / "my agent.json"  # a name no collection may hold: it still runs
    mine.write_text(json.dumps(USER_SET))
    out = tmp_path / "suite.json"
    result = bench(
        "--sets", str(mine), "--no-locomo", "--split", "test", "--modes", "plain,defaults",
        "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    entry = json.loads(out.read_text())["sets"]["my agent"]
    assert entry["questions"] == 2 and entry["split"] == "all"  # no splits: asked whole
    assert "| my agent (2 questions) |" in suite.summary(json.loads(out.read_text()))
    defaults = {m["mode"]: m for m in entry["modes"]}["defaults"]
    assert list(defaults["by_kind"]) == ["general", "preference"]
    assert defaults["recall@5"] == 1.0  # the superseded Postgres 14 is hidden, 16 answers


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s["queries"][0].update(relevant=[9]), "names memories not in the set: [9]"),
        (lambda s: s["memories"][1].update(id=1), "memory id '1' is used twice"),
        (lambda s: s["memories"][2].pop("text"), "memory '3' needs a non-empty 'text'"),
        (lambda s: s["memories"][0].update(days_ago="old"), "'days_ago' must be a number"),
        (lambda s: s["queries"][1].update(split="dev"), "either every question has a 'split'"),
        (lambda s: s["memories"][1].update(supersedes=7), "supersedes '7', which is not in"),
        (lambda s: s.pop("queries"), "'queries' must be a non-empty list"),
        (lambda s: s["memories"][0].update(tags="ops"), "'tags' must be a list of strings"),
        (lambda s: s["memories"][0].update(tags=["a,b"]), "tags must not contain commas"),
        (lambda s: s["memories"][0].update(days_ago=float("nan")), "must be a number ≥ 0"),
        (lambda s: s["memories"][0].update(supersedes=1), "memory '1' supersedes itself"),
        (lambda s: s["memories"][0].update(supersedes=2), "in a loop of 'supersedes' links"),
        (lambda s: s["memories"][2].update(supersedes=1), "memory '1' is superseded twice"),
        (lambda s: s.update(name=["x"]), "'name' must be a non-empty string"),
    ],
)
def test_a_malformed_set_is_one_clear_error(bench, tmp_path: Path, change, message):
    broken = json.loads(json.dumps(USER_SET))
    change(broken)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    result = bench("--sets", str(path), "--no-locomo", "--modes", "plain")
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: agent-memory set") and message in result.output
    assert "Traceback" not in result.output


def test_a_set_file_that_is_not_json_is_a_clear_error(bench, tmp_path: Path):
    path = tmp_path / "notes.json"
    path.write_text("memories: none")
    result = bench("--sets", str(path), "--no-locomo", "--modes", "plain")
    assert result.exit_code == 1 and "is not JSON" in result.output


def test_every_set_file_is_checked_before_the_first_set_runs(bench, tmp_path: Path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(USER_SET))
    bad.write_text(json.dumps({**USER_SET, "queries": []}))
    out = tmp_path / "suite.json"
    result = bench("--sets", f"{good},{bad}", "--no-locomo", "--modes", "plain", "--out", str(out))
    assert result.exit_code == 1 and "'queries' must be a non-empty list" in result.output
    assert "good" not in result.output.split("Error:")[0]  # nothing ran before the error
    assert not out.exists()


def test_the_plot_draws_the_committed_suite(tmp_path, monkeypatch):
    """``--plot``: one panel per set and the stages' panel, from the JSON the suite wrote."""
    pytest.importorskip("matplotlib")
    from houkai.bench import suite_plot

    committed = Path(__file__).resolve().parent.parent / "docs" / "bench" / "suite.json"
    out = tmp_path / "suite.png"
    import matplotlib.pyplot as plt

    drawn = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig: (drawn.append(fig), close(fig)))
    result = json.loads(committed.read_text())
    suite_plot.plot(result, out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 50_000
    # the sets' key of the stages' panel sits in the spare cell, not over the bars
    axes = drawn[0].axes
    stages = next(ax for ax in axes if ax.get_title().startswith("Each stage"))
    keyed = [ax for ax in axes if ax.get_legend() is not None and not ax.axison]
    assert stages.get_legend() is None and len(keyed) == 1
    labels = [t.get_text() for t in keyed[0].get_legend().get_texts()]
    assert "engineer" in labels and "locomo" in labels


def test_a_mode_naming_an_unknown_stage_is_a_clear_error(bench, tmp_path: Path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(USER_SET))
    out = tmp_path / "suite.json"
    result = bench(
        "--sets", str(path), "--no-locomo", "--modes", "plain,stages:current+nothing",
        "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: mode 'stages:current+nothing': unknown recall stage")
    assert "Traceback" not in result.output and not out.exists()
