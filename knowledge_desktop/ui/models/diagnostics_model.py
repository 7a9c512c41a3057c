"""A table model over the vault's diagnostics, with its own filter and sort.

The model holds the engine's `Diagnostic` objects as a plain list and keeps a
second list, `_shown`, of the ones that pass the filter, in display order.
Filtering and sorting happen here in Python with precomputed keys rather
than in a QSortFilterProxyModel: a proxy would call back into Python for
every comparison, and sorting by severity needs the engine's rank, not the
alphabetical order of the words "error", "info", "warning".

When the diagnostics are reloaded or the filter changes, the model works out
which rows went and which came and reports them as row removals and
insertions, so the view keeps its selection, current row and scroll position
(a model reset would throw all three away). Only when the change is
scattered across very many separate runs does it fall back to a reset,
because hundreds of separate row signals cost more than one repaint.

Notes (issue 25 §4) each carry one info diagnostic, `plain-note`. They are not
problems, and a vault of 6,571 notes would bury the real ones, so they are
listed as one group row ("6,571 plain notes — Adopt…") after the other rows;
expanding it (`toggle_group`) lists them under it. The group row stands in
`_shown` as `GROUP`, so the incremental update treats it like any row.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QStyle

from knowledge_desktop.engine.diagnostics import CODES, SEVERITY_RANK, Diagnostic, Severity
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
PLAIN_NOTE = "plain-note"
GROUP = -2
"""The position `_shown` holds for the row that groups the `plain-note` diagnostics."""
GROUP_KEY: tuple[str, str, int, str] = ("", PLAIN_NOTE, -1, "group")

DiagnosticKey = tuple[str, str, int, str]


def identity(d: Diagnostic) -> DiagnosticKey:
    """What names "the same problem" across reloads: where it is and what it says."""
    return (d.path, d.code, d.line or 0, d.message)


def code_description(code: str) -> str:
    entry = CODES.get(code)
    return entry[1] if entry else ""


def severity_icon(severity: Severity) -> QIcon:
    return QApplication.style().standardIcon(SEVERITY_ICONS[severity])


def _tie_break(d: Diagnostic) -> tuple[int, str, int, str, str, str]:
    # A total order over every field, so equal keys only ever mean identical
    # diagnostics; the incremental update relies on that.
    return (SEVERITY_RANK[d.severity], d.path, d.line or 0, d.code, d.message, d.record_id or "")


_PRIMARY: dict[int, Callable[[Diagnostic], Any]] = {
    SEVERITY: lambda d: SEVERITY_RANK[d.severity],
    CODE: lambda d: d.code,
    PATH: lambda d: d.path.casefold(),
    LINE: lambda d: -1 if d.line is None else d.line,
    RECORD: lambda d: (d.record_id or "").casefold(),
    MESSAGE: lambda d: d.message.casefold(),
}


_ROW_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren


class DiagnosticsModel(QAbstractTableModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._all: list[Diagnostic] = []
        # Rows hold positions in `_all`: ints hash and compare far faster than
        # the frozen dataclasses, which matters with tens of thousands of rows.
        self._shown: list[int] = []
        self._haystack: list[str] = []
        self._keys: list[Any] = []
        self._icons: dict[Severity, QIcon] = {}
        self._words: list[str] = []
        self._severities: set[Severity] = set(Severity)
        self._code: str = ""
        self._expanded = False
        self.examples = False
        """The vault is the demo, whose broken files are there on purpose: each error and
        warning row says it is an example (issue 29, §6)."""
        self._group_count = 0
        self._accepted_count = 0
        self._sort_column = SEVERITY
        self._sort_order = Qt.SortOrder.AscendingOrder

    # -- reading --------------------------------------------------------------------
    def diagnostic(self, row: int) -> Diagnostic:
        """The diagnostic of a row; for the group row, one standing for the whole group."""
        position = self._shown[row]
        return self._group_diagnostic() if position == GROUP else self._all[position]

    def is_group(self, row: int) -> bool:
        return 0 <= row < len(self._shown) and self._shown[row] == GROUP

    def key_at(self, row: int) -> DiagnosticKey:
        """What names the row across reloads (`identity`, or `GROUP_KEY` for the group)."""
        return GROUP_KEY if self.is_group(row) else identity(self.diagnostic(row))

    @property
    def group_count(self) -> int:
        """How many `plain-note` diagnostics pass the filter (the group row's number)."""
        return self._group_count

    @property
    def shown_count(self) -> int:
        """How many diagnostics pass the filter, the grouped ones included."""
        return self._accepted_count

    @property
    def expanded(self) -> bool:
        return self._expanded

    def toggle_group(self) -> None:
        """Show the notes under the group row, or fold them back into it."""
        self._expanded = not self._expanded
        self._update(list(self._shown))

    def group_text(self) -> str:
        n = self._group_count
        return f"{n:,} plain note{'' if n == 1 else 's'} — Adopt…"

    def _group_diagnostic(self) -> Diagnostic:
        return Diagnostic(PLAIN_NOTE, Severity.INFO, "", None, None, self.group_text())

    def shown(self) -> list[Diagnostic]:
        return [self.diagnostic(row) for row in range(len(self._shown))]

    def all_items(self) -> list[Diagnostic]:
        return list(self._all)

    def row_count_all(self) -> int:
        """How many diagnostics the model holds, shown or filtered out."""
        return len(self._all)

    def row_of(self, key: DiagnosticKey) -> int:
        """The row showing the diagnostic with this identity, or -1."""
        items = self._all
        for row, i in enumerate(self._shown):
            if (GROUP_KEY if i == GROUP else identity(items[i])) == key:
                return row
        return -1

    def severity_counts(self) -> dict[Severity, int]:
        """Totals over every diagnostic, whatever the filter (the toggles show them)."""
        counts = dict.fromkeys(Severity, 0)
        for d in self._all:
            counts[d.severity] += 1
        return counts

    def code_counts(self) -> dict[str, int]:
        return dict(sorted(Counter(d.code for d in self._all).items()))

    @property
    def sort_column(self) -> int:
        return self._sort_column

    @property
    def sort_order(self) -> Qt.SortOrder:
        return self._sort_order

    # -- changing -------------------------------------------------------------------
    def set_items(
        self, items: Sequence[Diagnostic], *, reset: bool = False, prepared: Prepared | None = None
    ) -> None:
        """Show a fresh list of diagnostics; `reset` drops selection (a new vault).

        `prepared` is `prepare(items, self.sort_column)` made on a worker: at 100k
        records (11,000 findings) building it here held the window for 200 ms.
        """
        new = list(items)
        if prepared is None or prepared.items is not items or prepared.sort_column != self._sort_column:
            prepared = prepare(new, self._sort_column)
        # Carry each shown row over to the position of an equal diagnostic in
        # the new list (equal values taken in order), or None when it went.
        places = prepared.places
        carried: list[int | None] = []
        for i in self._shown:
            if i == GROUP:
                carried.append(GROUP)
                continue
            queue = places.get(self._all[i])
            carried.append(queue.popleft() if queue else None)
        self._all = new
        # Until the update below, rows must stay readable against the new list.
        self._shown = [-1 if i is None else i for i in carried]
        self._haystack = prepared.haystack
        self._keys = prepared.keys
        self._update(carried, reset=reset)

    def set_filter(
        self,
        text: str | None = None,
        severities: Iterable[Severity] | None = None,
        code: str | None = None,
    ) -> None:
        """Narrow the rows; every word of `text` must appear in code, path, record or message."""
        if text is not None:
            self._words = text.casefold().split()
        if severities is not None:
            self._severities = set(severities)
        if code is not None:
            self._code = code
        self._update(list(self._shown))

    def _sort_keys(self) -> list[Any]:
        return _sort_keys(self._all, self._sort_column)

    def _accepted(self) -> list[int]:
        severities, code, words, hay = self._severities, self._code, self._words, self._haystack
        return [
            i
            for i, d in enumerate(self._all)
            if d.severity in severities
            and (not code or d.code == code)
            and all(word in hay[i] for word in words)
        ]

    def _ordered(self, rows: list[int]) -> list[int]:
        # `rows` ascend, and a reversed sort stays stable, so equal diagnostics
        # always keep ascending positions: the order is total over positions.
        return sorted(
            rows, key=self._keys.__getitem__, reverse=self._sort_order == Qt.SortOrder.DescendingOrder
        )

    def _arranged(self, rows: list[int], *, group: bool) -> list[int]:
        """Rows in display order: the problems, then the group row, then (expanded) the notes.
        `rows` ascend; GROUP is placed only when `group`."""
        plain = [i for i in rows if self._all[i].code == PLAIN_NOTE]
        others = [i for i in rows if self._all[i].code != PLAIN_NOTE]
        out = self._ordered(others)
        if group:
            out.append(GROUP)
            if self._expanded:
                out += self._ordered(plain)
        return out

    def _update(self, current: list[int | None], *, reset: bool = False) -> None:
        accepted = self._accepted()
        self._accepted_count = len(accepted)
        self._group_count = sum(1 for i in accepted if self._all[i].code == PLAIN_NOTE)
        shown = accepted if self._expanded else [i for i in accepted if self._all[i].code != PLAIN_NOTE]
        target = self._arranged(shown, group=self._group_count > 0)
        if reset or not self._apply_incrementally(current, target):
            self.beginResetModel()
            self._shown = target
            self.endResetModel()

    def _apply_incrementally(self, current: list[int | None], target: list[int]) -> bool:
        """Turn the rows `current` names into `target` with row removals and insertions.

        `current` is the shown rows as positions in `_all` (None for a row
        whose diagnostic is gone). Both follow the same total order, so what
        survives is a subsequence of `target`: remove what went, then insert
        what came at its place. Returns False (nothing done) when the changes
        are too scattered to be worth signalling run by run.
        """
        wanted = set(target)
        keep = [i is not None and i in wanted for i in current]
        removals = _runs([row for row, kept in enumerate(keep) if not kept])
        survivors = [i for i, kept in zip(current, keep, strict=True) if kept]
        insertions: list[tuple[int, list[int]]] = []
        position = 0
        pending: list[int] = []
        for i in target:
            if position < len(survivors) and survivors[position] == i:
                if pending:
                    insertions.append((position, pending))
                    pending = []
                position += 1
            else:
                pending.append(i)
        if pending:
            insertions.append((position, pending))
        if len(removals) + len(insertions) > MAX_RUNS:
            return False
        # The old rows now stand for the new positions (data() reads `_all`,
        # which already holds the new list); removals see the right count.
        self._shown = [-1 if i is None else i for i in current]
        for first, last in reversed(removals):
            self.beginRemoveRows(QModelIndex(), first, last)
            del self._shown[first : last + 1]
            self.endRemoveRows()
        offset = 0  # rows inserted so far shift the later insertion points
        for position, run in insertions:
            at = position + offset
            self.beginInsertRows(QModelIndex(), at, at + len(run) - 1)
            self._shown[at:at] = run
            self.endInsertRows()
            offset += len(run)
        return True

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(HEADERS):
            return
        if column != self._sort_column:
            self._sort_column = column
            self._keys = self._sort_keys()
        self._sort_order = order
        self.layoutAboutToBeChanged.emit()
        before = self._shown
        after = self._arranged(sorted(i for i in before if i != GROUP), group=GROUP in before)
        new_row = {i: row for row, i in enumerate(after)}
        self._shown = after
        old_indexes = self.persistentIndexList()
        new_indexes = [
            self.index(new_row[before[i.row()]], i.column()) if i.isValid() else QModelIndex()
            for i in old_indexes
        ]
        self.changePersistentIndexList(old_indexes, new_indexes)
        self.layoutChanged.emit()

    # -- Qt model interface -------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._shown)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(HEADERS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._shown):
            return None
        position = self._shown[index.row()]
        if position == GROUP:
            return self._group_data(index.column(), role)
        if position < 0:
            return None  # a row on its way out during an update
        d = self._all[position]
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
                f"{self._group_count:,} notes, each with one info diagnostic ({PLAIN_NOTE}).\n"
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


class Prepared:
    """What `set_items` derives from a new list, made ahead on a worker (`prepare`)."""

    __slots__ = ("haystack", "items", "keys", "places", "sort_column")

    def __init__(self, items: Sequence[Diagnostic], sort_column: int) -> None:
        self.items = items
        self.sort_column = sort_column
        self.places: dict[Diagnostic, deque[int]] = {}
        """Where each diagnostic stands in the new list (equal ones in order)."""
        for i, d in enumerate(items):
            self.places.setdefault(d, deque()).append(i)
        self.haystack = ["\n".join((d.code, d.path, d.record_id or "", d.message)).casefold() for d in items]
        self.keys = _sort_keys(items, sort_column)


def prepare(items: Sequence[Diagnostic], sort_column: int) -> Prepared:
    """Safe on any thread: reads only `items`."""
    return Prepared(items, sort_column)


def _sort_keys(items: Sequence[Diagnostic], sort_column: int) -> list[Any]:
    primary = _PRIMARY[sort_column]
    return [(primary(d), _tie_break(d)) for d in items]
