"""The Record pane: the record in focus, rendered, with its raw source one tab away.

Loading happens on a worker (`load_record`): it asks the vault for the
record (`Vault.show`) and for the names, evidence checks and type definition
around it (`Vault.record_context`), reads the file's bytes for the source
view, and renders the HTML there too, so a long body never stalls the
window. The UI thread only swaps the finished pieces in.

What the pane keeps current (issue 5, live vault): when a change touches
the file in focus — or a record it names, or the ontology — it loads again
and keeps the scroll position; when the file disappears it keeps the last
content under a "Deleted" banner, or "Moved" with a link when the same id
now lives at another path.

Links never navigate the browser itself: every click goes through
`_follow`, which opens records through `open_requested`, jumps to source
lines, hands http(s)/mailto to the desktop and refuses everything else.
"""

from __future__ import annotations

import codecs
import posixpath
import re
from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QEvent, Qt, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices, QImage, QPalette, QTextDocument
from PySide6.QtWidgets import QLabel, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from knowledge_desktop.engine.changes import ChangeSet
from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.fs.inside import open_inside, read_inside, real_path
from knowledge_desktop.engine.links.extract import MAX_BRACKET_DEPTH, bracket_depth
from knowledge_desktop.engine.query.inventory import RecordFilter
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.panes.base import Pane
from knowledge_desktop.ui.panes.record_facts import FactsTab
from knowledge_desktop.ui.panes.record_history import HistoryTab
from knowledge_desktop.ui.panes.record_related import RelatedLine
from knowledge_desktop.ui.render import (
    Colors,
    parse_anchor,
    render_document,
    render_gone_banner,
    render_header,
)
from knowledge_desktop.ui.render.markdown import Embedded, Hooks, generated_targets
from knowledge_desktop.ui.tasks import Runner
from knowledge_desktop.ui.widgets.record_browser import RecordBrowser
from knowledge_desktop.ui.widgets.source_view import SourceView

GENERATED_LOOKUPS = 50
"""At most this many links of generated sections are looked up to make them followable."""
RENDER_LIMIT = 1024 * 1024
"""Bodies larger than this (bytes) are not rendered; the source view shows them."""
SOURCE_LIMIT = 4 * 1024 * 1024
"""The source view shows at most this many bytes of a file."""
LINE_LIMIT = 10_000
"""The source view cuts lines longer than this, and a body with a longer run of text
without a space is not rendered: Qt lays out a whole line to draw any of it, in time
that grows with the square of its length (a 4 MiB line held the window for seconds)."""
_LONG_LINE = re.compile(f"[^\n]{{{LINE_LIMIT + 1},}}")
_UNBROKEN = re.compile(f"\\S{{{LINE_LIMIT + 1}}}")
EMPTY_TEXT = "Select a record in the catalog, or press Ctrl+K to search."
RENDERED_TAB, SOURCE_TAB, HISTORY_TAB, FACTS_TAB = 0, 1, 2, 3
IMAGE_LIMIT = 16 * 1024 * 1024
"""Images larger than this (bytes) are not shown."""
IMAGE_COUNT = 64
"""At most this many images are read for one file (embeds included)."""
IMAGE_WIDTH = 640
"""Wider images are scaled down to this width."""
EMBED_COUNT = 32
"""At most this many embedded notes are read for one file."""
IMAGE_SCHEME = "vault-image"


@dataclass(frozen=True)
class Loaded:
    """Everything the pane shows for one file, built on a worker."""

    path: str
    view: dict[str, Any]
    context: dict[str, Any]
    source: str
    marks: list[tuple[int, str]]
    render_body: bool
    notice: str | None
    header: str
    document: str
    gone: bool = False
    moved_to: dict[str, Any] | None = None
    images: dict[str, QImage] | None = None
    """The decoded images the document shows, by the resource name in its `<img src>`."""


def _cut_line(match: re.Match[str]) -> str:
    line = match.group()
    return f"{line[:LINE_LIMIT]} … [{len(line) - LINE_LIMIT:,} more characters]"


