"""``houkai tui``: a terminal browser over one collection (Textual, ``houkai[tui]``).

Type to search (hybrid recall; empty shows the newest memories), move through
the table, and the pane below shows every field of the highlighted memory.
Read-only: browsing never bumps access counts.
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Footer, Header, Input, Static

from ..domain.model import Memory


def describe(memory: Memory) -> str:
    """The detail pane's text for one memory."""
    links = ", ".join(f"{x.rel}→{x.to[:8]}" for x in memory.links) or "—"
    return "\n".join(
        [
            memory.text,
            "",
            f"id {memory.id}   type {memory.type}   importance {memory.importance:.2f}",
            f"tags {', '.join(memory.tags) or '—'}   source {memory.source or '—'}",
            f"links {links}   superseded_by {memory.superseded_by or '—'}",
            f"accessed {memory.access_count}×   state {memory.state}",
        ]
    )


class HoukaiTui(App):
    """Search and browse memories."""

    TITLE = "houkai"
    BINDINGS = [("q", "quit", "Quit"), ("escape", "clear", "Clear search")]
    CSS = "#detail { height: 8; border-top: solid $accent; padding: 0 1; }"

    def __init__(self, store: Any, *, limit: int = 50) -> None:
        super().__init__()
        self.store = store
        self.limit = limit
        self.shown: list[Memory] = []

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical():
            yield Input(placeholder="search (hybrid recall); empty = newest", id="query")
            yield DataTable(id="results", cursor_type="row")
            yield Static("", id="detail")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("id", "type", "imp", "score", "text")
        self.sub_title = self.store.collection_name
        self.refresh_results("")

    def refresh_results(self, query: str) -> None:
        if query.strip():
            hits = self.store.recall(query, k=self.limit, mode="hybrid", touch=False)
        else:
            hits = [(m, None) for m in self.store.list_recent(limit=self.limit)]
        self.shown = [m for m, _ in hits]
        table = self.query_one(DataTable)
        table.clear()
        for memory, score in hits:
            table.add_row(
                memory.id[:8],
                memory.type,
                f"{memory.importance:.2f}",
                "" if score is None else f"{score:.3f}",
                memory.text[:90],
            )
        self.query_one("#detail", Static).update(
            describe(self.shown[0]) if self.shown else "no memories"
        )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.refresh_results(event.value)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if 0 <= event.cursor_row < len(self.shown):
            self.query_one("#detail", Static).update(describe(self.shown[event.cursor_row]))

    def action_clear(self) -> None:
        self.query_one(Input).value = ""
        self.refresh_results("")
