"""What a laid-out QTextDocument holds (its images, links, tooltips), for the window tests.

Qt gives no list of a document's character formats, only blocks of fragments to walk;
the tests that look for images or links in the record pane walk them here.
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtGui import QTextCharFormat, QTextDocument


def char_formats(document: QTextDocument) -> Iterator[QTextCharFormat]:
    """Every fragment's character format, block by block in reading order."""
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            yield it.fragment().charFormat()
            it += 1
        block = block.next()