def read_source(vault: Vault, path: str) -> tuple[str, str | None, bool]:
    """The file's text for the source view, a notice when it is not shown whole
    or not UTF-8, and whether the body may be rendered."""
    try:
        with open_inside(vault.root, path) as handle:  # never a link to outside the vault
            data = handle.read(SOURCE_LIMIT + 1)
            size = handle.seek(0, 2)
    except OSError as exc:
        return "", f"The file cannot be read: {exc.strerror or exc}.", False
    truncated = len(data) > SOURCE_LIMIT
    data = data[:SOURCE_LIMIT]
    notes: list[str] = []
    renderable = size <= RENDER_LIMIT
    try:
        text = codecs.getincrementaldecoder("utf-8")("strict").decode(data, final=not truncated)
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        notes.append("This file is not valid UTF-8 text; the source view shows it with replacement marks.")
        renderable = False
    if "\x00" in text:
        text = text.replace("\x00", "\u2400")
        if renderable:
            notes.append("This file holds NUL bytes, so it is not text; only its source is shown.")
        renderable = False
    if renderable and bracket_depth(text) > MAX_BRACKET_DEPTH:
        # Markdown's link rule scans ahead from every `[`: deep nesting costs it minutes.
        notes.append("Its [ brackets nest too deeply to render; see the Source tab.")
        renderable = False
    if renderable and _UNBROKEN.search(text):
        notes.append(f"It has a run of over {LINE_LIMIT:,} characters without a space, too long to render.")
        renderable = False
    if _LONG_LINE.search(text):
        text = _LONG_LINE.sub(_cut_line, text)
        notes.append(f"The Source tab cuts lines after {LINE_LIMIT:,} characters.")
    if size > RENDER_LIMIT:
        megabytes = size / (1024 * 1024)
        notes.append(f"This file is {megabytes:.1f} MiB, too large to render; see the Source tab.")
    if truncated:
        notes.append(f"The Source tab shows its first {SOURCE_LIMIT // (1024 * 1024)} MiB.")
    return text.removeprefix("\ufeff"), " ".join(notes) or None, renderable


def resolve_generated(vault: Vault, view: dict[str, Any]) -> dict[tuple[str, str], str]:
    """Runs on a worker: the record each link of a generated backlinks section names, when
    exactly one current record does. Those links are not the record's own (the index leaves
    them out), so they are looked up here only to let the reader follow them."""
    body = view.get("body") or ""
    if "backlinks:start" not in body:
        return {}
    scope = view.get("scope")
    folder = posixpath.dirname(str(view.get("path") or ""))
    found: dict[tuple[str, str], str] = {}
    for kind, target in generated_targets(body)[:GENERATED_LOOKUPS]:
        key = _generated_key(vault, kind, target, scope, folder)
        if key is not None:
            found[(kind, target)] = key
    return found


def _generated_key(vault: Vault, kind: str, target: str, scope: Any, folder: str) -> str | None:
    if kind == "markdown":
        paths = [posixpath.normpath(posixpath.join(folder, target))]
    else:
        written = target if target.lower().endswith(".md") else target + ".md"
        paths = [f"{scope}/{written}"] if isinstance(scope, str) and "/" in target else []
    for candidate in paths:
        rows = vault.find(candidate)
        if len(rows) == 1 and rows[0].get("path") == candidate:
            return candidate
    if kind != "wiki":
        return None
    try:
        answer = vault.lookup(target, RecordFilter(scope=scope if isinstance(scope, str) else None))
    except QueryError:
        return None
    record = answer.get("record") if answer.get("status") == "found" else None
    return str(record["path"]) if isinstance(record, dict) and record.get("path") else None


