"""The Repository pane's evidence viewer: a file with the cited lines highlighted, or a commit.

Read-only. `read_region` and `read_commit` run on a worker (they read files
and Git objects) and return what `RegionViewer.show_*` places. A region is
checked against its `regionHash` (docs/extraction.md: the region's exact
bytes, each line with its own ending), so a file edited since the last
extraction says so instead of highlighting lines that now hold other text.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QTextEdit, QVBoxLayout, QWidget

from knowledge_desktop.engine.extraction.commit_details import CommitDetails, commit_details

MAX_VIEW_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Region:
    path: str
    text: str
    start: int
    end: int
    matches: bool
    """The cited bytes still hash to the evidence's regionHash."""


def region_bytes(data: bytes, start: int, end: int) -> bytes:
    """Lines `start..end` of `data`, each with its own ending, as the engine hashes them."""
    return b"".join(data.splitlines(keepends=True)[start - 1 : end])


def read_region(root: Path, evidence: dict[str, Any]) -> Region:
    """The file of a document-region evidence, for the viewer (on a worker)."""
    path = str(evidence["path"])
    file = root / path
    if file.stat().st_size > MAX_VIEW_BYTES:
        raise OSError(f"{file}: too large to show")
    data = file.read_bytes()
    start, end = int(evidence["lineStart"]), int(evidence["lineEnd"])
    digest = hashlib.sha256(region_bytes(data, start, end)).hexdigest()
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    return Region(path, text, start, end, digest == evidence.get("regionHash"))


def region_text(root: Path, evidence: dict[str, Any], limit: int = 400) -> str:
    """The region's text on one line, cut at `limit` characters (a concept's definition)."""
    try:
        data = (root / str(evidence["path"])).read_bytes()
    except OSError:
        return ""
    raw = region_bytes(data, int(evidence["lineStart"]), int(evidence["lineEnd"]))
    text = " ".join(raw.decode("utf-8", errors="replace").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def read_commit(root: Path, sha: str) -> CommitDetails:
    return commit_details(root, sha)


class RegionViewer(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = QLabel("Activate an entity or its evidence to see it here.")
        self.caption.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.region: Region | None = None
        self.commit: CommitDetails | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.caption)
        layout.addWidget(self.text)

    def show_region(self, region: Region) -> None:
        self.region, self.commit = region, None
        lines = f"line {region.start}" if region.start == region.end else f"lines {region.start}–{region.end}"
        stale = "" if region.matches else " — the file changed since it was read; refreshing"
        self.caption.setText(f"{region.path}, {lines}{stale}")
        self.text.setPlainText(region.text)
        doc = self.text.document()
        first = doc.findBlockByNumber(region.start - 1)
        last = doc.findBlockByNumber(region.end - 1)
        cursor = QTextCursor(first)
        if last.isValid():
            cursor.setPosition(last.position() + max(0, last.length() - 1), QTextCursor.MoveMode.KeepAnchor)
        selection = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(255, 236, 150))
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
        selection.format = fmt
        selection.cursor = cursor
        self.text.setExtraSelections([selection])
        # Scroll so the region starts near the top, with a line of context above it.
        self.text.moveCursor(QTextCursor.MoveOperation.End)
        self.text.setTextCursor(QTextCursor(doc.findBlockByNumber(max(0, region.start - 2))))
        self.text.centerCursor() if region.end - region.start > 20 else self.text.ensureCursorVisible()
        self.text.setTextCursor(QTextCursor(first))

    def highlighted_lines(self) -> tuple[int, int] | None:
        """The one-based lines highlighted now (for tests and the status line)."""
        sel = self.text.extraSelections()
        if not sel:
            return None
        doc = self.text.document()
        c = sel[0].cursor
        return doc.findBlock(c.selectionStart()).blockNumber() + 1, doc.findBlock(
            c.selectionEnd()
        ).blockNumber() + 1

    def show_commit(self, details: CommitDetails) -> None:
        self.region, self.commit = None, details
        self.caption.setText(f"Commit {details.sha[:12]} — {details.subject}")
        rows = [
            f"commit {details.sha}",
            f"Author: {details.author}",
            f"Date:   {details.date}",
        ]
        if len(details.parents) > 1:
            rows.append(f"Merge: compared with its first parent {details.parents[0][:12]}")
        rows += ["", *("    " + line for line in details.message.rstrip("\n").split("\n")), ""]
        if not details.paths_known:
            rows.append("Touched paths: not known (a shallow clone: this commit's parents are not here)")
        else:
            rows.append(f"Touched paths ({len(details.touched)}):")
        for t in details.touched:
            where = f"{t.old_path} → {t.path}" if t.old_path else t.path
            rows.append(f"  {t.status:<9} {where}")
        self.text.setExtraSelections([])
        self.text.setPlainText("\n".join(rows))

    def show_message(self, text: str) -> None:
        self.region = self.commit = None
        self.caption.setText(text)
        self.text.setExtraSelections([])
        self.text.clear()
