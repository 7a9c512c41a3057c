"""The welcome page: what a person sees in the record pane on first start (issue 29, §6).

The first start opens the demo vault, whose Diagnostics pane is full of red
rows, on an empty record pane: nothing said what the app is or that those
errors are there on purpose. The welcome page says what the app is, offers
Open Your Own Vault… and the recent vaults, describes the demo and lists
each of its errors with a link that opens the file at the line. It shows on
a first start (no vault chosen before, in QSettings: `pending`, set by
`app.py`) once the vault is read, and again from Help › Welcome; opening
any record replaces it.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QTextBrowser

from knowledge_desktop.engine.diagnostics import Diagnostic, Severity
from knowledge_desktop.ui.demo import demo_copy, is_demo
from knowledge_desktop.ui.history import WELCOME

if TYPE_CHECKING:
    from knowledge_desktop.ui.window_parts import WindowParts

ABOUT = (
    "Knowledge Desktop shows a <b>vault</b>: a folder of Markdown files about people, "
    "companies, projects and meetings, with <b>claims</b> that cite their evidence and "
    "<b>relationships</b> between pages. Obsidian, your editor, git or an agent write the "
    "files; the app lists them, links them, searches them and checks each one against its "
    "ontology, saying exactly what is wrong and where. Your files stay plain Markdown: "
    "browsing never changes them."
)
DEMO = (
    "Open now is the <b>demo vault</b>, a copy of the bundled one in your own data folder, "
    "so you can edit it freely. It follows Harbor Lane Studio, a five-person product studio, "
    "from June to November 2026: its people, clients, projects, meetings, claims and "
    "relationships, in two partitions (<code>private/</code> and <code>shared/</code>). Try "
    "the catalog on the left, Ctrl+K to search, the Timeline and the Backlinks of a person."
)


class Welcome:
    """The page in the record pane, Help › Welcome, and what its links do."""

    def __init__(self, window: WindowParts) -> None:
        self.window = window
        self.pending = False
        """Show the page once the vault being opened is read (a first start)."""
        self.errors: list[Diagnostic] = []
        self.page = QTextBrowser()
        self.page.setObjectName("welcomePage")
        self.page.setOpenLinks(False)
        self.page.document().setDocumentMargin(14)
        self.page.anchorClicked.connect(self._follow)
        window.record.stack.addWidget(self.page)
        self.action = QAction("&Welcome", window)
        self.action.setStatusTip("What this app is, your vaults, and what the demo vault shows")
        self.action.triggered.connect(self.show)
        menu = next((a.menu() for a in window.menuBar().actions() if a.text() == "&Help"), None)
        if isinstance(menu, QMenu):
            first = menu.actions()
            if first:
                menu.insertAction(first[0], self.action)
            else:
                menu.addAction(self.action)
        window.loaded.connect(self._loaded)

    def start_path(self, given: Path | None, demo: bool) -> Path:
        """The vault the app starts on: `given`, else the demo when asked (`demo`), else the
        last vault, else the demo — and on a first start (no vault chosen before) the welcome
        page once it is read."""
        last = self.window.opener.last_vault()
        self.pending = last is None and given is None
        if given is not None:
            return given
        if demo or last is None or not last.is_dir():
            return demo_copy()
        return last

    def _loaded(self) -> None:
        if self.pending:
            self.pending = False
            self.show()

    @property
    def showing(self) -> bool:
        return self.window.record.stack.currentWidget() is self.page

    def show(self) -> None:
        """Fill the page (the demo's errors read on a worker) and bring it up."""
        vault = self.window.vault
        if vault is None or not is_demo(vault.root):
            self._fill(None)
            return
        self.window.runner.submit(
            lambda: [d for d in vault.diagnostics() if d.severity == Severity.ERROR],
            self._fill,
            key="welcome-errors",
        )

    def _fill(self, errors: list[Diagnostic] | None) -> None:
        self.errors = errors or []
        self.page.setHtml(self.html(errors))
        self.window.record.stack.setCurrentWidget(self.page)
        self.window.visited(WELCOME)  # Back from a record one of its links opened comes here

    def html(self, errors: list[Diagnostic] | None) -> str:
        """The page; `errors` None: the vault open is not the demo (no demo section)."""
        parts = ["<h2>Welcome to Knowledge Desktop</h2>", f"<p>{ABOUT}</p>"]
        parts.append(
            "<p><a href='welcome:open'><b>Open your own vault…</b></a> — any folder of Markdown "
            "files: an Obsidian vault, a folder of notes, or a vault of knowledge records. "
            "(File › Open Vault…, or drop a folder on the window.)</p>"
        )
        current = str(self.window.vault.root) if self.window.vault is not None else None
        recent = [p for p in self.window.opener.recent_vaults() if p != current]
        if recent:
            parts.append("<h3>Recent vaults</h3><ul>")
            parts += [
                f"<li><a href='welcome:recent:{i}'>{escape(Path(p).name)}</a> "
                f"<span style='color:gray'>{escape(p)}</span></li>"
                for i, p in enumerate(recent)
            ]
            parts.append("</ul>")
        if errors is not None:
            parts.append(f"<h3>The demo vault</h3><p>{DEMO}</p>")
            parts.append(
                f"<p><b>Its {len(errors)} errors are deliberate.</b> Some files are broken on purpose "
                "so that the Diagnostics pane has something to show; each says in its text what is "
                "wrong with it, and the pane marks them as examples. Click one to open it:</p><ul>"
            )
            parts += [
                f"<li><a href='welcome:file:{i}'>{escape(d.path)}</a>"
                f"{'' if d.line is None else f' (line {d.line})'} — <code>{escape(d.code)}</code>: "
                f"{escape(d.message)}</li>"
                for i, d in enumerate(errors)
            ]
            parts.append(
                "</ul><p>The README at the vault root is outside every partition on purpose too "
                "(a warning). <a href='welcome:demo'>Open the demo vault</a> again any time from "
                "File › Open Demo Vault.</p>"
            )
        parts.append(
            "<p style='color:gray'>Select a record in the catalog, or press Ctrl+K to search. "
            "Help › Welcome brings this page back.</p>"
        )
        return "".join(parts)

    def _follow(self, url: QUrl) -> None:
        what = url.toString()
        kind, _, rest = what.removeprefix("welcome:").partition(":")
        opener = self.window.opener
        if kind == "open":
            opener.choose()
        elif kind == "demo":
            opener.open_demo()
        elif kind == "recent":
            current = str(self.window.vault.root) if self.window.vault is not None else None
            recent = [p for p in opener.recent_vaults() if p != current]
            if rest.isdigit() and int(rest) < len(recent):
                self.window.open_vault(Path(recent[int(rest)]))
        elif kind == "file" and rest.isdigit() and int(rest) < len(self.errors):
            found = self.errors[int(rest)]
            self.window.open_record(found.path, found.line or 0)