class NoteHooks:
    """Runs on the worker that renders a file: reads embedded notes (`Vault.show`) and the
    images a body shows, each only when it is a regular file inside the vault (`read_inside`
    refuses a path or a link leading out), decoded here into a QImage the document is
    handed by name. Nothing else is ever loaded: the document refuses every other resource."""

    def __init__(self, vault: Vault, path: str, scope: Any = None) -> None:
        self.vault = vault
        self.images: dict[str, QImage] = {}
        self._named: dict[str, str | None] = {}
        self._embeds = 0
        self._scope = scope
        self._folder = posixpath.dirname(path)
        self.hooks = Hooks(
            embed=self.embed,
            image=self.image,
            resolve=self.resolve,
            folder=self._folder,
            seen=frozenset({path}),
        )

    def resolve(self, target: str) -> str | None:
        """An embed a record makes (the index keeps no row for it): looked up as a link."""
        if self._embeds >= EMBED_COUNT:
            return None
        return _generated_key(self.vault, "wiki", target, self._scope, self._folder)

    def embed(self, path: str) -> Embedded | None:
        self._embeds += 1
        if self._embeds > EMBED_COUNT:
            return None
        try:
            view = self.vault.show(path)
        except (QueryError, OSError):
            return None
        title = str(view.get("title") or posixpath.basename(path).removesuffix(".md"))
        return Embedded(
            path,
            title,
            str(view.get("body") or ""),
            int(view.get("bodyLine") or 1),
            view.get("references") or [],
        )

    def image(self, paths: Any) -> str | None:
        for rel in paths:
            if rel not in self._named:
                self._named[rel] = self._read(rel)
            if self._named[rel] is not None:
                return self._named[rel]
        return None

    def _read(self, rel: str) -> str | None:
        if len(self.images) >= IMAGE_COUNT:
            return None
        try:
            data = read_inside(self.vault.root, rel, IMAGE_LIMIT)
        except OSError:
            return None
        image = QImage.fromData(data)
        if image.isNull():
            return None
        if image.width() > IMAGE_WIDTH:
            image = image.scaledToWidth(IMAGE_WIDTH, Qt.TransformationMode.SmoothTransformation)
        name = f"{IMAGE_SCHEME}:{len(self.images)}"
        self.images[name] = image
        return name


def load_record(vault: Vault, path: str, colors: Colors, previous: Loaded | None) -> Loaded:
    """Runs on a worker: the record at `path`, or — when it is gone — the last one marked gone."""
    rows = vault.find(path)
    if not rows or rows[0]["path"] != path:
        if previous is None or previous.path != path:
            raise QueryError(f"{path} is not in this vault (it may have been deleted or moved)")
        moved: dict[str, Any] | None = None
        old_id = previous.view.get("id")
        if old_id:
            moved = next((r for r in vault.find(str(old_id)) if r["path"] != path), None)
        banner = render_gone_banner(path, moved, colors)
        document = render_document(
            previous.view,
            previous.context,
            colors,
            banners=banner,
            notice=previous.notice,
            render_body=previous.render_body,
        )
        return replace(previous, document=document, gone=True, moved_to=moved)
    view = vault.show(path)
    context = vault.record_context(path)
    context["generatedLinks"] = resolve_generated(vault, view)
    source, notice, renderable = read_source(vault, path)
    marks = [
        (int(d["line"]), f"{d['severity']}: {d['message']}")
        for d in view.get("diagnostics") or []
        if isinstance(d.get("line"), int)
    ]
    reader = NoteHooks(vault, path, view.get("scope"))
    document = render_document(
        view, context, colors, notice=notice, render_body=renderable, hooks=reader.hooks
    )
    return Loaded(
        path=path,
        view=view,
        context=context,
        source=source,
        marks=marks,
        render_body=renderable,
        notice=notice,
        header=render_header(view, context, colors),
        document=document,
        images=reader.images,
    )


