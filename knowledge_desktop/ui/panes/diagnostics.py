"""The Diagnostics pane: every problem in the vault, like an IDE's problem view.

One table (severity, code, path, line, record, message) over a list model,
so thousands of rows cost nothing per row. Above it, severity toggles that
show the totals, a code picker and a filter box narrow what is listed.
Double-click or Enter asks the window to open the file at the line.

Notes' `plain-note` info rows are one group row ("6,571 plain notes —
Adopt…", see the model) that double-click or Enter unfolds; its Adopt Notes…
action (right-click, or the Adopt… button shown while there are notes) asks
the window for File › Adopt Notes… (`adopt_requested`).

When files change the pane reads the findings again on a worker and the model
reports only the rows that came and went, so the problem the user was
looking at stays selected and the table does not jump. If that problem was
fixed, the selection moves to the row that took its place, which is where
an IDE puts you too: on the next problem. The model holds only the pages the
table has shown (issue 26 §3): filters, sorting and counts are SQL on the
worker, and Export writes every finding from the engine, not from the model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QByteArray,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QSettings,
    Qt,
    Signal,
)
from PySide6.QtGui import QAction, QFocusEvent, QGuiApplication, QKeyEvent, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QStackedWidget,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.changes import CATALOG, DIAGNOSTICS
from knowledge_desktop.engine.diagnostics import Diagnostic, Severity
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.demo import is_demo
from knowledge_desktop.ui.export import export_diagnostics
from knowledge_desktop.ui.models.diagnostics_model import (
    CODE,
    GROUP_KEY,
    LINE,
    MESSAGE,
    PATH,
    PLAIN_NOTE,
    RECORD,
    SEVERITY,
    DiagnosticKey,
    DiagnosticsModel,
    code_description,
    severity_icon,
)
from knowledge_desktop.ui.panes.base import Pane
from knowledge_desktop.ui.tasks import Runner

SETTINGS_GROUP = "diagnostics"
Place = tuple[DiagnosticKey | None, int, DiagnosticKey | None, int]
"""The selected problem (and its row), the problem at the top, and the scroll value."""
DEFAULT_WIDTHS = {SEVERITY: 96, CODE: 200, PATH: 320, LINE: 56, RECORD: 180}
TOGGLE_NOUNS = {
    Severity.ERROR: ("Error", "Errors"),
    Severity.WARNING: ("Warning", "Warnings"),
    Severity.INFO: ("Info", "Info"),
}
EMPTY_NO_VAULT = "Open a vault to see its diagnostics."
EMPTY_CLEAN = "No problems found in this vault"
EMPTY_FILTERED = "No diagnostics match the filter"
DUPLICATES = "merge-candidate"
"""The code of the "Possible duplicates" rows: pages that may be one entity (spec:
corrections-and-merges, mergeCandidates), listed with the findings and picked like a code."""


class _ProblemTable(QTableView):
    """The table, plus Enter/Return to open the current row (the view alone only selects)."""

    open_current = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentIndex().isValid():
            self.open_current.emit()
            event.accept()
            return
        super().keyPressEvent(event)

    def focusInEvent(self, event: QFocusEvent) -> None:
        # Qt gives a focused view a current cell but no selection, which
        # draws a lone focus frame in the first column; select its row.
        super().focusInEvent(event)
        current = self.currentIndex()
        selection = self.selectionModel()
        if current.isValid() and selection is not None and not selection.hasSelection():
            self.selectRow(current.row())


class _MiddleElide(QStyledItemDelegate):
    """Paths keep both ends visible: the partition and the file name matter most."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle


