"""A table model over the vault's diagnostics, read from SQL a page at a time.

At a million records a vault has about 110,000 findings, and holding them all (with
what filtering and sorting them in Python needed) cost the window 170 MB. So the
model holds only the rows the table has shown: filtering (severity toggles, one
code, words), sorting and counting happen in SQL over the diagnostics projection
(`engine.query.diagnostics_table`), the first page comes with every change, and the
view asks for the next one as it scrolls (`canFetchMore`/`fetchMore`). Every read
runs through `run` (the pane's worker pool), so the window never waits on SQLite; a
list given whole (`set_items`) is answered at once, from an in-memory table.

When the findings are reloaded or the filter changes, the model works out which
rows went and which came and reports them as row removals and insertions, so the
view keeps its selection, current row and scroll position (a model reset would
throw all three away); rows the view holds on to (its selection) are read however
far down they now are. A sort keeps the rows it has and remaps the view's indexes,
as a layout change. Only when a change is scattered across very many separate
runs does it fall back to a reset, because hundreds of row signals cost more than
one repaint.

Notes (issue 25 §4) each carry one info diagnostic, `plain-note`. They are not
problems, and a vault of 6,571 notes would bury the real ones, so they are listed
as one group row ("6,571 plain notes — Adopt…") after the other rows, once those
are all fetched; expanding it (`toggle_group`) lists them under it, paged too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QStyle

from knowledge_desktop.engine.diagnostics import CODES, Diagnostic, Severity
from knowledge_desktop.engine.query.diagnostics_table import (
    SORTS,
    DiagnosticsTable,
    DiagnosticsView,
    Page,
    Resume,
    Shown,
    Totals,
)
from knowledge_desktop.ui.render.values import literal

Index = QModelIndex | QPersistentModelIndex

SEVERITY, CODE, PATH, LINE, RECORD, MESSAGE = range(6)
EXAMPLE = "Example of a broken file"
EXAMPLE_TIP = "The demo vault breaks this file on purpose, to show what the app reports."
HEADERS = ("Severity", "Code", "Path", "Line", "Record", "Message")
HEADER_TIPS = (
    "How serious the problem is: errors first when sorted",
    "The stable diagnostic code (see docs/diagnostics.md)",
    "The file, relative to the vault folder",
    "The line in the file, when the problem has one",
    "The record id, when the file declared one",
    "What is wrong",
)
SEVERITY_LABELS = {Severity.ERROR: "Error", Severity.WARNING: "Warning", Severity.INFO: "Info"}
SEVERITY_ICONS = {
    Severity.ERROR: QStyle.StandardPixmap.SP_MessageBoxCritical,
    Severity.WARNING: QStyle.StandardPixmap.SP_MessageBoxWarning,
    Severity.INFO: QStyle.StandardPixmap.SP_MessageBoxInformation,
}
# Past this many separate runs of inserted or removed rows, one reset is cheaper.
MAX_RUNS = 64
PAGE = 200
"""Rows read per page: several screens, one short query."""
PLAIN_NOTE = "plain-note"
GROUP_KEY: tuple[str, str, int, str] = ("", PLAIN_NOTE, -1, "group")

DiagnosticKey = tuple[str, str, int, str]
Run = Callable[[Callable[[], Any], Callable[[Any], None], Callable[[str], None], str], None]
"""Runs `work` somewhere and hands its answer to `done` (or an error's message to `failed`)
on this thread; the string names the kind of request (a newer one of that kind overtakes it)."""


class _Group:
    """The row standing for every `plain-note` diagnostic."""

    __slots__ = ()


GROUP = _Group()
Row = Diagnostic | _Group


def identity(d: Diagnostic) -> DiagnosticKey:
    """What names "the same problem" across reloads: where it is and what it says."""
    return (d.path, d.code, d.line or 0, d.message)


def code_description(code: str) -> str:
    entry = CODES.get(code)
    return entry[1] if entry else ""


def severity_icon(severity: Severity) -> QIcon:
    return QApplication.style().standardIcon(SEVERITY_ICONS[severity])


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What one read found: totals, what passes the view, and the first rows of each section."""

    generation: int
    table: DiagnosticsTable
    view: DiagnosticsView
    expanded: bool
    totals: Totals
    shown: Shown
    problems: list[Diagnostic]
    notes: list[Diagnostic]
    resume: tuple[Resume | None, Resume | None]
    """Where each section's rows read so far end (problems, notes): the next page's start."""


def read_snapshot(
    generation: int,
    table: DiagnosticsTable | Callable[[], DiagnosticsTable],
    view: DiagnosticsView,
    expanded: bool,
    want: int,
    keep: Sequence[Diagnostic],
) -> Snapshot:
    """Safe on any thread. Reads `want` rows of each section at least, and as far as
    needed to include the rows in `keep` that still pass the view."""
    if not isinstance(table, DiagnosticsTable):
        table = table()
    shown = table.shown(view)
    want_problems = want_notes = want
    for d in keep:
        row = table.position(view, d)
        if row is not None and d.code == PLAIN_NOTE:
            want_notes = max(want_notes, row + 1)
        elif row is not None:
            want_problems = max(want_problems, row + 1)
    problems = table.page(view, notes=False, offset=0, limit=want_problems)
    notes = Page([], None)
    if expanded and shown.notes and len(problems.rows) == shown.problems:
        notes = table.page(view, notes=True, offset=0, limit=want_notes)
    return Snapshot(
        generation,
        table,
        view,
        expanded,
        table.totals(),
        shown,
        problems.rows,
        notes.rows,
        (problems.last, notes.last),
    )


def _at_once(work: Callable[[], Any], done: Callable[[Any], None], _failed: object, _kind: str) -> None:
    done(work())


_ROW_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren


class DiagnosticsModel(QAbstractTableModel):
    loaded = Signal()
    """A read was applied: the rows, counts and totals are those of the newest request."""
    read_failed = Signal(str)
    """A read failed (the state unreadable): the message, for the status bar."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._run: Run = _at_once
        self._run_later: Run | None = None
        self._table = DiagnosticsTable.in_memory([])
        self._view = DiagnosticsView()
        """What the rows show now; `_asked` is what the newest request asks for."""
        self._asked = self._view
        self._expanded = False
        self._asked_expanded = False
        self.examples = False
        """The vault is the demo, whose broken files are there on purpose: each error and
        warning row says it is an example (issue 29, §6)."""
        self._rows: list[Row] = []
        self._totals = Totals(dict.fromkeys(Severity, 0), {})
        self._shown = Shown(0, 0)
        self._generation = 0
        self._answered = 0
        """The newest request whose answer (or failure) came back."""
        self._fetching = False
        self._resume: tuple[Resume | None, Resume | None] = (None, None)
        self._updating = False
        """Rows are being changed: a page asked for now would land among them."""
        self._icons: dict[Severity, QIcon] = {}

    def set_runner(self, run: Run) -> None:
        """Where reads of a vault's table run (the pane's workers); lists given whole
        (`set_items`) are still read at once."""
        self._run_later = run

    # -- reading --------------------------------------------------------------------
    def diagnostic(self, row: int) -> Diagnostic:
        """The diagnostic of a row; for the group row, one standing for the whole group."""
        item = self._rows[row]
        return self._group_diagnostic() if isinstance(item, _Group) else item

    def is_group(self, row: int) -> bool:
        return 0 <= row < len(self._rows) and self._rows[row] is GROUP

    def key_at(self, row: int) -> DiagnosticKey:
        """What names the row across reloads (`identity`, or `GROUP_KEY` for the group)."""
        return GROUP_KEY if self.is_group(row) else identity(self.diagnostic(row))

    @property
    def group_count(self) -> int:
        """How many `plain-note` diagnostics pass the filter (the group row's number)."""
        return self._shown.notes

    @property
    def shown_count(self) -> int:
        """How many diagnostics pass the filter, the grouped ones included."""
        return self._shown.problems + self._shown.notes

    @property
    def fetched(self) -> int:
        """How many diagnostics the model holds: the rows read so far, never the whole set."""
        return sum(1 for r in self._rows if r is not GROUP)

    @property
    def waiting(self) -> bool:
        """A read is on its way (the rows are about to change)."""
        return self._answered < self._generation or self._fetching

    @property
    def expanded(self) -> bool:
        return self._expanded

    def group_text(self) -> str:
        n = self._shown.notes
        return f"{n:,} plain note{'' if n == 1 else 's'} — Adopt…"

    def _group_diagnostic(self) -> Diagnostic:
        return Diagnostic(PLAIN_NOTE, Severity.INFO, "", None, None, self.group_text())

    def shown(self) -> list[Diagnostic]:
        """The rows read so far, in display order (the group row as its stand-in)."""
        return [self.diagnostic(row) for row in range(len(self._rows))]

    def row_count_all(self) -> int:
        """How many diagnostics the vault has, shown or filtered out."""
        return sum(self._totals.severities.values())

    def row_of(self, key: DiagnosticKey) -> int:
        """The row showing the diagnostic with this identity among those read, or -1."""
        for row, item in enumerate(self._rows):
            if (GROUP_KEY if isinstance(item, _Group) else identity(item)) == key:
                return row
        return -1

    def severity_counts(self) -> dict[Severity, int]:
        """Totals over every diagnostic, whatever the filter (the toggles show them)."""
        return dict(self._totals.severities)

    def code_counts(self) -> dict[str, int]:
        return dict(self._totals.codes)

    @property
    def sort_column(self) -> int:
        return SORTS.index(self._asked.sort)

    @property
    def sort_order(self) -> Qt.SortOrder:
        return Qt.SortOrder.DescendingOrder if self._asked.descending else Qt.SortOrder.AscendingOrder

    # -- changing -------------------------------------------------------------------
    def set_items(
        self, items: Sequence[Diagnostic], *, reset: bool = False, then: Callable[[], None] | None = None
    ) -> None:
        """Show exactly these diagnostics (read at once); `reset` drops the selection."""
        self._request(DiagnosticsTable.in_memory(items), reset=reset, then=then)

    def set_table(
        self,
        table: Callable[[], DiagnosticsTable],
        *,
        reset: bool = False,
        then: Callable[[], None] | None = None,
    ) -> None:
        """Show a vault's findings: `table` is made and read on a worker (`set_runner`)."""
        self._request(table, reset=reset, then=then)

    def reload(self, then: Callable[[], None] | None = None) -> None:
        """Read the same table again (what `set_table` last gave is asked anew by the pane)."""
        self._request(self._table, then=then)

    def set_filter(
        self,
        text: str | None = None,
        severities: Iterable[Severity] | None = None,
        code: str | None = None,
        *,
        then: Callable[[], None] | None = None,
    ) -> None:
        """Narrow the rows; every word of `text` must appear in code, path, record or message."""
        view = self._asked
        if text is not None:
            view = replace(view, words=tuple(text.casefold().split()))
        if severities is not None:
            view = replace(view, severities=frozenset(severities))
        if code is not None:
            view = replace(view, code=code)
        self._asked = view
        self._request(self._table, then=then)

    def toggle_group(self, then: Callable[[], None] | None = None) -> None:
        """Show the notes under the group row, or fold them back into it."""
        self._asked_expanded = not self._asked_expanded
        self._request(self._table, then=then)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(HEADERS):
            return
        view = replace(self._asked, sort=SORTS[column], descending=order == Qt.SortOrder.DescendingOrder)
        if view == self._asked:
            return
        self._asked = view
        self._request(self._table, sorting=True)

    def _held(self) -> list[Diagnostic]:
        """The rows the view holds on to (current row, selection): read wherever they go."""
        held: list[Diagnostic] = []
        for index in self.persistentIndexList():
            item = self._rows[index.row()] if index.isValid() and index.row() < len(self._rows) else GROUP
            if isinstance(item, Diagnostic) and item not in held:
                held.append(item)
        return held

    def _request(
        self,
        table: DiagnosticsTable | Callable[[], DiagnosticsTable],
        *,
        reset: bool = False,
        sorting: bool = False,
        then: Callable[[], None] | None = None,
    ) -> None:
        self._generation += 1
        generation, view, expanded = self._generation, self._asked, self._asked_expanded
        want = max(PAGE, self.fetched)
        keep = [] if reset else self._held()
        run = (
            _at_once if isinstance(table, DiagnosticsTable) and table.at_once else self._run_later or _at_once
        )

        def done(snapshot: Snapshot) -> None:
            if snapshot.generation != self._generation:
                return  # a newer request is on its way
            self._answered = generation
            self._apply(snapshot, reset=reset, sorting=sorting)
            if then is not None:
                then()
            self.loaded.emit()

        run(
            lambda: read_snapshot(generation, table, view, expanded, want, keep),
            done,
            self._failed,
            "diagnostics",
        )

    def _apply(self, snapshot: Snapshot, *, reset: bool, sorting: bool) -> None:
        self._table, self._view, self._expanded = snapshot.table, snapshot.view, snapshot.expanded
        self._totals, self._shown = snapshot.totals, snapshot.shown
        self._resume = snapshot.resume
        self._fetching = False
        target: list[Row] = list(snapshot.problems)
        if snapshot.shown.notes and len(snapshot.problems) == snapshot.shown.problems:
            target.append(GROUP)
            target.extend(snapshot.notes)
        self._updating = True
        try:
            if reset or not (self._relayout(target) if sorting else self._apply_incrementally(target)):
                self.beginResetModel()
                self._rows = target
                self.endResetModel()
        finally:
            self._updating = False
        group = self.row_of(GROUP_KEY)
        if group >= 0:  # its count and fold mark may have changed
            self.dataChanged.emit(self.index(group, 0), self.index(group, len(HEADERS) - 1))

    def _relayout(self, target: list[Row]) -> bool:
        """A new order of the rows, as a layout change that remaps the view's indexes.
        Rows read to reach what the view holds are first added at the end, so the
        selection can move down to them."""
        count = len(self._rows)
        if len(target) < count:
            return False
        if len(target) > count:
            self.beginInsertRows(QModelIndex(), count, len(target) - 1)
            self._rows = self._rows + target[count:]
            self.endInsertRows()
        self.layoutAboutToBeChanged.emit()
        places: dict[Row, list[int]] = {}
        for row, item in reversed(list(enumerate(target))):
            places.setdefault(item, []).append(row)
        # Each old row goes to the next free place of an equal row (identical findings in order).
        moved = [places[item].pop() if places.get(item) else -1 for item in self._rows]
        old_indexes = self.persistentIndexList()
        new_indexes = [
            self.index(moved[i.row()], i.column()) if i.isValid() and moved[i.row()] >= 0 else QModelIndex()
            for i in old_indexes
        ]
        self._rows = target
        self.changePersistentIndexList(old_indexes, new_indexes)
        self.layoutChanged.emit()
        return True

    def _apply_incrementally(self, target: list[Row]) -> bool:
        """Turn the rows shown into `target` with row removals and insertions.

        Both follow the same total order (identical findings side by side), so
        what survives is a subsequence of `target`: remove what went, then insert
        what came at its place. Returns False (nothing done) when the changes are
        too scattered to be worth signalling run by run.
        """
        current = self._rows
        need = Counter(target)
        keep: list[bool] = []
        for item in current:
            keep.append(need[item] > 0)
            if keep[-1]:
                need[item] -= 1
        removals = _runs([row for row, kept in enumerate(keep) if not kept])
        survivors = [item for item, kept in zip(current, keep, strict=True) if kept]
        insertions: list[tuple[int, list[Row]]] = []
        position = 0
        pending: list[Row] = []
        for item in target:
            if position < len(survivors) and survivors[position] == item:
                if pending:
                    insertions.append((position, pending))
                    pending = []
                position += 1
            else:
                pending.append(item)
        if pending:
            insertions.append((position, pending))
        if position != len(survivors) or len(removals) + len(insertions) > MAX_RUNS:
            return False
        self._rows = list(current)
        for first, last in reversed(removals):
            self.beginRemoveRows(QModelIndex(), first, last)
            del self._rows[first : last + 1]
            self.endRemoveRows()
        offset = 0  # rows inserted so far shift the later insertion points
        for position, run in insertions:
            at = position + offset
            self.beginInsertRows(QModelIndex(), at, at + len(run) - 1)
            self._rows[at:at] = run
            self.endInsertRows()
            offset += len(run)
        return True

    def _failed(self, message: str) -> None:
        self._answered = self._generation
        self._fetching = False
        self.read_failed.emit(message)

    # -- paging -------------------------------------------------------------------------
    def _next_page(self) -> tuple[bool, int] | None:
        """Which section the next page is of (notes or not) and its offset, if any."""
        problems = sum(1 for r in self._rows if isinstance(r, Diagnostic) and r.code != PLAIN_NOTE)
        if problems < self._shown.problems:
            return False, problems
        notes = len(self._rows) - problems - (1 if self._shown.notes else 0)
        if self._expanded and notes < self._shown.notes:
            return True, notes
        return None

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        if parent.isValid() or self._fetching or self._updating or self._answered < self._generation:
            return False  # a page asked for now would be of rows about to be replaced
        return self._next_page() is not None

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        nxt = self._next_page() if self.canFetchMore(parent) else None
        if nxt is None:
            return
        notes, offset = nxt
        self._fetching = True
        generation, table, view = self._generation, self._table, self._view
        after = self._resume[1 if notes else 0]
        run = _at_once if table.at_once else self._run_later or _at_once

        def done(page: Page) -> None:
            if generation != self._generation:
                return  # the rows changed meanwhile; the view will ask again
            self._fetching = False
            if self._next_page() != (notes, offset):
                return
            rows = page.rows
            self._resume = (self._resume[0], page.last) if notes else (page.last, self._resume[1])
            added: list[Row] = list(rows)
            if not notes and offset + len(rows) == self._shown.problems and self._shown.notes:
                added.append(GROUP)  # every problem is read: the notes' group row comes next
            if added:
                self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(added) - 1)
                self._rows.extend(added)
                self.endInsertRows()

        run(
            lambda: table.page(view, notes=notes, offset=offset, limit=PAGE, after=after),
            done,
            self._failed,
            "diagnostics-page",
        )

    # -- Qt model interface -------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(HEADERS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        d = self._rows[index.row()]
        if isinstance(d, _Group):
            return self._group_data(index.column(), role)
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == MESSAGE and self.examples and d.severity != Severity.INFO:
                return f"{EXAMPLE}: {d.message}"
            return _display(d, column)
        if role == Qt.ItemDataRole.DecorationRole and column == SEVERITY:
            icon = self._icons.get(d.severity)
            if icon is None:
                icon = self._icons[d.severity] = severity_icon(d.severity)
            return icon
        if role == Qt.ItemDataRole.ToolTipRole:
            example = f"\n{EXAMPLE_TIP}" if self.examples and d.severity != Severity.INFO else ""
            return literal(_tooltip(d) + example)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == LINE:
            return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        if role == Qt.ItemDataRole.UserRole:
            return identity(d)
        return None

    def _group_data(self, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if column == SEVERITY:
                return SEVERITY_LABELS[Severity.INFO]
            if column == CODE:
                return PLAIN_NOTE
            if column == PATH:
                return ("▾ " if self._expanded else "▸ ") + self.group_text()
            if column == MESSAGE:
                return "Markdown files that are not records: listed, linked and searchable as notes. " + (
                    "Double-click to fold them." if self._expanded else "Double-click to list them."
                )
            return ""
        if role == Qt.ItemDataRole.DecorationRole and column == SEVERITY:
            icon = self._icons.get(Severity.INFO)
            if icon is None:
                icon = self._icons[Severity.INFO] = severity_icon(Severity.INFO)
            return icon
        if role == Qt.ItemDataRole.ToolTipRole:
            return literal(
                f"{self._shown.notes:,} notes, each with one info diagnostic ({PLAIN_NOTE}).\n"
                "Double-click or Enter lists or folds them; Adopt Notes… (right-click) "
                "turns notes into records."
            )
        if role == Qt.ItemDataRole.UserRole:
            return GROUP_KEY
        return None

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(HEADERS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return HEADER_TIPS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        return _ROW_FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags


def _display(d: Diagnostic, column: int) -> str:
    if column == SEVERITY:
        return SEVERITY_LABELS[d.severity]
    if column == CODE:
        return d.code
    if column == PATH:
        return d.path
    if column == LINE:
        return "" if d.line is None else str(d.line)
    if column == RECORD:
        return d.record_id or ""
    return d.message


def _tooltip(d: Diagnostic) -> str:
    where = f"{d.path}:{d.line}" if d.line else d.path
    parts = [f"{SEVERITY_LABELS[d.severity]} · {d.code}", d.message, where]
    if d.record_id:
        parts.append(f"Record {d.record_id}")
    description = code_description(d.code)
    if description:
        parts.append(f"{d.code}: {description}")
    return "\n".join(parts)


def _runs(rows: list[int]) -> list[tuple[int, int]]:
    """Group sorted row numbers into (first, last) runs of consecutive rows."""
    runs: list[tuple[int, int]] = []
    for row in rows:
        if runs and runs[-1][1] == row - 1:
            runs[-1] = (runs[-1][0], row)
        else:
            runs.append((row, row))
    return runs