def citation(view: dict[str, Any]) -> str:
    """One line naming exactly this version of the record.

    Format: `<title> (<id>, revision <n>) — <vault-relative path> sha256:<hex>`;
    a file that is not a record gives `<path> sha256:<hex>`. The hash is of
    the file's bytes as indexed, so a reader can tell whether the file still
    says what was cited.
    """
    tail = f"{view.get('path')} sha256:{view.get('hash')}"
    if view.get("status") != "record" or not view.get("id"):
        return tail
    title = " ".join(str(view.get("title") or "(untitled)").split())
    return f"{title} ({view['id']}, revision {view.get('revision')}) — {tail}"


def _blend(base: QColor, over: QColor, amount: float) -> str:
    mixed = QColor(
        round(base.red() + (over.red() - base.red()) * amount),
        round(base.green() + (over.green() - base.green()) * amount),
        round(base.blue() + (over.blue() - base.blue()) * amount),
    )
    return mixed.name()


class RecordPane(Pane):
    title = "Record"
    tag_requested = Signal(str)
    """A `#tag` in the rendered text was clicked: show what carries it (name without `#`)."""
    # `reads` stays every projection: the pane shows a record's row, links, dates,
    # diagnostics and its body, which a text-only change edits; `apply_change` narrows
    # by path and id.

    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(runner, parent)
        self.loaded: Loaded | None = None
        self._pending_line = 0
        self._pending_anchor: tuple[str, str] | None = None
        self._keep_scroll = False

        self.empty = QLabel(EMPTY_TEXT)
        self.empty.setTextFormat(Qt.TextFormat.PlainText)  # it can carry a message naming a path
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setEnabled(False)  # drawn in the palette's disabled (greyed) text colour

        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.header.setOpenExternalLinks(False)
        self.header.linkActivated.connect(self._follow)
        self.header.setContentsMargins(10, 8, 10, 6)

        self.browser = RecordBrowser()
        self.browser.anchorClicked.connect(
            lambda url: self._follow(url.toString(QUrl.ComponentFormattingOption.FullyEncoded))
        )
        self.browser.highlighted.connect(self._hover)
        self.source = SourceView()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.browser, "Rendered")
        self.tabs.addTab(self.source, "Source")
        self.tabs.setTabToolTip(SOURCE_TAB, "The file as it is on disk, with line numbers (Ctrl+U)")
        self.history = HistoryTab(runner, self._colors)  # its versions and diffs: panes/record_history.py
        self.tabs.addTab(self.history, "History")
        # The page's facts, a tab only while it has some (record_facts.py). It belongs to the
        # pane even while no tab shows it: a widget Python alone owns is destroyed by whichever
        # thread collects its cycle, often a worker (tests/ui/test_window_lifetime.py).
        self.facts = FactsTab(runner, self)
        self.facts.hide()
        self.facts.available.connect(self._facts_available)

        content = QWidget()
        column = QVBoxLayout(content)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.header)
        column.addWidget(self.tabs, 1)
        self.related = RelatedLine(runner)  # nearest by meaning, not linked: record_related.py
        self.related.linkActivated.connect(self._follow)
        column.addWidget(self.related)

        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(content)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self.setFocusProxy(self.browser)

    def focus_target(self) -> QWidget:
        tab = self.tabs.currentIndex()
        return self.source if tab == SOURCE_TAB else self.history.tree if tab == HISTORY_TAB else self.browser

    # -- the Pane contract ---------------------------------------------------------
    def set_vault(self, vault: Vault | None) -> None:
        self.loaded = None
        self._pending_line = 0
        super().set_vault(vault)

    def set_current(self, path: str | None) -> None:
        same = path == self.current and self.loaded is not None and self.loaded.path == path
        super().set_current(path)
        self._pending_line = 0
        if path is None:
            self.loaded = None
            self._show_empty(EMPTY_TEXT)
        elif not same or (self.loaded is not None and self.loaded.gone):
            self._load(keep_scroll=same)
        else:
            self.stack.setCurrentIndex(1)  # the record again, over the welcome page (Back)

    def refresh(self) -> None:
        if self.current is None:
            self._show_empty(EMPTY_TEXT)
        else:
            self._load(keep_scroll=True)

    def apply_change(self, change: ChangeSet) -> None:
        """Reload when the change touches this file, a record it names, or the ontology."""
        self.facts.apply_change(change)
        if self.current is None or self.vault is None or not change.touches(*self.reads):
            return
        touched = set(change.paths) | set(change.affected_paths)
        ids = set(change.added) | set(change.changed) | set(change.removed)
        named: set[str] = set()
        if self.loaded is not None:
            named = set(self.loaded.context.get("names") or {})
            if self.loaded.view.get("id"):
                named.add(str(self.loaded.view["id"]))
        if self.current in touched or ids & named or change.ontology_changed:
            self._load(keep_scroll=True)

    # -- what the window asks for -----------------------------------------------------
    def reveal_line(self, line: int) -> None:
        """Show the file's source scrolled to one-based `line`, highlighted."""
        if line <= 0:
            return
        if self.loaded is not None and self.loaded.path == self.current and not self._loading():
            self.tabs.setCurrentIndex(SOURCE_TAB)
            self.source.goto_line(line)
        else:
            self._pending_line = line

    def show_source(self) -> None:
        """Switch to the raw Markdown view (Ctrl+U toggles back to the rendered one)."""
        if self.loaded is None:
            return
        showing_source = self.tabs.currentIndex() == SOURCE_TAB
        self.tabs.setCurrentIndex(RENDERED_TAB if showing_source else SOURCE_TAB)
        self.focus_target().setFocus()

    def copy_text(self, name: str) -> str | None:
        """The current record's `id`, `path` or `citation` (see `citation` for its format)."""
        if self.loaded is None:
            return None
        view = self.loaded.view
        if name == "id":
            return str(view["id"]) if view.get("id") else None
        if name == "path":
            return self.loaded.path
        if name == "citation":
            return citation(view)
        return None

    # -- loading --------------------------------------------------------------------------
    def _loading(self) -> bool:
        return self.loaded is None or self.loaded.path != self.current

    def _load(self, keep_scroll: bool) -> None:
        vault, path = self.vault, self.current
        if vault is None or path is None:
            return
        colors = self._colors()
        previous = self.loaded
        self._keep_scroll = keep_scroll
        self.runner.submit(
            lambda: load_record(vault, path, colors, previous),
            self._on_loaded,
            self._on_failed,
            key="record-load",
        )

    def _on_loaded(self, loaded: Loaded) -> None:
        if loaded.path != self.current:
            return  # focus moved on while this was loading
        was_gone = self.loaded is not None and self.loaded.gone
        keep = self._keep_scroll and self.loaded is not None and self.loaded.path == loaded.path
        bar = self.browser.verticalScrollBar()
        position = bar.value() if keep else 0
        self.loaded = loaded
        self.header.setText(loaded.header)
        document = self.browser.document()
        for name, image in (loaded.images or {}).items():
            document.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), image)
        self.browser.setHtml(loaded.document)
        bar.setValue(min(position, bar.maximum()))
        if not keep or self.source.toPlainText() != loaded.source:
            if keep:
                self.source.set_source(loaded.source)
            else:
                self.source.setPlainText(loaded.source)
        self.source.set_marked_lines(loaded.marks)
        self.history.set_record(self.vault, str(loaded.view.get("id") or "") or None, loaded.path)
        self.facts.set_record(self.vault, loaded.view.get("scope"), loaded.view.get("id") or None)
        if not keep:
            self.related.set_record(self.vault, None if loaded.gone else loaded.path)
        if not keep and not loaded.render_body:
            self.tabs.setCurrentIndex(SOURCE_TAB)
        elif not keep and self.tabs.currentIndex() != HISTORY_TAB:
            self.tabs.setCurrentIndex(RENDERED_TAB)
        self.stack.setCurrentIndex(1)
        if loaded.gone and not was_gone:
            where = f"; it is now at {loaded.moved_to['path']}" if loaded.moved_to else ""
            self.status_message.emit(f"{loaded.path} disappeared from the vault{where}")
        if self._pending_line:
            line, self._pending_line = self._pending_line, 0
            self.tabs.setCurrentIndex(SOURCE_TAB)
            self.source.goto_line(line)
        elif self._pending_anchor is not None and self._pending_anchor[0] == loaded.path:
            self.tabs.setCurrentIndex(RENDERED_TAB)
            self.browser.scrollToAnchor(self._pending_anchor[1])
        self._pending_anchor = None

    def _on_failed(self, message: str) -> None:
        self.loaded = None
        self._show_empty(message)
        self.status_message.emit(message)

    def _show_empty(self, text: str) -> None:
        self.empty.setText(text)
        self.header.clear()
        self.browser.clear()
        self.source.set_source("")
        self.source.set_marked_lines([])
        self.history.set_record(self.vault, None, None)
        self.facts.set_record(self.vault, None, None)
        self.stack.setCurrentIndex(0)

    def _facts_available(self, available: bool) -> None:
        shown = self.tabs.indexOf(self.facts) >= 0
        if available and not shown:
            self.tabs.insertTab(FACTS_TAB, self.facts, "Facts")
            self.tabs.setTabToolTip(FACTS_TAB, "What is known about this page, by fact, with who said it")
        elif not available and shown:
            self.tabs.removeTab(self.tabs.indexOf(self.facts))

    # -- links ------------------------------------------------------------------------------
    def _follow(self, url: str) -> None:
        anchor = parse_anchor(url)
        if anchor.action == "record" and anchor.fragment:
            if self.loaded is not None and anchor.value == self.loaded.path:
                self.browser.scrollToAnchor(anchor.fragment)  # a heading or block of this note
            else:
                self._pending_anchor = (anchor.value, anchor.fragment)
                self.open_requested.emit(anchor.value, 0)
        elif anchor.action == "record":
            self.open_requested.emit(anchor.value, anchor.line)
        elif anchor.action == "tag":
            self.tag_requested.emit(anchor.value)
        elif anchor.action == "attachment":
            self._open_attachment(anchor.value)
        elif anchor.action == "line":
            self.reveal_line(int(anchor.value))
        elif anchor.action == "fragment":
            self.browser.scrollToAnchor(anchor.value)
        elif anchor.action == "external":
            QDesktopServices.openUrl(QUrl(anchor.value))
            self.status_message.emit(f"Opened {anchor.value} outside the app")
        else:
            self.status_message.emit(f"Not opened: {url} is not a link the app follows")

    def _open_attachment(self, rel: str) -> None:
        """A linked PDF or other file of the vault, opened by the desktop; never one outside it."""
        if self.vault is None:
            return
        try:
            real = real_path(self.vault.root, rel)
        except OSError:
            self.status_message.emit(f"Not opened: {rel} leads outside the vault")
            return
        QDesktopServices.openUrl(QUrl.fromLocalFile(real))
        self.status_message.emit(f"Opened {rel} outside the app")

    def _hover(self, url: QUrl) -> None:
        """Say in the status bar where a hovered link leads, as a browser would."""
        if not url.toString():
            self.status_message.emit("")
        else:
            anchor = parse_anchor(url.toString(QUrl.ComponentFormattingOption.FullyEncoded))
            where = {
                "record": "Open ",
                "line": "Show source line ",
                "tag": "Show what is tagged #",
                "attachment": "Open in its application: ",
                "external": "Open outside the app: ",
            }
            self.status_message.emit(where.get(anchor.action, "") + anchor.value)

    # -- look ------------------------------------------------------------------------------
    def _colors(self) -> Colors:
        palette = self.palette()
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        return Colors(
            text=text.name(),
            muted=_blend(text, base, 0.42),
            base=base.name(),
            alt_base=palette.color(QPalette.ColorRole.AlternateBase).name(),
            border=_blend(base, text, 0.18),
            link=palette.color(QPalette.ColorRole.Link).name(),
            dark=base.lightness() < 128,
        )

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.loaded is not None:
            self._load(keep_scroll=True)
