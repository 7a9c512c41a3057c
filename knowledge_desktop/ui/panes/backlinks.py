"""The Backlinks pane: what points at the record in focus, as a tree of groups.

Groups (engine `Vault.backlinks`): Linked from (each linking line with the
link emphasised), Relationships by label (→ from this record, ← to it),
Referenced by (typed reference fields), Unlinked mentions. Activating a row
(double-click or Enter) opens the record it names; a linking line opens its
record at that line. Context lines wrap, because in a narrow side dock a
one-line row would hide the very words that explain the link.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, QPoint, QSize, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QKeyEvent, QPainter, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QMenu,
    QStackedWidget,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.changes import CATALOG, LINKS, TEXT
from knowledge_desktop.ui.models.backlinks_model import BacklinksModel
from knowledge_desktop.ui.models.tree_model import ALT_KEY_ROLE, LINE_ROLE, MARK_ROLE, OPEN_KEY_ROLE
from knowledge_desktop.ui.panes.backlinks_docs import DocumentationSection
from knowledge_desktop.ui.panes.base import Pane
from knowledge_desktop.ui.panes.note_backlinks import note_backlinks
from knowledge_desktop.ui.render.values import literal
from knowledge_desktop.ui.tasks import Runner

Index = QModelIndex | QPersistentModelIndex


class ContextDelegate(QStyledItemDelegate):
    """Draws every row as wrapped text; a row's mark is drawn bold in the link colour.

    Titles of claims are whole sentences and context lines run long, so in a
    narrow dock wrapping keeps them readable where eliding would cut them.
    """

    def __init__(self, view: QTreeView) -> None:
        super().__init__(view)
        self.view = view

    def _document(self, option: QStyleOptionViewItem, index: Index, width: int) -> QTextDocument:
        text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        mark = index.data(MARK_ROLE)
        if mark:
            start, end = int(mark[0]), int(mark[1])
            selected = bool(option.state & QStyle.StateFlag.State_Selected)
            role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Link
            colour = option.palette.color(role).name()
            body = (
                html.escape(text[:start])
                + f'<b style="color:{colour}">{html.escape(text[start:end])}</b>'
                + html.escape(text[end:])
            )
        else:
            body = html.escape(text)
        doc = QTextDocument()
        doc.setDefaultFont(option.font)
        doc.setDocumentMargin(2)
        doc.setHtml(body)
        doc.setTextWidth(max(width, 80))
        return doc

    def _text_width(self, index: Index) -> int:
        depth = 0
        parent = index.parent()
        while parent.isValid():
            depth += 1
            parent = parent.parent()
        return self.view.viewport().width() - (depth + 1) * self.view.indentation() - 4

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        doc = self._document(opt, index, self._text_width(index))
        return QSize(int(doc.idealWidth()), int(doc.size().height()) + 2)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        rect = opt.rect
        # Wrap at the width sizeHint measured with, or a line that wraps here but not there
        # leaves a blank line under the row (or cuts its last line off).
        doc = self._document(opt, index, min(rect.width(), self._text_width(index)))
        opt.text = ""
        style = opt.widget.style() if opt.widget else self.view.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        context = QAbstractTextDocumentLayout.PaintContext()
        text_role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        brush = index.data(Qt.ItemDataRole.ForegroundRole)
        colour = brush.color() if brush is not None and not selected else opt.palette.color(text_role)
        context.palette.setColor(QPalette.ColorRole.Text, colour)
        painter.save()
        painter.translate(rect.topLeft())
        painter.setClipRect(rect.translated(-rect.topLeft()))
        doc.documentLayout().draw(painter, context)
        painter.restore()


class _Relayout(QObject):
    """Wrapped rows change height with the width: lay the tree out again on resize."""

    def __init__(self, view: QTreeView) -> None:
        super().__init__(view)
        self.view = view
        self._width = -1

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and self.view.viewport().width() != self._width:
            self._width = self.view.viewport().width()
            self.view.scheduleDelayedItemsLayout()
        return False


class BacklinksTree(QTreeView):
    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentIndex().isValid():
            self.activated.emit(self.currentIndex())
            return
        super().keyPressEvent(event)


class BacklinksPane(Pane):
    title = "Backlinks"
    # Links and references say what points here; the titles shown come from catalog rows.
    # links in, titles of the linking records, and unlinked mentions (found in the search text)
    reads = frozenset((LINKS, CATALOG, TEXT))

    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(runner, parent)
        self.model = BacklinksModel(self)
        self.result: dict[str, Any] | None = None
        self._shown_for: str | None = None

        self.heading = QLabel("")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.heading.setContentsMargins(4, 2, 4, 2)

        self.tree = BacklinksTree()
        self.tree.setModel(self.model)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(False)
        self.tree.setWordWrap(True)
        self.tree.setAllColumnsShowFocus(True)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tree.setItemDelegate(ContextDelegate(self.tree))
        self.tree.viewport().installEventFilter(_Relayout(self.tree))
        self.tree.activated.connect(self._activate)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.model.rowsInserted.connect(self._expand_inserted)

        # The message sits at the top, where the groups would start, rather than in the
        # middle of a tall dock; it takes the focus so Alt+3 lands on something that reads.
        self.empty = QLabel("Open a record to see what links to it.")
        self.empty.setTextFormat(Qt.TextFormat.PlainText)  # it names records by title
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.empty.setWordWrap(True)
        self.empty.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.empty.setContentsMargins(12, 12, 12, 12)

        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.tree)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.heading)
        layout.addWidget(self.stack)
        # Repository entities this record (a claim) supports: filled by the Repository pane.
        self.documentation = DocumentationSection()
        layout.addWidget(self.documentation)
        self._show_message("Open a record to see what links to it.")

    def focus_target(self) -> QWidget:
        """The tree when it shows, else the message in its place."""
        return self.tree if self.stack.currentWidget() is self.tree else self.empty

    # -- the Pane contract -----------------------------------------------------------------
    def set_vault(self, vault: Any) -> None:
        self._shown_for = None
        self.result = None
        self.model.clear()
        super().set_vault(vault)

    def set_current(self, path: str | None) -> None:
        super().set_current(path)
        self.refresh()

    def refresh(self) -> None:
        vault, path = self.vault, self.current
        if vault is None or path is None:
            self.documentation.show_for(None)
            self.result = None
            self._shown_for = None
            self.model.clear()
            self._show_message(
                "Open a record to see what links to it." if vault is not None else "No vault open."
            )
            return
        self.runner.submit(
            lambda: note_backlinks(vault, path, vault.backlinks(path)),
            lambda result: self._loaded(path, result),
            lambda message: self._failed(path, message),
            key="backlinks",
        )

    # -- answers -----------------------------------------------------------------------------
    def _loaded(self, path: str, result: dict[str, Any]) -> None:
        if path != self.current:
            return
        moved = path != self._shown_for
        self.result = result
        self._shown_for = path
        self.model.set_result(result)
        self.documentation.show_for(result.get("id"))
        title = result.get("title") or result.get("path") or path
        counts = result.get("counts", {})
        total = sum(counts.values()) if counts else 0
        if not result.get("id") and not result.get("note"):
            self._show_message(f"{title} is not a record, so nothing can link to it by id.")
            return
        if total == 0:
            self._show_message(
                f"No backlinks to {title}.\nNothing links to it, relates to it or mentions it."
            )
            return
        # The Record pane already shows the title large; here it only says what the count is of.
        self.heading.setText(f"Backlinks to {title}  ·  {total:,}")
        self.heading.setToolTip(literal(str(result.get("path") or "")))
        self.heading.setVisible(True)
        self.stack.setCurrentWidget(self.tree)
        if moved:
            self.tree.scrollToTop()

    def _failed(self, path: str, message: str) -> None:
        if path != self.current:
            return
        self.result = None
        self._shown_for = None
        self.model.clear()
        self._show_message(message)
        self.status_message.emit(message)

    def _show_message(self, text: str) -> None:
        self.empty.setText(text)
        self.stack.setCurrentWidget(self.empty)
        # The message names the record itself; a heading above it would only repeat it.
        self.heading.setText("")
        self.heading.setVisible(False)

    def _expand_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        for row in range(first, last + 1):
            self._expand_all(self.model.index(row, 0, parent))

    def _expand_all(self, index: QModelIndex) -> None:
        if self.model.rowCount(index):
            self.tree.expand(index)
            for row in range(self.model.rowCount(index)):
                self._expand_all(self.model.index(row, 0, index))

    # -- opening ---------------------------------------------------------------------------
    def _activate(self, index: QModelIndex) -> None:
        key = index.data(OPEN_KEY_ROLE)
        if key:
            self.open_requested.emit(str(key), int(index.data(LINE_ROLE) or 0))
        elif self.model.rowCount(index):
            self.tree.setExpanded(index, not self.tree.isExpanded(index))

    def _context_menu(self, point: QPoint) -> None:
        index = self.tree.indexAt(point)
        key, alt = index.data(OPEN_KEY_ROLE), index.data(ALT_KEY_ROLE)
        if not key and not alt:
            return
        menu = QMenu(self)
        if key:
            menu.addAction("Open", lambda: self._activate(index))
        if alt:
            menu.addAction("Open Relationship Record", lambda: self.open_requested.emit(str(alt), 0))
        menu.exec(self.tree.viewport().mapToGlobal(point))
