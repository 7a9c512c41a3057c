"""A hostile vault in the window: nothing shown loads a resource, runs, or opens (issue 13 §2).

Qt guesses the format of a tooltip, of a QLabel's text and of a message box: a first line
holding a tag makes it rich text, and rich text loads `<img src>` from any local path (a
record titled `<img src="/dev/zero">` would fill the memory). So every piece of text the
window shows is checked the way Qt will read it, and none may carry an image. The record
pane's own document must load nothing even when handed an image.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QTextDocument
from PySide6.QtGui import Qt as QtGui
from PySide6.QtWidgets import QAbstractItemView, QLabel, QWidget
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.render.values import literal
from knowledge_desktop.ui.widgets.record_browser import ClosedDocument, RecordBrowser
from tests.ui.textkit import char_formats
from tests.vaultkit import (
    HOSTILE_NOTE,
    HOSTILE_TITLE,
    LINKS_NOTE,
    Hostile,
    VaultKit,
    hostile_vault,
    wait_idle,
)

OpenWindow = Callable[..., MainWindow]


@pytest.fixture
def hostile(kit: VaultKit, tmp_path: Path) -> Hostile:
    return hostile_vault(kit, tmp_path / "outside")


def images(document: QTextDocument) -> list[str]:
    """The image names a laid-out document asks for."""
    return [fmt.toImageFormat().name() for fmt in char_formats(document) if fmt.isImageFormat()]


def as_qt_reads(text: str, fmt: Qt.TextFormat = Qt.TextFormat.AutoText) -> tuple[str, list[str]]:
    """(the text a person sees, the images Qt would load) for `text` shown in `fmt`."""
    rich = fmt == Qt.TextFormat.RichText or (fmt == Qt.TextFormat.AutoText and QtGui.mightBeRichText(text))
    if not rich:
        return text, []
    document = ClosedDocument()  # parses the markup without loading what it names
    document.setHtml(text)
    return document.toPlainText(), images(document)


def indexes(model: QAbstractItemModel, parent: QModelIndex | None = None) -> Iterator[QModelIndex]:
    parent = parent or QModelIndex()
    try:
        columns = model.columnCount(parent)
    except TypeError:  # a list model keeps columnCount private: one column
        columns = 1
    for row in range(model.rowCount(parent)):
        for column in range(columns):
            index = model.index(row, column, parent)
            yield index
            if column == 0:
                yield from indexes(model, index)


def shown_texts(window: MainWindow) -> list[tuple[str, str, Qt.TextFormat]]:
    """(where, text, format) of every label, widget tooltip, item tooltip and record-pane
    tooltip the window holds now."""
    out: list[tuple[str, str, Qt.TextFormat]] = []
    for label in window.findChildren(QLabel):
        out.append((f"label {label.objectName()}", label.text(), label.textFormat()))
    for widget in window.findChildren(QWidget):
        if widget.toolTip():
            out.append((f"tooltip of {type(widget).__name__}", widget.toolTip(), Qt.TextFormat.AutoText))
    for view in window.findChildren(QAbstractItemView):
        model = view.model()
        if model is None:
            continue
        for index in indexes(model):
            tip = index.data(Qt.ItemDataRole.ToolTipRole)
            if tip:
                out.append((f"item tooltip in {type(model).__name__}", str(tip), Qt.TextFormat.AutoText))
    for fmt in char_formats(window.record.browser.document()):
        if tip := fmt.toolTip():
            out.append(("record pane tooltip", tip, Qt.TextFormat.AutoText))
    for line, message in window.record.source.line_messages.items():
        out.append((f"source gutter line {line}", literal(message), Qt.TextFormat.AutoText))
    return out


def open_and_wait(qtbot: QtBot, window: MainWindow, key: str) -> None:
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        window.open_record(key)
    qtbot.waitUntil(
        lambda: window.record.loaded is not None and window.record.loaded.path == key, timeout=10_000
    )
    wait_idle(qtbot, window)


def test_no_text_the_window_shows_loads_an_image(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, hostile: Hostile
) -> None:
    """Every label, tooltip (widgets, catalog, search, backlinks, timeline, diagnostics,
    the record's links and source gutter) and the record header, with a record whose
    title, alias, file name and links carry `<img>` and `<script>` open, shows the markup
    as text: Qt would load no image for any of it."""
    window = open_window(kit.root, watch=False)
    qtbot.keyClicks(window.search.field, "script")
    qtbot.waitUntil(lambda: window.search.model.rowCount() > 0, timeout=10_000)
    wait_idle(qtbot, window)
    seen: list[tuple[str, str, Qt.TextFormat]] = []
    for key in (HOSTILE_NOTE, "private/people/ada.md", LINKS_NOTE):
        open_and_wait(qtbot, window, key)
        seen += shown_texts(window)
    loading = [(where, text) for where, text, fmt in seen if as_qt_reads(text, fmt)[1]]
    assert loading == []
    shown = [as_qt_reads(text, fmt)[0] for _, text, fmt in seen]
    assert any(hostile.picture_tag in text for text in shown)  # the markup was there, as text
    assert any(HOSTILE_TITLE in text for text in shown)


def test_a_message_box_shows_a_hostile_message_as_text() -> None:
    """A warning that quotes a file name or an error shows its markup as written."""
    text, loaded = as_qt_reads(literal('Cannot write <img src="/dev/zero">: denied'))
    assert loaded == []
    assert text == 'Cannot write <img src="/dev/zero">: denied'


def test_the_record_document_loads_no_image_from_anywhere(qtbot: QtBot, hostile: Hostile) -> None:
    """Record pane: even markup with `<img>` handed straight to the browser loads nothing;
    Qt would otherwise read a local path or a `file:` URL itself, whatever the browser's
    own loader answers."""
    browser = RecordBrowser()
    qtbot.addWidget(browser)
    sources = [
        str(hostile.picture),
        QUrl.fromLocalFile(str(hostile.picture)).toString(),
        "https://example.com/pixel.png",
        "data:image/png;base64,iVBORw0KGgo=",
    ]
    browser.setHtml("<p>" + "".join(f'<img src="{s}">' for s in sources) + "</p>")
    browser.show()
    qtbot.waitExposed(browser)
    for source in sources:
        loaded = browser.document().resource(QTextDocument.ResourceType.ImageResource, QUrl(source))
        assert loaded is not None
        assert (loaded.width(), loaded.height()) == (1, 1), source  # the blank pixel, nothing fetched


def test_the_rendered_hostile_record_holds_no_image_and_no_script(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, hostile: Hostile
) -> None:
    """Rendered Markdown: `<script>`, `<img>` (remote and local), `![](https://…)`,
    `<iframe>` and `onerror=` come out as text; the laid-out document has no image and
    its links are only records, source lines, sections and web or mail addresses."""
    window = open_window(kit.root, watch=False)
    for key in (LINKS_NOTE, HOSTILE_NOTE):
        open_and_wait(qtbot, window, key)
        document = window.record.browser.document()
        assert images(document) == []
        text = document.toPlainText()
        assert "<script>alert(1)</script>" in text or "<script>alert('body')</script>" in text
        loaded = window.record.loaded
        assert loaded is not None
        for html in (loaded.header, loaded.document):
            tags, attributes = markup(html)
            assert tags <= RECORD_TAGS, (key, tags - RECORD_TAGS)
            assert attributes <= RECORD_ATTRIBUTES, (key, attributes - RECORD_ATTRIBUTES)
        for href in anchors(document):
            assert href.split(":", 1)[0] in {"record", "line", "https", "http", "mailto"} or href.startswith(
                "#"
            )


RECORD_TAGS = {"html", "head", "style", "body", "div", "p", "span", "a", "b", "i", "em", "strong", "code"}
RECORD_TAGS |= {"pre", "sup", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote"}
RECORD_TAGS |= {"table", "thead", "tbody", "tr", "th", "td", "s", "del"}
RECORD_ATTRIBUTES = {"href", "title", "class", "style", "id", "width", "bgcolor", "border"}
RECORD_ATTRIBUTES |= {"cellspacing", "cellpadding", "colspan", "rowspan", "align"}


class _Markup(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)


def markup(html: str) -> tuple[set[str], set[str]]:
    """The tags and attribute names of `html`."""
    parsed = _Markup()
    parsed.feed(html)
    parsed.close()
    return parsed.tags, parsed.attributes


def anchors(document: QTextDocument) -> list[str]:
    return [fmt.anchorHref() for fmt in char_formats(document) if fmt.isAnchor() and fmt.anchorHref()]


REFUSED = [
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "data:text/html;base64,PHNjcmlwdD4=",
    "file:///etc/passwd",
    "vbscript:msgbox(1)",
    "../../outside/secret.md",
    "/etc/passwd",
    "ftp://example.com/x",
]


def test_clicking_a_refused_address_neither_opens_nor_navigates(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, hostile: Hostile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Record pane: a click on `javascript:`, `data:`, `file:`, other schemes or a path out
    of the vault hands nothing to the desktop and opens no record; the pane says why."""
    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda url: opened.append(url.toString())))
    window = open_window(kit.root, watch=False)
    open_and_wait(qtbot, window, LINKS_NOTE)
    history = window.history.can_back()
    for address in REFUSED:
        window.record.browser.anchorClicked.emit(QUrl(address))
        window.record.header.linkActivated.emit(address)
        wait_idle(qtbot, window)
        assert window.current_path == LINKS_NOTE
        assert "Not opened" in window.statusBar().currentMessage()
    assert opened == []
    assert window.history.can_back() == history
    assert all(
        not href.startswith(("javascript", "data", "file"))
        for href in anchors(window.record.browser.document())
    )


def test_the_editor_is_not_opened_on_a_link_to_outside(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, hostile: Hostile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Record › Open in Editor on a listed link to a file outside the vault hands nothing
    to the desktop (the editor would open what it points at) and says why; a record of the
    vault still opens."""
    opened: list[str] = []
    monkeypatch.setattr(
        QDesktopServices, "openUrl", staticmethod(lambda url: opened.append(url.toLocalFile()))
    )
    window = open_window(kit.root, watch=False)
    open_and_wait(qtbot, window, "private/notes/out.md")
    window.commands.edit.trigger()
    assert opened == []
    assert "leads outside the vault" in window.statusBar().currentMessage()
    assert "TOP SECRET" not in window.record.source.toPlainText()
    assert window.record.loaded is not None
    assert "leads outside the vault" in (window.record.loaded.notice or "")
    open_and_wait(qtbot, window, "private/people/ada.md")
    window.commands.edit.trigger()
    assert opened == [str(kit.root / "private/people/ada.md")]
