"""The Search pane: keyword search as you type, and Enter to jump to a record by its exact name.

Typing restarts a short timer; when it fires, one `knowledge grep` request
goes to a worker under the Runner key "search", so a burst of keystrokes
costs one query and an answer that arrives after a newer request is dropped
(typing never waits on SQLite). The mode and filters are those of the CLI's
grep and go into the same `GrepQuery`; a filter the engine rejects shows its
message under the filters rather than in a dialog, because the fix is one
edit away.

Notes (issue 25) are searched too, listed after the records that match
(`Vault.search`); the kind filter can ask for notes alone.

Enter first asks exact lookup, because someone who typed a whole title or an
id wants that record, not the best keyword match: found opens it, ambiguous
lists the candidates to choose from, missing opens the selected (or first)
search hit. A row the user moved to with the arrow keys wins over lookup.
Enter and a double-click open the rendered record (issue 29 §8: the person
asked for the record, not its file); Shift+Enter opens the source at the
matched line instead.

Every one of these reads first brings the vault up to date on its worker
(`live`, see ui/live.py `LiveReads`), so a file saved just before typing is
already among the results (issue 28 §5).
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.changes import CATALOG, TEXT, ChangeSet
from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.engine.query.text import tokens
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.live import LiveReads, fresh_then
from knowledge_desktop.ui.models.search_model import (
    KEY_ROLE,
    ResultDelegate,
    ResultsModel,
    hit_row,
    record_row,
)
from knowledge_desktop.ui.panes.base import Pane
from knowledge_desktop.ui.switcher import QuickSwitcher
from knowledge_desktop.ui.tasks import Runner

DEBOUNCE_MS = 70  # a fast typist's gap between keys is ~60 ms: search when they pause
"""Long enough to swallow a burst of keystrokes, short enough that results follow typing (≤150 ms)."""
PAGE = 20
MODES = (("All words", "all"), ("Any word", "any"), ("Phrase", "phrase"))
KINDS = (
    ("Any kind", None),
    ("Pages", "page"),
    ("Claims", "claim"),
    ("Relationships", "relationship"),
    ("Notes", "note"),
)
LIFECYCLES = (("Active", "active"), ("Superseded", "superseded"), ("Active + superseded", "all"))
TIME_FIELDS = (
    ("Any date", None),
    ("occurred_at", "occurred_at"),
    ("recorded_at", "recorded_at"),
    ("updated_at", "updated_at"),
    ("due_at", "due_at"),
)


def _combo(choices: tuple[tuple[str, str | None], ...], tip: str) -> QComboBox:
    box = QComboBox()
    for label, value in choices:
        box.addItem(label, value)
    box.setToolTip(tip)
    return box


def _clean(text: str) -> str | None:
    return text.strip() or None


class SearchPane(Pane):
    title = "Search"
    # Hits come from the keyword text; their titles, kinds and filters from catalog rows.
    reads = frozenset((TEXT, CATALOG))
    results_shown = Signal(object)
    """A page of hits is shown (the GrepQuery it answers)."""

    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(runner, parent)
        self.switcher: QuickSwitcher | None = None
        self.live: LiveReads | None = None
        """Set by the window while it keeps the vault live: searches sync with it first."""
        self._query: GrepQuery | None = None
        """The query whose results are shown (and which "More results" continues)."""
        self._next_offset: int | None = None
        self._showing = "nothing"  # nothing | hits | candidates
        self._keep_key: str | None = None
        self._user_picked = False
        self._open_when_ready = False
        self._in_flight = False

        self.field = QLineEdit()
        self.field.setPlaceholderText("Search (Ctrl+K) — words, or an exact id/title")
        self.field.setClearButtonEnabled(True)
        self.field.textEdited.connect(self._schedule)
        self.field.textChanged.connect(self._text_changed)
        self.field.installEventFilter(self)

        self.mode = _combo(MODES, "How the words must match: all of them, any of them, or as a phrase")
        self.filters_button = QToolButton()
        self.filters_button.setText("Filters")
        self.filters_button.setCheckable(True)
        self.filters_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.filters_button.setToolTip("Narrow by kind, type, tag, lifecycle and dates")
        self.filters_button.toggled.connect(self._toggle_filters)
        # Keyword | Hybrid: hybrid adds the records near the words by meaning (issue 27)
        self.keyword_button = _toggle("Keyword", "Records that contain the words (BM25)")
        self.hybrid_button = _toggle(
            "Hybrid", "Words and meaning together: also records that say it otherwise"
        )
        self.keyword_button.setChecked(True)
        self.hybrid_button.toggled.connect(self._hybrid_toggled)
        mode_row = QHBoxLayout()
        mode_row.setContentsMargins(0, 0, 0, 0)
        mode_row.setSpacing(0)
        mode_row.addWidget(self.keyword_button)
        mode_row.addWidget(self.hybrid_button)
        mode_row.addSpacing(6)
        mode_row.addWidget(self.mode, 1)
        mode_row.addWidget(self.filters_button)

        self.kind = _combo(KINDS, "Record kind")
        self.type_field = QLineEdit()
        self.type_field.setPlaceholderText("type, e.g. person")
        self.type_field.setToolTip("Ontology type (its aliases count too); several separated by commas")
        self.tag = QLineEdit()
        self.tag.setPlaceholderText("tag (exact)")
        self.lifecycle = _combo(LIFECYCLES, "Which records: current ones, superseded ones, or both")
        self.time_field = _combo(TIME_FIELDS, "Date field the since/until bounds apply to")
        self.since = QLineEdit()
        self.since.setPlaceholderText("since YYYY-MM-DD")
        self.until = QLineEdit()
        self.until.setPlaceholderText("until YYYY-MM-DD")
        self.filters = QWidget()
        grid = QGridLayout(self.filters)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(4)
        grid.addWidget(self.kind, 0, 0)
        grid.addWidget(self.type_field, 0, 1)
        grid.addWidget(self.lifecycle, 1, 0)
        grid.addWidget(self.tag, 1, 1)
        grid.addWidget(self.time_field, 2, 0, 1, 2)
        grid.addWidget(self.since, 3, 0)
        grid.addWidget(self.until, 3, 1)
        self.filters.setVisible(False)
        for box in (self.mode, self.kind, self.lifecycle, self.time_field):
            box.currentIndexChanged.connect(self._schedule)
        for edit in (self.type_field, self.tag, self.since, self.until):
            edit.textEdited.connect(self._schedule)

        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setVisible(False)
        self.error.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.error.setAutoFillBackground(True)
        self.error.setContentsMargins(6, 3, 6, 3)

        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.linkActivated.connect(self._summary_link)

        self.model = ResultsModel(self)
        self.results = QListView()
        self.results.setModel(self.model)
        self.results.setItemDelegate(ResultDelegate(self.results))
        self.results.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.results.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.results.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.results.setUniformItemSizes(False)
        self.results.activated.connect(self._open_index)  # Enter, and a double-click
        self.results.clicked.connect(lambda _i: self._mark_picked())
        self.results.installEventFilter(self)

        self.more = QPushButton("More results")
        self.more.setFlat(True)
        self.more.setVisible(False)
        self.more.clicked.connect(self.load_more)

        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self.search_now)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        layout.addWidget(self.field)
        layout.addLayout(mode_row)
        layout.addWidget(self.filters)
        layout.addWidget(self.error)
        layout.addWidget(self.summary)
        layout.addWidget(self.results, 1)
        layout.addWidget(self.more)
        self._show_summary(
            "Type to search titles, aliases and text. Enter opens an exact id or title,"
            " Shift+Enter a hit's matched line."
        )

    # -- the window's calls --------------------------------------------------------------------
    def focus_target(self) -> QWidget:
        self.field.selectAll()
        return self.field

    def set_query(self, text: str) -> None:
        """Put text into the search box (as if typed) and search."""
        self.field.setText(text)
        self.search_now()

    def quick_switch(self, parent: QWidget) -> None:
        """Open the quick switcher (jump to a record by title or alias)."""
        if self.vault is None:
            return
        if self.switcher is None or self.switcher.parent() is not parent:
            self.switcher = QuickSwitcher(self.runner, parent)
            self.switcher.chosen.connect(lambda path: self.open_requested.emit(path, 0))
        self.switcher.popup(self.vault, self.live)

    def set_vault(self, vault: Vault | None) -> None:
        self.vault = vault
        self.current = None
        self._clear_results()
        if self.switcher is not None:
            self.switcher.hide()
        if vault is not None and self.field.text().strip():
            self.search_now()

    def apply_change(self, change: ChangeSet) -> None:
        """Files changed: ask again, keeping the selected record selected."""
        if self._showing == "hits" and self.field.text().strip() and change.touches(*self.reads):
            self._keep_key = self.selected_key()
            self.search_now(keep_count=True)

    def refresh(self) -> None:
        if self.vault is not None and self.field.text().strip():
            self.search_now()

    # -- searching ----------------------------------------------------------------------------
    def _schedule(self) -> None:
        self.timer.start()

    def _hybrid_toggled(self, hybrid: bool) -> None:
        """Hybrid ranks by any of the words and by meaning, so the word mode does not apply."""
        self.mode.setEnabled(not hybrid)
        self._schedule()

    def _text_changed(self, text: str) -> None:
        if not text.strip():
            self.timer.stop()
            self._clear_results()

    def build_query(self, offset: int = 0, limit: int = PAGE) -> GrepQuery:
        types = _clean(self.type_field.text())
        return GrepQuery(
            query=self.field.text(),
            mode=str(self.mode.currentData()),
            kind=self.kind.currentData(),
            types=frozenset(t.strip() for t in types.split(",") if t.strip()) if types else None,
            tag=_clean(self.tag.text()),
            lifecycle=str(self.lifecycle.currentData()),
            time_field=self.time_field.currentData(),
            since=_clean(self.since.text()),
            until=_clean(self.until.text()),
            limit=limit,
            offset=offset,
        )

    def search_now(self, keep_count: bool = False) -> None:
        """Send the query in the box to a worker now (the debounce timer calls this)."""
        self.timer.stop()
        vault = self.vault
        text = self.field.text()
        if vault is None or not text.strip():
            return
        if not tokens(text):
            self._clear_results()
            self._show_summary("Type letters or digits: punctuation only separates words.")
            return
        limit = PAGE
        if keep_count:
            limit = max(PAGE, min(50, self.model.rowCount()))
        query = self.build_query(limit=limit)
        self._in_flight = True
        live = self.live
        if self.hybrid_button.isChecked():
            self.runner.submit(
                fresh_then(live, lambda: as_grep(vault.search(query, "hybrid", notes=True))),
                lambda result: self._show_hits(query, result),
                lambda message: self._search_failed(query, message),
                key="search",
                urgent=True,
            )
            return
        self.runner.submit(
            fresh_then(live, lambda: vault.search_text(query)),
            lambda result: self._show_hits(query, result),
            lambda message: self._search_failed(query, message),
            key="search",
            urgent=True,
        )

    def load_more(self) -> None:
        vault, base, offset = self.vault, self._query, self._next_offset
        if vault is None or base is None or offset is None:
            return
        query = GrepQuery(**{**_fields(base), "offset": offset, "limit": PAGE})
        self.more.setEnabled(False)
        self.runner.submit(
            lambda: vault.search_text(query),
            lambda result: self._show_hits(query, result),
            lambda message: self._search_failed(query, message),
            key="search",
        )

    def _show_hits(self, query: GrepQuery, result: dict[str, Any]) -> None:
        self._in_flight = False
        if query.query != self.field.text():
            return  # the box changed since; a newer request follows
        self.error.setVisible(False)
        rows = [hit_row(hit, query.query) for hit in result["hits"]]
        if query.offset == 0:
            self.model.set_rows(rows)
            self._user_picked = False
        else:
            self.model.append_rows(rows)
        self._showing = "hits"
        self._query = query
        self._next_offset = result.get("nextOffset")
        self.more.setVisible(self._next_offset is not None)
        self.more.setEnabled(True)
        self._restore_selection()
        self._summarise(query, result)
        self.results_shown.emit(query)
        if self._open_when_ready:
            self._open_when_ready = False
            self._open_hit()

    def _summarise(self, query: GrepQuery, result: dict[str, Any]) -> None:
        total = result.get("total")
        index = result.get("index") or {}
        if total is None or index.get("state") == "unavailable":
            self._show_summary("The search index is unavailable; try again in a moment.")
            return
        partial = index.get("state") == "partial"
        left = f"the search text is still being indexed ({index.get('pending', 0):,} records left)"
        if total == 0:
            text = html.escape(query.query.strip())
            hint = ""
            if partial:
                hint = f" yet — {left}"
            elif query.mode != "any" and len(tokens(query.query)) > 1:
                hint = ' — every word must match; try <a href="mode:any">any word</a>'
            self._show_summary(f"No results for “{text}”{hint}")
            return
        if partial:
            state = f"so far: {left}"
        elif index.get("state") == "ready" and not index.get("lag"):
            state = "index ready"
        else:
            state = "Index updating…"
        shown = self.model.rowCount()
        count = f"{total:,} result{'s' if total != 1 else ''}"
        if shown < total:
            count += f" (showing {shown:,})"
        self._show_summary(f"{count} · {state}")

    def _search_failed(self, query: GrepQuery, message: str) -> None:
        """A query the engine refused (bad date, type without words …): say why, right here."""
        self._in_flight = False
        self._open_when_ready = False
        self.more.setEnabled(True)
        if query.query != self.field.text():
            return
        self.error.setText(f"⚠ {message}")
        self.error.setVisible(True)
        self.model.set_rows([])
        self._showing = "nothing"
        self.more.setVisible(False)
        self._show_summary("")

    def _clear_results(self) -> None:
        self.model.set_rows([])
        self._showing = "nothing"
        self._query = None
        self._next_offset = None
        self.more.setVisible(False)
        self.error.setVisible(False)
        self._user_picked = False
        self._show_summary("")

    def _summary_link(self, link: str) -> None:
        if link == "mode:any":
            self.mode.setCurrentIndex(self.mode.findData("any"))
            self.search_now()

    def _show_summary(self, text: str) -> None:
        self.summary.setText(text)
        self.summary.setVisible(bool(text))

    def _restore_selection(self) -> None:
        key, self._keep_key = self._keep_key, None
        row = self.model.row_of(key) if key else -1
        if row >= 0:
            self.results.setCurrentIndex(self.model.index(row, 0))
            self._user_picked = True

    # -- opening ------------------------------------------------------------------------------
    def enter(self) -> None:
        """Enter in the box: the row the user picked, else an exact name, else the best hit."""
        if self._user_picked and self.results.currentIndex().isValid():
            self._open_index(self.results.currentIndex())
            return
        text = self.field.text()
        vault = self.vault
        if vault is None or not text.strip():
            return
        if self.timer.isActive():
            self.search_now()  # the hits are needed if lookup finds nothing

        def done(answer: dict[str, Any]) -> None:
            self._looked_up(text, answer)

        self.runner.submit(
            fresh_then(self.live, lambda: vault.lookup(text, notes=True)),
            done,
            lambda _m: done({"status": "missing"}),
            key="search-lookup",
        )

    def _looked_up(self, text: str, answer: dict[str, Any]) -> None:
        if text != self.field.text():
            return  # typed on meanwhile
        status = answer.get("status")
        if status == "found":
            record = answer["record"]
            self.open_requested.emit(str(record["path"]), 0)
        elif status == "ambiguous":
            self.model.set_rows([record_row(c) for c in answer["candidates"]])
            self._showing = "candidates"
            self.more.setVisible(False)
            self.results.setCurrentIndex(self.model.index(0, 0))
            self._user_picked = True
            self._show_summary(f"Several records are named “{html.escape(text.strip())}” — choose one:")
        elif self._in_flight or self.timer.isActive():
            self._open_when_ready = True
        else:
            self._open_hit()

    def _open_hit(self, at_line: bool = False) -> None:
        index = self.results.currentIndex()
        if not index.isValid() and self.model.rowCount():
            index = self.model.index(0, 0)
        if index.isValid():
            self._open_index(index, at_line)
        elif self.field.text().strip():
            self.status_message.emit(f"Nothing is named or matches “{self.field.text().strip()}”")

    def _open_index(self, index: QModelIndex, at_line: bool = False) -> None:
        """Open the hit's record rendered; `at_line`: its source at the matched line."""
        if not index.isValid():
            return
        row = self.model.row_at(index.row())
        key = index.data(KEY_ROLE)
        if key:
            self.open_requested.emit(str(key), int(row.get("line") or 0) if at_line else 0)

    def selected_key(self) -> str | None:
        index = self.results.currentIndex()
        return str(index.data(KEY_ROLE)) if index.isValid() else None

    def _mark_picked(self) -> None:
        self._user_picked = True

    def _toggle_filters(self, shown: bool) -> None:
        self.filters.setVisible(shown)

    # -- keys ---------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = event.key()
            if watched is self.field:
                if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
                    self._move(key)
                    return True
                if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                    if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                        self._open_hit(at_line=True)
                    else:
                        self.enter()
                    return True
                if key == Qt.Key.Key_Escape and self.field.text():
                    self.field.clear()
                    return True
            elif watched is self.results:
                if key in (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown):
                    self._user_picked = True
                if key == Qt.Key.Key_Escape:
                    self.field.setFocus()
                    return True
                if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and (
                    event.modifiers() & Qt.KeyboardModifier.ShiftModifier
                ):
                    self._open_index(self.results.currentIndex(), at_line=True)
                    return True
        return super().eventFilter(watched, event)

    def _move(self, key: int) -> None:
        count = self.model.rowCount()
        if not count:
            return
        current = self.results.currentIndex().row() if self.results.currentIndex().isValid() else -1
        step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1, Qt.Key.Key_PageDown: 5, Qt.Key.Key_PageUp: -5}[
            Qt.Key(key)
        ]
        row = min(max(current + step, 0), count - 1) if current >= 0 else (0 if step > 0 else count - 1)
        self.results.setCurrentIndex(self.model.index(row, 0))
        self.results.scrollTo(self.model.index(row, 0))
        self._user_picked = True


def _toggle(text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setCheckable(True)
    button.setAutoExclusive(True)
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    return button


def as_grep(result: dict[str, Any]) -> dict[str, Any]:
    """A hybrid answer in the shape the results list takes from grep: one page, no more."""
    hits = [
        {
            **r,
            "lifecycle": None if r["kind"] == "note" else "active",
            "snippet": {**(r.get("snippet") or {}), "matchLocated": bool(r.get("snippet"))},
        }
        for r in result["results"]
    ]
    return {"hits": hits, "total": len(hits), "nextOffset": None, "index": {"state": "ready", "lag": False}}


def _fields(query: GrepQuery) -> dict[str, Any]:
    return {name: getattr(query, name) for name in GrepQuery.__dataclass_fields__}
