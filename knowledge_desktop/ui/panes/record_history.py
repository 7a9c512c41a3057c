"""The Record pane's History tab (issue 15 §3): the record's checkpointed versions and
what each one changed.

Versions come from `VaultHistory.versions` newest first; the app's own writes, the
observed outside edits and the commits of the user's own Git repository are told
apart ("your Git" for the last, since the app only reads that repository). Selecting
a version shows its diff against the version before it, or against the file as it is
now, with the changed words highlighted (`render/word_diff.py`); "Open This Version"
shows that version read-only. Every engine call runs on a worker (`Runner`).

The tab loads only while it is shown, and a reload after a publish or an outside edit
keeps the selected version selected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.errors import KnownError
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_history import VaultHistory
from knowledge_desktop.ui.render import Colors, render_document
from knowledge_desktop.ui.render.word_diff import WordDiff, new_file_diff, render_word_diff
from knowledge_desktop.ui.tasks import Runner
from knowledge_desktop.ui.widgets.record_browser import RecordBrowser
from knowledge_desktop.ui.widgets.source_view import SourceView

LIMIT = 50
COLUMNS = ("When", "Author", "Operation", "Source", "Reason")
SOURCES = {"publish": "This app", "observed": "Outside edit", "user-git": "your Git"}
FIRST_CHECKPOINT = "First checkpoint"
"""The baseline's source label: the file as the app first found it, whoever wrote it."""
SOURCE_TIPS = {
    "publish": "Written by Knowledge Desktop or the knowledge command",
    "observed": "An edit made outside the app, checkpointed when the app saw it (the first "
    "checkpoint holds every file as the app first found it)",
    "user-git": "A commit of your own Git repository (read only: the app never writes to it)",
}
NO_RECORD = "History is kept for records; this file is not one."
NO_VERSIONS = "No checkpointed versions yet. Each write, and each outside edit the app sees, adds one."


def when(at: object) -> str:
    """`2026-12-02T10:24:39Z` as `2026-12-02 10:24 UTC`: checkpoint times are UTC."""
    text = str(at or "")
    return f"{text[:10]} {text[11:16]} UTC" if len(text) >= 16 else text


def version_text(history: VaultHistory, row: dict[str, Any]) -> str:
    """Runs on a worker: the version's bytes as text (never UTF-8: marked, not refused)."""
    data = history.version_bytes(str(row["commit"]), str(row["path"]))
    return data.decode("utf-8", errors="replace").removeprefix("\ufeff")


def version_diff(
    history: VaultHistory,
    record_id: str,
    rows: list[dict[str, Any]],
    index: int,
    against_now: bool,
    colors: Colors,
) -> WordDiff:
    """Runs on a worker: what version `index` changed (against the one before it), or
    what has changed since it (against now), with the changed words highlighted."""
    row = rows[index]
    if against_now:
        text = history.diff(record_id, from_=str(row["commit"]), to="now")
        return render_word_diff(text, colors, empty_text="The file is the same now as in this version.")
    if index + 1 < len(rows):
        text = history.diff(record_id, from_=str(rows[index + 1]["commit"]), to=str(row["commit"]))
        return render_word_diff(text, colors, empty_text="This version did not change the file's text.")
    if len(rows) >= LIMIT:  # an older version exists beyond the list: the engine knows which
        return render_word_diff(history.diff(record_id, to=str(row["commit"])), colors)
    return render_word_diff(new_file_diff(version_text(history, row), str(row["path"])), colors)


