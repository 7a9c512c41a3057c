"""Rows for the search results and the quick switcher, and the delegate that paints them.

Both lists show the same shape — a bold title, a dim line saying what and
where the record is, and sometimes a passage with the searched words marked —
so one flat list model and one delegate serve both. The engine's answers
(grep hits, lookup candidates, name suggestions) are turned into plain row
dicts here, once, so painting never has to interpret engine data.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPointF,
    QRect,
    QSize,
    Qt,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QTextCharFormat, QTextLayout
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from knowledge_desktop.engine.query.text import fold, tokens
from knowledge_desktop.ui.render.values import literal

Index = QModelIndex | QPersistentModelIndex

KEY_ROLE = Qt.ItemDataRole.UserRole + 1
"""Vault-relative path to open."""
LINE_ROLE = Qt.ItemDataRole.UserRole + 2
"""One-based line to reveal, 0 for none."""
META_ROLE = Qt.ItemDataRole.UserRole + 3
NOTE_ROLE = Qt.ItemDataRole.UserRole + 4
SNIPPET_ROLE = Qt.ItemDataRole.UserRole + 5
SPANS_ROLE = Qt.ItemDataRole.UserRole + 6
"""[(start, length)] in UTF-16 units of the snippet: the searched words."""
DIM_ROLE = Qt.ItemDataRole.UserRole + 7
"""True for records that are not current (superseded, invalid, duplicate)."""

SNIPPET_LEAD = 40
"""Characters kept before the first marked word, so the mark shows in a narrow pane."""


def _meta(*parts: object) -> str:
    return " · ".join(str(p) for p in parts if p)


def highlight_spans(text: str, words: list[str]) -> list[tuple[int, int]]:
    """Where the searched words occur in `text` as whole tokens, folded like the index folds them.

    Offsets are UTF-16 units because that is how QTextLayout counts.
    """
    if not words or not text:
        return []
    pattern = re.compile(
        r"(?<![^\W_])(?:"
        + "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
        + r")(?![^\W_])"
    )
    folded = fold(text)
    spans = []
    for found in pattern.finditer(folded):
        start = _utf16(text[: found.start()])
        spans.append((start, _utf16(text[found.start() : found.end()])))
    return spans


def _utf16(text: str) -> int:
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_WIKILINK = re.compile(r"\[\[(?:[^\]|]*\|)?([^\]]*)\]\]")
_MARKUP = re.compile(r"(?m)^\s{0,3}(?:#{1,6}\s+|[-*+]\s+|>\s*)|\*\*|__|`|\s*\|\s*")


def plain_passage(text: str) -> str:
    """The passage as a reader sees it: link text without targets, no heading or emphasis marks.

    Snippets are raw Markdown; link targets and table pipes only take room
    in a two-line preview. The searched words are marked after this, on the
    text shown, so the marks stay in place.
    """
    text = _WIKILINK.sub(r"\1", _LINK.sub(r"\1", text))
    text = _MARKUP.sub(lambda m: " " if "|" in m.group(0) else "", text)
    return " ".join(text.split())


def _trim(text: str, words: list[str]) -> str:
    """Start the passage shortly before the first searched word, on a word boundary."""
    text = plain_passage(text)
    if not words:
        return text
    folded = fold(text)
    first = min((i for i in (folded.find(w) for w in words) if i >= 0), default=-1)
    if first <= SNIPPET_LEAD:
        return text
    cut = text.find(" ", first - SNIPPET_LEAD, first)
    return "…" + text[(cut + 1 if cut >= 0 else first - SNIPPET_LEAD) :]


def hit_row(hit: dict[str, Any], query: str) -> dict[str, Any]:
    """A grep hit: its passage marks the query words; a superseded-wording hit names the earlier record."""
    snippet = hit.get("snippet") or {}
    located = bool(snippet.get("matchLocated"))
    words = tokens(query) if located else []
    text = _trim(str(snippet.get("text") or ""), words)
    via = hit.get("via")
    note = f"via {via.get('title') or via.get('id')}" if isinstance(via, dict) else ""
    return {
        "title": hit.get("title") or hit.get("path"),
        "meta": _meta(hit.get("kind"), hit.get("type"), hit.get("path")),
        "note": note,
        "snippet": text,
        "spans": highlight_spans(text, words),
        "key": hit.get("path"),
        "line": int(snippet.get("lineStart") or 0) if located else 0,
        "dim": hit.get("lifecycle") not in (None, "active"),
        "id": hit.get("id"),
    }


def record_row(item: dict[str, Any]) -> dict[str, Any]:
    """A lookup candidate (an inventory item): one of several records with the same name."""
    return {
        "title": item.get("title") or item.get("path"),
        "meta": _meta(item.get("kind"), item.get("type"), item.get("path")),
        "note": item.get("id") or "",
        "snippet": "",
        "spans": [],
        "key": item.get("path"),
        "line": 0,
        "dim": item.get("lifecycle") not in (None, "active") or item.get("valid") is False,
        "id": item.get("id"),
    }


def suggestion_row(item: dict[str, Any]) -> dict[str, Any]:
    """A switcher suggestion: names the alias that matched, and says when a record is not current."""
    note = f"alias: {item['alias']}" if item.get("matched") == "alias" and item.get("alias") else ""
    if not item.get("eligible"):
        note = _meta(note, item.get("lifecycle") if item.get("lifecycle") != "active" else "not current")
    return {
        "title": item.get("title") or item.get("path"),
        "meta": _meta(item.get("type") or item.get("kind"), item.get("path")),
        "note": note,
        "snippet": "",
        "spans": [],
        "key": item.get("path"),
        "line": 0,
        "dim": not item.get("eligible"),
        "id": item.get("id"),
    }


class ResultsModel(QAbstractListModel):
    """A flat list of prepared rows; keys are vault-relative paths."""

    _ROLES: ClassVar[dict[int, str]] = {
        int(Qt.ItemDataRole.DisplayRole): "title",
        KEY_ROLE: "key",
        LINE_ROLE: "line",
        META_ROLE: "meta",
        NOTE_ROLE: "note",
        SNIPPET_ROLE: "snippet",
        SPANS_ROLE: "spans",
        DIM_ROLE: "dim",
    }

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[dict[str, Any]] = []

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def append_rows(self, rows: list[dict[str, Any]]) -> None:
        """The next page of results goes below the ones shown (a record shown already is skipped)."""
        shown = {r["key"] for r in self._rows}
        fresh = [r for r in rows if r["key"] not in shown]
        if not fresh:
            return
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(fresh) - 1)
        self._rows.extend(fresh)
        self.endInsertRows()

    def row_at(self, row: int) -> dict[str, Any]:
        return self._rows[row]

    def row_of(self, key: str | None) -> int:
        return next((i for i, r in enumerate(self._rows) if r["key"] == key), -1)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return literal("\n".join(str(v) for v in (row.get("id"), row["key"]) if v))
        name = self._ROLES.get(int(role))
        return row.get(name) if name else None


class ResultDelegate(QStyledItemDelegate):
    """Paints a row as title (bold) + note, a dim meta line, and up to two lines of passage."""

    PAD = 6
    SNIPPET_LINES = 2

    def _fonts(self, option: QStyleOptionViewItem) -> tuple[QFont, QFont, QFont]:
        base = QFont(option.font)
        title = QFont(base)
        title.setBold(True)
        small = QFont(base)
        small.setPointSizeF(max(base.pointSizeF() * 0.9, 7.0))
        return title, small, base

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        title, small, base = self._fonts(option)
        height = QFontMetrics(title).height() + QFontMetrics(small).height() + 2 * self.PAD + 2
        if index.data(SNIPPET_ROLE):
            height += QFontMetrics(base).lineSpacing() * self.SNIPPET_LINES + 2
        return QSize(200, height)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text_backup = opt.text
        opt.text = ""
        widget: QWidget | None = opt.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        opt.text = text_backup
        palette: QPalette = opt.palette
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        group = QPalette.ColorGroup.Normal
        text_colour = palette.color(
            group, QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        )
        dim_colour = QColor(text_colour)
        dim_colour.setAlphaF(0.65)
        title_font, small, base = self._fonts(opt)
        rect: QRect = opt.rect.adjusted(self.PAD + 2, self.PAD, -self.PAD, -self.PAD)
        painter.save()
        painter.setClipRect(opt.rect)

        # Title, then the note (alias, "via …") in the space left on the same line.
        title_metrics = QFontMetrics(title_font)
        title = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        note = str(index.data(NOTE_ROLE) or "")
        note_width = min(QFontMetrics(small).horizontalAdvance(note) + 12, rect.width() // 2) if note else 0
        elided = title_metrics.elidedText(title, Qt.TextElideMode.ElideRight, rect.width() - note_width)
        painter.setFont(title_font)
        painter.setPen(dim_colour if index.data(DIM_ROLE) else text_colour)
        line_rect = QRect(rect.left(), rect.top(), rect.width(), title_metrics.height())
        painter.drawText(line_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, elided)
        if note:
            used = title_metrics.horizontalAdvance(elided) + 10
            note_font = QFont(small)
            note_font.setItalic(True)
            painter.setFont(note_font)
            painter.setPen(dim_colour)
            note_rect = line_rect.adjusted(used, 0, 0, 0)
            painter.drawText(
                note_rect,
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                QFontMetrics(note_font).elidedText(note, Qt.TextElideMode.ElideRight, note_rect.width()),
            )
        top = line_rect.bottom() + 1

        # What and where: kind · type · path.
        small_metrics = QFontMetrics(small)
        painter.setFont(small)
        painter.setPen(dim_colour)
        meta = str(index.data(META_ROLE) or "")
        meta_rect = QRect(rect.left(), top, rect.width(), small_metrics.height())
        painter.drawText(
            meta_rect,
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            small_metrics.elidedText(meta, Qt.TextElideMode.ElideMiddle, rect.width()),
        )
        top = meta_rect.bottom() + 3

        snippet = str(index.data(SNIPPET_ROLE) or "")
        if snippet:
            self._paint_snippet(
                painter, snippet, index.data(SPANS_ROLE) or [], base, rect, top, palette, selected
            )
        painter.restore()
        # A faint rule between rows: the passages of neighbours otherwise run together.
        rule = QColor(palette.color(QPalette.ColorRole.Mid))
        rule.setAlphaF(0.35)
        painter.save()
        painter.setPen(rule)
        painter.drawLine(opt.rect.bottomLeft(), opt.rect.bottomRight())
        painter.restore()

    def _paint_snippet(
        self,
        painter: QPainter,
        text: str,
        spans: list[tuple[int, int]],
        font: QFont,
        rect: QRect,
        top: int,
        palette: QPalette,
        selected: bool,
    ) -> None:
        """Up to two wrapped lines; the searched words bold on a tint of the selection colour."""
        layout = QTextLayout(text, font)
        marks = []
        for start, length in spans:
            fmt = QTextCharFormat()
            fmt.setFontWeight(QFont.Weight.Bold)
            if selected:
                fmt.setFontUnderline(True)
            else:
                tint = QColor(palette.color(QPalette.ColorRole.Highlight))
                tint.setAlphaF(0.28)
                fmt.setBackground(tint)
            mark = QTextLayout.FormatRange()
            mark.start, mark.length, mark.format = start, length, fmt
            marks.append(mark)
        layout.setFormats(marks)
        layout.beginLayout()
        y = 0.0
        for _ in range(self.SNIPPET_LINES):
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(rect.width())
            line.setPosition(QPointF(0, y))
            y += line.height()
        layout.endLayout()
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        painter.setPen(palette.color(QPalette.ColorGroup.Normal, role))
        painter.setClipRect(QRect(rect.left(), top, rect.width(), int(y) + 1))
        layout.draw(painter, QPointF(rect.left(), top))
