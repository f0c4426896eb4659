"""chunk_text (the seed's paragraph mode and houkai's markdown-aware packer) and iter_documents."""

from __future__ import annotations

import inspect
import re

import pytest

from houkai import chunk_text
from houkai.pipeline.chunking import iter_documents

FENCE = "```"


def pack(text, max_chars=500, min_chars=30):
    """houkai's packer: chunk_text(mode="pack")."""
    return chunk_text(text, max_chars, min_chars, mode="pack")


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text)


def test_defaults_follow_the_seed():
    params = inspect.signature(chunk_text).parameters
    assert params["max_chars"].default == 500
    assert params["min_chars"].default == 30
    assert params["mode"].default == "paragraph"


def test_paragraph_mode_is_the_seeds():
    # one chunk per paragraph, a heading glued to its paragraph, short ones dropped
    text = (
        "## Deploy\n\nAlways deploy with make release, never by hand.\n\n"
        "ok\n\nThe staging box is at 10.0.0.7 and runs Debian.\n\n"
        "## A trailing heading standing alone"
    )
    assert chunk_text(text) == [
        "## Deploy\nAlways deploy with make release, never by hand.",
        "The staging box is at 10.0.0.7 and runs Debian.",
        "## A trailing heading standing alone",
    ]
    # packing the same text merges the short paragraphs of a section instead
    assert len(pack(text)) < 3
    sentences = " ".join(
        f"Sentence {i} talks about something moderately interesting." for i in range(10)
    )
    pieces = chunk_text(sentences, max_chars=150)
    assert len(pieces) > 1 and all(len(c) <= 150 for c in pieces)
    assert len(chunk_text(("word " * 60).strip() + ".", max_chars=100)) == 1  # kept whole
    with pytest.raises(ValueError, match="mode"):
        chunk_text("x", mode="sentences")


def test_paragraph_mode_keeps_short_facts_and_splits_a_log_into_lines():
    # a short paragraph of two words or more is a fact, not a stray bullet: kept whole
    text = "Deploy 1: web rolled out fine today.\n\nDoor code: 4711\n\n---\n\nok\n\n* "
    assert chunk_text(text) == ["Deploy 1: web rolled out fine today.", "Door code: 4711"]
    # a log pasted without blank lines or full stops: split at its lines, none lost
    lines = [f"12:00:{i:02d} worker-{i} heartbeat latency {i}ms" for i in range(60)]
    chunks = chunk_text("\n".join(lines))
    assert len(chunks) > 1 and all(len(c) <= 500 for c in chunks)
    assert "\n".join(chunks).split("\n") == lines  # in order, each line whole
    # one overlong line still stays whole, as the seed keeps one overlong sentence
    assert chunk_text("x" * 700 + "\nshort line") == ["x" * 700, "short line"]
    # a numbered bullet holds one word; a fenced block or a table is not cut at its lines
    assert chunk_text("1. x\n\nok") == []
    code = "```python\n" + "\n".join(f"x{i} = compute({i})  # a step" for i in range(30)) + "\n```"
    table = "| a | b |\n|---|---|\n" + "\n".join(f"| row {i} | value {i} |" for i in range(40))
    assert chunk_text(code) == [code] and chunk_text(table) == [table]


def test_empty_and_short_input():
    assert pack("") == []
    assert pack("   \n\n  \n") == []
    assert pack("Use ruff for linting.") == ["Use ruff for linting."]
    assert pack("a\r\nb c d e f g h i j k l m n o p") == ["a\nb c d e f g h i j k l m n o p"]


def test_heading_stays_with_its_body_and_sections_split():
    body_a = "Deploys run through the blue-green pipeline and need a green CI run first."
    body_b = "Rollbacks re-point the load balancer to the previous colour within a minute."
    text = f"# Deploy\n\n{body_a}\n\n## Rollback\n{body_b}"
    assert pack(text, max_chars=200) == [f"# Deploy\n{body_a}", f"## Rollback\n{body_b}"]
    # consecutive headings are kept together as context for the body
    nested = f"# Ops\n\n## Deploy\n\n{body_a}"
    assert pack(nested, max_chars=200) == [f"# Ops\n## Deploy\n{body_a}"]


def test_long_sections_pack_paragraphs_and_repeat_the_heading():
    paras = [
        f"Paragraph {i} explains step {i} of the release in some detail here." for i in range(8)
    ]
    text = "## Release steps\n\n" + "\n\n".join(paras)
    chunks = pack(text, max_chars=200, min_chars=30)
    assert len(chunks) > 1
    assert all(len(c) <= 200 for c in chunks)
    assert all(c.startswith("## Release steps\n") for c in chunks)
    assert [p for c in chunks for p in paras if p in c] == paras  # nothing lost, order kept