class DiffDialog(QDialog):
    """A diff with its words highlighted, in a window of its own (Compare with Now)."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(860, 600)
        self.view = QTextBrowser()
        self.view.setOpenLinks(False)
        self.view.setPlainText("Loading…")
        self.word_diff: WordDiff | None = None
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view, 1)
        layout.addWidget(buttons)

    def show_diff(self, result: WordDiff) -> None:
        self.word_diff = result
        self.view.setHtml(result.html)

    def show_error(self, message: str) -> None:
        self.view.setPlainText(f"The difference could not be shown: {message}")


class VersionDialog(QDialog):
    """One past version, read-only: rendered, and its source with line numbers."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(820, 640)
        self.rendered = RecordBrowser()  # loads nothing a past version names; follows no link
        self.source = SourceView()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.rendered, "Rendered")
        self.tabs.addTab(self.source, "Source")
        self.note = QLabel("Read-only: this is how the file was then. Nothing here changes the vault.")
        self.note.setEnabled(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(buttons)
        self.rendered.setPlainText("Loading…")

    def show_version(self, loaded: tuple[str, str | None]) -> None:
        source, document = loaded
        self.source.setPlainText(source)
        if document is None:
            self.rendered.setPlainText("This version cannot be rendered; its source is on the Source tab.")
            self.tabs.setCurrentIndex(1)
        else:
            self.rendered.setHtml(document)

    def show_error(self, message: str) -> None:
        self.rendered.setPlainText(f"This version could not be read: {message}")


def load_version(
    history: VaultHistory, record_id: str, row: dict[str, Any], colors: Colors
) -> tuple[str, str | None]:
    """Runs on a worker: a version's source and, when the engine can show the record as it
    was (`show_at`), its rendered document."""
    source = version_text(history, row)
    try:
        view = history.show_at(record_id, str(row["commit"]))
    except (AttributeError, LookupError, ValueError, KnownError):
        return source, None  # the source alone still answers "what did it say"
    return source, render_document(view, {}, colors) if isinstance(view, dict) else None


class HistoryTab(QWidget):
    """The versions list, the diff of the one selected, and Open This Version."""

    def __init__(self, runner: Runner, colors: Callable[[], Colors], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.colors = colors
        self.vault: Vault | None = None
        self.live: Vault | None = None
        """Set while the window shows a vault as of a past date: history is the live vault's."""
        self.record_id: str | None = None
        self.path: str | None = None
        self.rows: list[dict[str, Any]] = []
        self.diff_result: WordDiff | None = None
        self.dialog: QDialog | None = None
        self._stale = True
        self._keep: str | None = None

        self.message = QLabel("")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.message.setEnabled(False)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        for index, width in enumerate((150, 110, 110, 110)):
            self.tree.setColumnWidth(index, width)
        self.tree.currentItemChanged.connect(lambda *_: self._selected())
        self.against_now = QCheckBox("Compare with now")
        self.against_now.setToolTip("Show what changed since this version, up to the file on disk now")
        self.against_now.toggled.connect(lambda _on: self._selected())
        self.open_button = QPushButton("Open This Version…")
        self.open_button.setToolTip("Show this version read-only, rendered and as source")
        self.open_button.clicked.connect(self.open_version)
        self.diff = QTextBrowser()
        self.diff.setOpenLinks(False)
        self.diff.setFrameShape(QTextBrowser.Shape.NoFrame)

        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 4)
        bar.addWidget(self.against_now)
        bar.addStretch(1)
        bar.addWidget(self.open_button)
        lower = QWidget()
        column = QVBoxLayout(lower)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addLayout(bar)
        column.addWidget(self.diff, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.tree)
        split.addWidget(lower)
        split.setStretchFactor(1, 3)
        split.setSizes([140, 420])  # a few versions show; the diff gets the room
        self.stack = QStackedWidget()
        self.stack.addWidget(self.message)
        self.stack.addWidget(split)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self._say(NO_VERSIONS)

    # -- what the pane tells it ------------------------------------------------------
    def set_record(self, vault: Vault | None, record_id: str | None, path: str | None) -> None:
        """The record shown (or shown again after a change): reload when visible, else later."""
        same = record_id == self.record_id and vault is self.vault
        self.vault, self.record_id, self.path = vault, record_id, path
        self._keep = self.selected_commit() if same else None
        self._stale = True
        if not same:
            self.rows = []
            self.tree.clear()
            self.diff.clear()
        if self.isVisible():
            self.refresh()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def history(self) -> VaultHistory | None:
        vault = self.live or self.vault
        return vault.history if vault is not None else None

    def refresh(self) -> None:
        history, record_id = self.history(), self.record_id
        self._stale = False
        if history is None or record_id is None:
            self._say(NO_RECORD if self.path else NO_VERSIONS)
            return
        if not self.rows:
            self._say("Reading the history…")
        # a past view lists the versions up to its checkpoint, not the ones written since
        shown = self.vault.as_of if self.live is not None and self.vault is not None else None
        until = str(shown["commit"]) if shown else None
        self.runner.submit(
            lambda: history.versions(record_id, LIMIT, until),
            lambda rows: self._show(record_id, rows),
            lambda message: self._say(f"The history cannot be read now: {message}"),
            key="record-history",
        )

    # -- showing -------------------------------------------------------------------------
    def _say(self, text: str) -> None:
        self.message.setText(text)
        self.stack.setCurrentIndex(0)
        self.open_button.setEnabled(False)

    def _show(self, record_id: str, rows: list[dict[str, Any]]) -> None:
        if record_id != self.record_id:
            return
        keep = self._keep or self.selected_commit()
        self.rows = rows
        self.tree.blockSignals(True)
        self.tree.clear()
        for row in rows:
            source = str(row.get("source") or "")
            item = QTreeWidgetItem(
                [
                    when(row.get("at")),
                    str(row.get("author") or "unknown"),
                    str(row.get("operation") or ("edit" if source != "publish" else "")),
                    FIRST_CHECKPOINT if row.get("operation") == "baseline" else SOURCES.get(source, source),
                    str(row.get("reason") or ""),
                ]
            )
            item.setToolTip(3, SOURCE_TIPS.get(source, ""))
            item.setToolTip(4, item.text(4))
            item.setToolTip(0, f"{row.get('at')} · commit {str(row.get('commit'))[:12]} · {row.get('path')}")
            self.tree.addTopLevelItem(item)
        self.tree.blockSignals(False)
        if not rows:
            self._say(NO_VERSIONS)
            return
        self.stack.setCurrentIndex(1)
        commits = [str(r.get("commit")) for r in rows]
        chosen = self.tree.topLevelItem(commits.index(keep) if keep in commits else 0)
        if chosen is not None:
            self.tree.setCurrentItem(chosen)
        self._keep = None

    def selected_commit(self) -> str | None:
        current = self.tree.currentItem()
        index = self.tree.indexOfTopLevelItem(current) if current is not None else -1
        return str(self.rows[index]["commit"]) if 0 <= index < len(self.rows) else None

    def _selected(self) -> None:
        history, record_id = self.history(), self.record_id
        item = self.tree.currentItem()
        index = self.tree.indexOfTopLevelItem(item) if item is not None else -1
        self.open_button.setEnabled(0 <= index < len(self.rows))
        if history is None or record_id is None or not 0 <= index < len(self.rows):
            return
        rows, against_now, colors = list(self.rows), self.against_now.isChecked(), self.colors()
        self.diff.setPlainText("Comparing…")
        self.runner.submit(
            lambda: version_diff(history, record_id, rows, index, against_now, colors),
            self._show_diff,
            lambda message: self.diff.setPlainText(f"This difference cannot be shown: {message}"),
            key="record-history-diff",
        )

    def _show_diff(self, result: WordDiff) -> None:
        self.diff_result = result
        self.diff.setHtml(result.html)

    def open_version(self) -> None:
        """Show the selected version read-only, in a window titled with its date."""
        history, record_id = self.history(), self.record_id
        commit = self.selected_commit()
        if history is None or record_id is None or commit is None:
            return
        row = next(r for r in self.rows if str(r["commit"]) == commit)
        if self.dialog is not None:
            self.dialog.deleteLater()  # one version window at a time
        dialog = VersionDialog(f"{record_id} as of {when(row.get('at'))}", self)
        self.dialog = dialog
        colors = self.colors()
        self.runner.submit(
            lambda: load_version(history, record_id, row, colors),
            lambda loaded: dialog.show_version(loaded) if self.dialog is dialog else None,
            lambda message: dialog.show_error(message) if self.dialog is dialog else None,
        )
        dialog.open()
