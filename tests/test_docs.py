"""The manual (docs/, built by MkDocs) and the README that fronts it.

- The README stays a front page and every relative link in it resolves, so its links into
  docs/ work on GitHub as they do in a checkout.
- User pages explain; design records (docs/adr) argue. User pages cite no record numbers and
  no design-document sections: they link Design decisions instead.
- ``mkdocs build --strict`` passes (no broken link or anchor, no page left out of the nav),
  as ``./dev lint`` runs it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"

# Pages that are records rather than user pages: the design records themselves, their index,
# and a dated measurement log.
RECORDS = {DOCS / "design-decisions.md", DOCS / "reliability" / "rest.md"}
# Files outside docs/ that the manual includes whole (pymdownx.snippets).
INCLUDED = [ROOT / "ops" / "README.md"]

_LINK = re.compile(r"\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def _user_pages() -> list[Path]:
    pages = [p for p in DOCS.rglob("*.md") if "adr" not in p.relative_to(DOCS).parts]
    return [p for p in pages if p not in RECORDS] + INCLUDED


def _prose(path: Path) -> str:
    return _FENCE.sub("", path.read_text(encoding="utf-8"))


def test_readme_is_a_front_page_whose_links_resolve():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300, "the README is the front page: move detail to docs/"
    targets = [t for t in _LINK.findall(_prose(README)) if not re.match(r"[a-z]+:", t)]
    assert any(t.startswith("docs/") for t in targets), "the README links into the manual"
    for target in targets:
        path = target.split("#", 1)[0]
        assert (ROOT / path).exists(), f"README links to {target}, which does not exist"


@pytest.mark.parametrize("page", [README, DOCS / "getting-started.md"])
def test_the_houkai_up_sample_is_what_houkai_up_prints(page):
    """The sample a newcomer compares their terminal with: the worker's queues and the
    banners come from the code that prints them, so a new queue or line shows up here."""
    from houkai.cli.commands.pipeline_cmds import cli_banner, dashboard_banner
    from houkai.pipeline.dispatch import QUEUES

    text = page.read_text(encoding="utf-8")
    sample = text[text.index("redis   redis://") : text.index("houkai is up")]
    assert f"worker  pid …: queues {','.join(QUEUES)}\n" in sample
    api = "http://127.0.0.1:8765"
    for banner in (dashboard_banner(api + "/ui", ""), cli_banner(api)):
        shown = next(line for line in sample.splitlines() if line[:4] == banner[:4])
        assert banner.startswith(shown.removesuffix("…")), (shown, banner)


def test_the_readme_keeps_the_quickstart_facts():
    text = README.read_text(encoding="utf-8")
    for fact in ("./dev up", "./dev test", "https://download.pytorch.org/whl/cpu", "5 s timeout"):
        assert fact in text, fact
    assert re.search(r"takes about \d+ minutes", text), "the test-suite timing sentence"


@pytest.mark.parametrize("page", _user_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_user_pages_cite_no_record_numbers_or_design_sections(page):
    prose = _prose(page)
    assert not re.search(r"\bADRs? ?\d{2,4}", prose), f"{page}: link Design decisions instead"
    assert "§" not in prose, f"{page}: a design-document section number"


def test_every_design_record_is_linked_from_design_decisions():
    index = (DOCS / "design-decisions.md").read_text(encoding="utf-8")
    for record in sorted((DOCS / "adr").glob("*.md")):
        assert f"(adr/{record.name})" in index, record.name


def test_the_manual_builds_strictly(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert (tmp_path / "index.html").exists()
    assert (tmp_path / "cli" / "index.html").exists()


def test_the_manual_names_every_stage_and_the_default_list():
    """The stage list is written by hand on two pages: a stage added to the registry
    (``houkai.recall.stages.REGISTRY``) must reach both."""
    from houkai.recall.stages import default_names, names

    recall = (DOCS / "concepts" / "recall.md").read_text(encoding="utf-8")
    missing = [s for s in names() if not re.search(rf"^- `{s}`", recall, re.M)]
    assert not missing, f"concepts/recall.md has no bullet for {missing}"
    defaults = ", ".join(f'"{s}"' for s in default_names())
    assert defaults in " ".join(recall.split()), "concepts/recall.md: the default list"
    config = (DOCS / "configuration.md").read_text(encoding="utf-8")
    assert f"`default`: {','.join(default_names())}," in config