class DiagnosticsPane(Pane):
    title = "Diagnostics"
    adopt_requested = Signal()
    """The user asked to adopt the vault's notes (File › Adopt Notes…)."""
    reads = frozenset((DIAGNOSTICS, CATALOG))
    """CATALOG too: a title or alias edit can make or end a possible duplicate."""

    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(runner, parent)
        self.model = DiagnosticsModel(self)
        self.model.set_runner(
            lambda work, done, failed, kind: runner.submit(
                work, done, failed, key=kind, urgent=kind == "diagnostics-page"
            )
        )
        self.model.read_failed.connect(self.status_message)
        self._settings: QSettings | None = None
        self._restored = False
        self._export_folder: Path | None = None

        self.toggles: dict[Severity, QToolButton] = {}
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.setSpacing(4)
        for severity in Severity:
            button = QToolButton()
            button.setCheckable(True)
            button.setChecked(True)
            button.setIcon(severity_icon(severity))
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.setAutoRaise(True)
            button.setToolTip(f"Show or hide {TOGGLE_NOUNS[severity][1].lower()}")
            button.toggled.connect(self._filter_changed)
            self.toggles[severity] = button
            bar.addWidget(button)
        self.code_box = QComboBox()
        self.code_box.setToolTip("Show one diagnostic code only")
        self.code_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.code_box.currentIndexChanged.connect(self._filter_changed)
        bar.addWidget(self.code_box)
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by code, path, record or message")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._filter_changed)
        self.filter_edit.returnPressed.connect(self._enter_table)
        bar.addWidget(self.filter_edit, 1)
        self.shown_label = QLabel("")
        self.shown_label.setTextFormat(Qt.TextFormat.PlainText)
        self.shown_label.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        bar.addWidget(self.shown_label)
        self.export_button = QToolButton()
        self.export_button.setText("Export…")
        self.export_button.setToolTip("Save the diagnostics as HTML, JSON, CSV or Markdown")
        self.export_button.clicked.connect(lambda: self.export_dialog(self.window()))
        bar.addWidget(self.export_button)
        self.adopt_button = QToolButton()
        self.adopt_button.setText("Adopt…")
        self.adopt_button.setToolTip("Turn the vault's plain notes into records (File › Adopt Notes…)")
        self.adopt_button.clicked.connect(self.adopt_requested)
        self.adopt_button.hide()
        bar.addWidget(self.adopt_button)

        self.table = _ProblemTable()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setShowGrid(False)
        self.table.setSortingEnabled(True)
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.setItemDelegateForColumn(PATH, _MiddleElide(self.table))
        rows = self.table.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        header.setHighlightSections(False)
        header.setSectionsMovable(True)
        for column, width in DEFAULT_WIDTHS.items():
            header.resizeSection(column, width)
        header.setSortIndicator(SEVERITY, Qt.SortOrder.AscendingOrder)
        self.table.doubleClicked.connect(self._open_index)
        self.table.open_current.connect(lambda: self._open_index(self.table.currentIndex()))
        copy = QAction("Copy", self.table)
        copy.setShortcut(QKeySequence.StandardKey.Copy)
        copy.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        copy.triggered.connect(self.copy_selected)
        open_action = QAction("Open Record at Line", self.table)
        open_action.triggered.connect(lambda: self._open_index(self.table.currentIndex()))
        adopt_action = QAction("Adopt Notes…", self.table)
        adopt_action.setToolTip("Turn the vault's plain notes into records")
        adopt_action.triggered.connect(self.adopt_requested)
        self.table.addAction(open_action)
        self.table.addAction(copy)
        self.table.addAction(adopt_action)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)

        self.empty_label = QLabel(EMPTY_NO_VAULT)
        self.empty_label.setTextFormat(Qt.TextFormat.PlainText)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.table)
        self.stack.addWidget(self.empty_label)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)
        self._fill_codes()
        self._update_counts()

    # -- Pane contract ------------------------------------------------------------------
    def focus_target(self) -> QWidget:
        """The table when it shows, else the filter box (a message page takes no keys)."""
        return self.table if self.stack.currentWidget() is self.table else self.filter_edit

    def set_vault(self, vault: Vault | None) -> None:
        self._restore_from_window()
        self.model.set_items([], reset=True)
        self.model.examples = vault is not None and is_demo(vault.root)  # its errors are on purpose
        super().set_vault(vault)

    def refresh(self) -> None:
        vault = self.vault
        if vault is None:
            self.model.set_items([], reset=True, then=self._after_load)
            return
        state = self._remember()
        self.model.set_table(vault.diagnostics_table, then=lambda: self._loaded(vault, state))

    def _loaded(
        self, vault: Vault, state: tuple[DiagnosticKey | None, int, DiagnosticKey | None, int]
    ) -> None:
        if vault is not self.vault:
            return  # the vault changed while these rows were on their way
        self._restore(state)
        self._after_load()

    def _after_load(self) -> None:
        self._fill_codes()
        self._update_counts()

    # -- filtering ----------------------------------------------------------------------
    def _filter_changed(self, *_: Any) -> None:
        state = self._remember()

        def shown() -> None:
            self._restore(state, next_problem=False)
            self._update_counts()

        self.model.set_filter(
            text=self.filter_edit.text(),
            severities=[s for s, b in self.toggles.items() if b.isChecked()],
            code=self.code_box.currentData() or "",
            then=shown,
        )

    def _fill_codes(self) -> None:
        """List the codes present, keeping the chosen one even when it has gone to zero."""
        chosen = self.code_box.currentData() or ""
        counts = self.model.code_counts()
        if chosen and chosen not in counts:
            counts[chosen] = 0
        self.code_box.blockSignals(True)
        self.code_box.clear()
        self.code_box.addItem("All codes", "")
        for code in sorted(counts, key=lambda c: (c != DUPLICATES, c)):
            label = "Possible duplicates" if code == DUPLICATES else code
            self.code_box.addItem(f"{label} ({counts[code]:,})", code)
            self.code_box.setItemData(
                self.code_box.count() - 1, code_description(code), Qt.ItemDataRole.ToolTipRole
            )
        self.code_box.setCurrentIndex(max(0, self.code_box.findData(chosen)))
        self.code_box.blockSignals(False)

    def _update_counts(self) -> None:
        totals = self.model.severity_counts()
        for severity, button in self.toggles.items():
            one, many = TOGGLE_NOUNS[severity]
            n = totals[severity]
            button.setText(f"{n:,} {one if n == 1 else many}")
        total = sum(totals.values())
        shown = self.model.shown_count
        self.shown_label.setText("" if shown == total else f"{shown:,} of {total:,} shown")
        if self.vault is None:
            self._show_empty(EMPTY_NO_VAULT)
        elif total == 0:
            self._show_empty(EMPTY_CLEAN)
        elif shown == 0:
            self._show_empty(EMPTY_FILTERED)
        else:
            self.stack.setCurrentWidget(self.table)
        self.export_button.setEnabled(self.vault is not None)
        self.adopt_button.setVisible(
            self.vault is not None and self.model.code_counts().get(PLAIN_NOTE, 0) > 0
        )

    def _show_empty(self, text: str) -> None:
        self.empty_label.setText(text)
        self.stack.setCurrentWidget(self.empty_label)

    # -- keeping the place --------------------------------------------------------------
    def _remember(self) -> tuple[DiagnosticKey | None, int, DiagnosticKey | None, int]:
        """The selected problem (and its row), the problem at the top, and the scroll value."""
        current = self.table.currentIndex()
        selected = self.model.key_at(current.row()) if self._is_selected(current) else None
        top = self.table.indexAt(QPoint(0, 0))
        anchor = self.model.key_at(top.row()) if top.isValid() else None
        return (selected, current.row() if selected else -1, anchor, self.table.verticalScrollBar().value())

    def _restore(
        self, state: tuple[DiagnosticKey | None, int, DiagnosticKey | None, int], *, next_problem: bool = True
    ) -> None:
        """Select and scroll back to what `_remember` saw.

        With `next_problem`, a selected problem that has gone (fixed on disk)
        hands the selection to the row now in its place; a filter that merely
        hides it leaves nothing selected instead of picking an arbitrary row.
        """
        selected, old_row, anchor, scroll = state
        rows = self.model.rowCount()
        if selected is not None and rows:
            current = self.table.currentIndex()
            now = self.model.key_at(current.row()) if self._is_selected(current) else None
            if now != selected:
                row = self.model.row_of(selected)
                if row < 0 and next_problem:
                    row = min(old_row, rows - 1)
                self.select_row(row, scroll=False)
        if anchor is not None:
            row = self.model.row_of(anchor)
            if row >= 0:
                top = self.table.indexAt(QPoint(0, 0))
                if not top.isValid() or top.row() != row:
                    self.table.scrollTo(self.model.index(row, 0), QAbstractItemView.ScrollHint.PositionAtTop)
                return
        self.table.verticalScrollBar().setValue(scroll)

    def _is_selected(self, index: QModelIndex) -> bool:
        selection = self.table.selectionModel()
        return index.isValid() and selection is not None and selection.isRowSelected(index.row())

    def select_row(self, row: int, *, scroll: bool = True) -> None:
        if not 0 <= row < self.model.rowCount():
            return
        index = self.model.index(row, 0)
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        self.table.selectionModel().setCurrentIndex(index, flags)
        if scroll:
            self.table.scrollTo(index)

    def selected_diagnostic(self) -> Diagnostic | None:
        current = self.table.currentIndex()
        return self.model.diagnostic(current.row()) if self._is_selected(current) else None

    # -- acting on rows -----------------------------------------------------------------
    def _open_index(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        if self.model.is_group(index.row()):
            self.toggle_group()
            return
        d = self.model.diagnostic(index.row())
        self.open_requested.emit(d.path, d.line or 0)

    def toggle_group(self) -> None:
        """List the notes under the group row, or fold them back, keeping the group selected."""

        def toggled() -> None:
            row = self.model.row_of(GROUP_KEY)
            if row >= 0:
                self.select_row(row)
            self._update_counts()

        self.model.toggle_group(then=toggled)

    def _enter_table(self) -> None:
        if self.model.rowCount():
            if not self.table.currentIndex().isValid():
                self.select_row(0)
            self.table.setFocus(Qt.FocusReason.OtherFocusReason)

    def copy_selected(self) -> None:
        """Copy the selected problem as one line, as `knowledge diagnostics` prints it."""
        d = self.selected_diagnostic()
        if d is None:
            return
        where = f"{d.path}:{d.line}" if d.line else d.path
        QGuiApplication.clipboard().setText(f"{d.severity.value} {d.code} {where}  {d.message}")

    # -- export -------------------------------------------------------------------------
    def export_dialog(self, parent: QWidget) -> None:
        """Ask for a file and a format, then write the diagnostics report."""
        vault = self.vault
        if vault is None:
            return
        target = export_diagnostics(
            parent, self.runner, vault, folder=self._export_folder, on_written=self._exported
        )
        if target is not None:
            self._export_folder = target.parent

    def _exported(self, target: Path, count: int) -> None:
        noun = "diagnostic" if count == 1 else "diagnostics"
        self.status_message.emit(f"Exported {count:,} {noun} to {target}")

    # -- settings -----------------------------------------------------------------------
    def _restore_from_window(self) -> None:
        """Read saved settings once, from the window's QSettings.

        The window builds its panes before it hands them settings, so the
        first vault is the earliest moment the pane can know its window.
        """
        if self._restored:
            return
        settings = getattr(self.window(), "settings", None)
        if isinstance(settings, QSettings):
            self.restore_settings(settings)

    def restore_settings(self, settings: QSettings) -> None:
        self._restored = True
        settings.beginGroup(SETTINGS_GROUP)
        try:
            header_state = settings.value("header")
            if isinstance(header_state, QByteArray):
                self.table.horizontalHeader().restoreState(header_state)
            column = _int(settings.value("sortColumn"), SEVERITY)
            descending = str(settings.value("sortOrder", "ascending")) == "descending"
            order = Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder
            self.table.sortByColumn(column if 0 <= column <= MESSAGE else SEVERITY, order)
            hidden = settings.value("hiddenSeverities", [])
            hidden_values = {hidden} if isinstance(hidden, str) else {str(h) for h in _as_list(hidden)}
            for severity, button in self.toggles.items():
                button.setChecked(severity.value not in hidden_values)
            folder = settings.value("exportFolder")
            if folder:
                self._export_folder = Path(str(folder))
        finally:
            settings.endGroup()

    def save_settings(self, settings: QSettings) -> None:
        settings.beginGroup(SETTINGS_GROUP)
        try:
            settings.setValue("header", self.table.horizontalHeader().saveState())
            settings.setValue("sortColumn", self.model.sort_column)
            descending = self.model.sort_order == Qt.SortOrder.DescendingOrder
            settings.setValue("sortOrder", "descending" if descending else "ascending")
            settings.setValue(
                "hiddenSeverities", [s.value for s, b in self.toggles.items() if not b.isChecked()]
            )
            if self._export_folder is not None:
                settings.setValue("exportFolder", str(self._export_folder))
        finally:
            settings.endGroup()


def _int(value: object, default: int) -> int:
    try:
        return int(str(value))
    except ValueError:
        return default


def _as_list(value: object) -> list[object]:
    """QSettings hands back a list, a single value, or None for an empty list (INI files)."""
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]
