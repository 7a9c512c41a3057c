"""A read-only text view of a file's raw source, with line numbers.

The Record pane shows the Markdown exactly as it is on disk so a diagnostic's
line can be found: a gutter numbers the lines (one-based, like the engine's
diagnostics), lines that have a diagnostic get a tinted background and a
mark in the gutter whose tooltip says what is wrong, and `goto_line(n)`
scrolls to a line and highlights it.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QEvent, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFontDatabase, QPainter, QPaintEvent, QPalette, QTextCursor, QTextFormat
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QToolTip, QWidget

from knowledge_desktop.ui.render.values import literal

GUTTER_PADDING = 6
MARK_WIDTH = 4


class _Gutter(QWidget):
    """The strip left of the text holding line numbers; the view paints it."""

    def __init__(self, view: SourceView) -> None:
        super().__init__(view)
        self.view = view
        self.setMouseTracking(True)

    def sizeHint(self) -> QSize:
        return QSize(self.view.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.view.paint_gutter(event)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            line = self.view.line_at(int(event.pos().y()))  # type: ignore[attr-defined]
            message = self.view.line_messages.get(line)
            if message:
                QToolTip.showText(event.globalPos(), literal(message), self)  # type: ignore[attr-defined]
            else:
                QToolTip.hideText()
            return True
        return super().event(event)


class SourceView(QPlainTextEdit):
    """Read-only, monospaced, line-numbered; `goto_line` and `set_marked_lines`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.line_messages: dict[int, str] = {}
        self.current_line = 0
        self._gutter = _Gutter(self)
        self.blockCountChanged.connect(lambda _count: self._fit_gutter())
        self.updateRequest.connect(self._scroll_gutter)
        self._fit_gutter()

    # -- content ---------------------------------------------------------------
    def set_source(self, text: str) -> None:
        """Replace the text, keeping the scroll position when the text is a new version."""
        bar = self.verticalScrollBar()
        keep = bar.value()
        self.setPlainText(text)
        bar.setValue(min(keep, bar.maximum()))
        self.current_line = 0
        self._refresh_selections()

    def set_marked_lines(self, marks: Iterable[tuple[int, str]]) -> None:
        """Lines (one-based) to tint, each with the message its gutter tooltip shows."""
        merged: dict[int, list[str]] = {}
        for line, message in marks:
            if line > 0:
                merged.setdefault(line, []).append(message)
        self.line_messages = {line: "\n".join(messages) for line, messages in merged.items()}
        self._refresh_selections()
        self._gutter.update()

    def goto_line(self, line: int) -> bool:
        """Scroll to one-based `line`, put the cursor there and highlight it; False when out of range."""
        block = self.document().findBlockByNumber(line - 1)
        if line < 1 or not block.isValid():
            return False
        self.current_line = line
        cursor = QTextCursor(block)
        self.setTextCursor(cursor)
        self.centerCursor()
        self._refresh_selections()
        return True

    def _refresh_selections(self) -> None:
        palette = self.palette()
        marks: list[QTextEdit.ExtraSelection] = []
        warn = _blend(palette.color(QPalette.ColorRole.Base), QColor("#e5534b"), 0.18)
        for line in sorted(self.line_messages):
            selection = self._line_selection(line, warn)
            if selection is not None:
                marks.append(selection)
        if self.current_line:
            focus = _blend(
                palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Highlight), 0.3
            )
            selection = self._line_selection(self.current_line, focus)
            if selection is not None:
                marks.append(selection)
        self.setExtraSelections(marks)

    def _line_selection(self, line: int, color: QColor) -> QTextEdit.ExtraSelection | None:
        block = self.document().findBlockByNumber(line - 1)
        if not block.isValid():
            return None
        selection = QTextEdit.ExtraSelection()
        selection.format.setBackground(color)
        selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
        selection.cursor = QTextCursor(block)
        return selection

    # -- the gutter --------------------------------------------------------------
    def gutter_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        return GUTTER_PADDING * 2 + MARK_WIDTH + self.fontMetrics().horizontalAdvance("9") * max(3, digits)

    def _fit_gutter(self) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _scroll_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())
        if rect.contains(self.viewport().rect()):
            self._fit_gutter()

    def resizeEvent(self, event: object) -> None:
        super().resizeEvent(event)  # type: ignore[arg-type]
        area = self.contentsRect()
        self._gutter.setGeometry(QRect(area.left(), area.top(), self.gutter_width(), area.height()))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._refresh_selections()

    def line_at(self, y: int) -> int:
        """The one-based line drawn at height y of the gutter, 0 below the last line."""
        block = self.firstVisibleBlock()
        top = self.blockBoundingGeometry(block).translated(self.contentOffset()).top()
        while block.isValid():
            bottom = top + self.blockBoundingRect(block).height()
            if top <= y < bottom:
                return block.blockNumber() + 1
            block = block.next()
            top = bottom
        return 0

    def paint_gutter(self, event: QPaintEvent) -> None:
        painter = QPainter(self._gutter)
        palette = self.palette()
        painter.fillRect(event.rect(), palette.color(QPalette.ColorRole.AlternateBase))
        number_color = palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        mark_color = QColor("#e5534b")
        width = self._gutter.width()
        height = self.fontMetrics().height()
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        while block.isValid() and top <= event.rect().bottom():
            bottom = top + round(self.blockBoundingRect(block).height())
            if block.isVisible() and bottom >= event.rect().top():
                number = block.blockNumber() + 1
                if number in self.line_messages:
                    painter.fillRect(0, top, MARK_WIDTH, bottom - top, mark_color)
                color = (
                    palette.color(QPalette.ColorRole.Text) if number == self.current_line else number_color
                )
                painter.setPen(color)
                painter.drawText(
                    0,
                    top,
                    width - GUTTER_PADDING,
                    height,
                    int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                    str(number),
                )
            block = block.next()
            top = bottom
        painter.end()


def _blend(base: QColor, over: QColor, amount: float) -> QColor:
    """`over` laid on `base` at `amount` opacity: a tint that suits light and dark palettes."""
    return QColor(
        round(base.red() + (over.red() - base.red()) * amount),
        round(base.green() + (over.green() - base.green()) * amount),
        round(base.blue() + (over.blue() - base.blue()) * amount),
    )