def test_long_paragraph_splits_on_sentences_then_words():
    sentences = [f"Sentence number {i} talks about caching layer behaviour." for i in range(20)]
    chunks = pack(" ".join(sentences), max_chars=150, min_chars=0)
    assert all(len(c) <= 150 for c in chunks)
    assert all(c.endswith(".") for c in chunks)  # cut between sentences
    assert words(" ".join(chunks)) == words(" ".join(sentences))
    run_on = " ".join(f"word{i}" for i in range(200))
    pieces = pack(run_on, max_chars=100, min_chars=0)
    assert all(len(p) <= 100 for p in pieces)
    assert words(" ".join(pieces)) == words(run_on)
    blob = "x" * 250
    assert pack(blob, max_chars=100, min_chars=0) == ["x" * 100, "x" * 100, "x" * 50]


def test_fenced_code_is_never_split_when_it_fits():
    code = f"{FENCE}bash\nmake release\n\n# not a heading\n\necho done\n{FENCE}"
    intro = "Release with the make target below; it tags, builds and pushes the image."
    chunks = pack(
        f"## Release\n\n{intro}\n\n{code}\n\nAfterwards check the dashboard.",
        max_chars=120,
        min_chars=10,
    )
    holding = [c for c in chunks if "make release" in c]
    assert len(holding) == 1 and code in holding[0]
    assert not any(c.startswith("# not a heading") for c in chunks)
    tildes = "~~~\nline one\n\nline two\n~~~"
    assert any(tildes in c for c in pack(f"Intro text here.\n\n{tildes}", max_chars=100))


def test_oversized_code_block_splits_on_lines_and_is_refenced():
    lines = [f"step_{i:02d} = run('task {i}')" for i in range(40)]
    code = FENCE + "python\n" + "\n".join(lines) + "\n" + FENCE
    chunks = pack(code, max_chars=200, min_chars=0)
    assert len(chunks) > 1
    for chunk in chunks:
        assert len(chunk) <= 200
        assert chunk.startswith(FENCE + "python\n") and chunk.endswith("\n" + FENCE)
    inner = [ln for c in chunks for ln in c.split("\n")[1:-1]]
    assert inner == lines


def test_tiny_chunks_are_merged_not_dropped_and_rules_are_dropped():
    big = "A long paragraph about the incident review process and its follow-ups."
    text = f"## Incident\n\n{big}\n\n---\n\nok\n\n## Notes\n\nTODO: x\n\n* * *"
    chunks = pack(text, max_chars=300, min_chars=30)
    joined = "\n".join(chunks)
    assert "ok" in words(joined) and "TODO" in joined
    assert "---" not in joined and "* * *" not in joined
    assert all(len(c) >= 30 for c in chunks)


def test_validation():
    with pytest.raises(ValueError, match="text"):
        pack(None)
    with pytest.raises(ValueError, match="max_chars"):
        pack("x", max_chars=0)
    with pytest.raises(ValueError, match="min_chars"):
        pack("x", min_chars=-1)
    with pytest.raises(ValueError, match="must not exceed"):
        pack("x", max_chars=100, min_chars=200)
    with pytest.raises(ValueError, match="max_chars"):
        pack("x", max_chars=True)


# ----------------------------------------------------------------- iter_documents
@pytest.fixture()
def tree(tmp_path):
    (tmp_path / "a.md").write_text("# A\nalpha", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("beta", encoding="utf-8")
    (tmp_path / "sub" / "c.markdown").write_text("gamma", encoding="utf-8")
    (tmp_path / "code.py").write_text("print('no')", encoding="utf-8")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "d.md").write_text("secret", encoding="utf-8")
    return tmp_path


def test_iter_documents_folder_is_recursive_and_filtered(tree):
    docs = list(iter_documents(tree))
    assert [p for p, _ in docs] == [
        str(tree / "a.md"),
        str(tree / "sub" / "b.txt"),
        str(tree / "sub" / "c.markdown"),
    ]
    assert [t for _, t in docs] == ["# A\nalpha", "beta", "gamma"]


def test_iter_documents_glob_file_and_pattern(tree):
    assert [p for p, _ in iter_documents(tree, glob="*.txt")] == [str(tree / "sub" / "b.txt")]
    assert [p for p, _ in iter_documents(tree, glob="*.py")] == [str(tree / "code.py")]
    assert list(iter_documents(tree / "a.md")) == [(str(tree / "a.md"), "# A\nalpha")]
    assert [p for p, _ in iter_documents(str(tree / "**" / "*.md"))] == [str(tree / "a.md")]


def test_iter_documents_errors(tree):
    with pytest.raises(ValueError, match="no such file"):
        list(iter_documents(tree / "missing"))
    with pytest.raises(ValueError, match="unsupported file type"):
        list(iter_documents(tree / "code.py"))
    with pytest.raises(ValueError, match="path"):
        list(iter_documents(""))
    with pytest.raises(ValueError, match="glob"):
        list(iter_documents(tree, glob=""))
