"""The read-only browser the Record pane and the History tab render records in: it never
navigates itself and never loads a resource (see `ClosedDocument`)."""

from __future__ import annotations

from functools import cache
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QImage, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget


class ClosedDocument(QTextDocument):
    """A document that loads no resource: no image, no style sheet, from anywhere.

    Refusing in the browser's `loadResource` is not enough: when the browser
    answers nothing, `QTextDocument.loadResource` itself reads any local path
    or `file:` URL and decodes `data:` URLs, and Qt's image handler, given no
    image, loads the `src` from disk itself. So every image is answered with
    one blank pixel and every other resource with nothing. The renderer emits
    no `<img>`; this holds even if some markup ever slipped through."""

    def loadResource(self, kind: int, _name: QUrl | str) -> Any:
        if kind == QTextDocument.ResourceType.ImageResource:
            return _blank_image()
        return None


@cache
def _blank_image() -> QImage:
    image = QImage(1, 1, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    return image


class RecordBrowser(QTextBrowser):
    """A QTextBrowser that never navigates itself and never loads anything."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDocument(ClosedDocument(self))
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFrameShape(QTextBrowser.Shape.NoFrame)

    def loadResource(self, _kind: int, _name: QUrl | str) -> Any:
        """Refuse every resource: the rendered HTML has no images or style sheets to fetch."""
        return None
