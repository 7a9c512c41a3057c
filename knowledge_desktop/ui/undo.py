"""Undo right after a write: Edit › Undo (Ctrl+Z), the status bar's Undo, Activity's Undo.

The window remembers the last write it published (issue 29, §3). When that
write has an undo (engine/write/undoing.py: a supersession, a merge, an adopt
run), the status bar's message about it carries an Undo button and Edit ›
Undo names it; when it has none (a withdrawal is final, a correction keeps
its original superseded) or the undo was refused because a record changed
since, Edit › Undo is disabled and its tooltip says why. Activity's Undo asks
for the same thing for any entry of the journal. Every undo runs on the
runner's worker through `Vault.write`, the one publish path, so it is
journaled like any write, under the actor of Settings › Your name; its
ChangeSet reaches the panes through `Vault.on_publish`.

Ctrl+Z in a text field right after a write (the walkthrough, docs/walkthrough.md):
a line edit claims Ctrl+Z for itself even when it has nothing to undo, so
with the focus back in the catalog filter or the search box the key undid
the typing there, or nothing, and the write stayed. The rule: a write clears
the undo history of the window's line edits, and while a line edit has
nothing of its own to undo, Ctrl+Z in it is the window's Edit › Undo. Typing
in the field after the write makes Ctrl+Z the field's again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QMainWindow, QMenu, QPushButton, QWidget

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write import undoing
from knowledge_desktop.engine.write.plan import Request, WriteRejected
from knowledge_desktop.engine.write.publish import Planner
from knowledge_desktop.ui.tasks import Runner

NOTICE_MS = 30_000
"""How long the status bar offers Undo after a write (Edit › Undo stays until the next one)."""
NOTHING_YET = "Nothing to undo: this window has published no write yet."


class UndoNotice(QWidget):
    """The status bar's message about a write, with its Undo button."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel()
        self.button = QPushButton("Undo")
        self.button.setToolTip("Undo this write (Edit › Undo, Ctrl+Z)")
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.hide)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label)
        row.addWidget(self.button)
        self.hide()

    def say(self, text: str, *, undo: bool) -> None:
        self.label.setText(text)
        self.button.setVisible(undo)
        self.button.setEnabled(undo)
        self.show()
        self.timer.start(NOTICE_MS)


class UndoCommands(QObject):
    """Edit › Undo for the last write of this window, and undo of any journal entry."""

    undone = Signal(object)
    """An undo ended: its receipt, or the message that says why nothing was written."""

    def __init__(
        self,
        window: QMainWindow,
        runner: Runner,
        vault: Callable[[], Vault | None],
        actor: Callable[[], str],
        after: Callable[[], None],
    ) -> None:
        super().__init__(window)
        self.window, self.runner, self._vault, self._actor, self._after = window, runner, vault, actor, after
        self.last: dict[str, Any] | None = None
        """The receipt of the last write this window published (None: none yet, or undone)."""
        self.blocked: str | None = NOTHING_YET
        """Why Edit › Undo is disabled now (None: it is enabled)."""
        self.busy = False
        self.action = QAction("&Undo", window)
        self.action.setShortcuts(QKeySequence.keyBindings(QKeySequence.StandardKey.Undo))
        self.action.triggered.connect(self.undo_last)
        window.addAction(self.action)
        bar = window.menuBar()
        menu = QMenu("&Edit", bar)
        menu.setToolTipsVisible(True)  # a disabled Undo says why
        menu.addAction(self.action)
        menus = bar.actions()
        if len(menus) > 1:
            bar.insertMenu(menus[1], menu)  # right after File, where people look for it
        else:
            bar.addMenu(menu)
        self.menu = menu
        self.notice = UndoNotice(window.statusBar())
        self.notice.button.clicked.connect(self.undo_last)
        # A normal status bar widget: a passing message (a menu item's tip as the pointer
        # crosses Edit › Undo) covers it, and the status bar shows it again after; hiding it
        # on every message lost the Undo button for good as soon as a menu was opened.
        window.statusBar().addWidget(self.notice)
        self._update()

    def vault_changed(self) -> None:
        """Another vault is open: the last write was in the one before."""
        self.last = None
        self.blocked = NOTHING_YET
        self.notice.hide()
        self._update()

    def wrote(self, receipt: dict[str, Any], text: str) -> None:
        """The window published a write: say `text` in the status bar, with Undo if it has one."""
        self.last = receipt
        self.blocked = undoing.undoable(receipt).blocked
        self.window.statusBar().clearMessage()  # a temporary message would hide the notice
        self.notice.say(text, undo=self.blocked is None)
        self._update()
        self._fields_yield_undo()

    def _fields_yield_undo(self) -> None:
        """Clear the undo history of the window's line edits (their typing came before the
        write) and let Ctrl+Z through to Edit › Undo while they have nothing to undo."""
        for edit in self.window.findChildren(QLineEdit):
            if edit.window() is not self.window or edit.isReadOnly():
                continue  # a dialog's fields keep their own Ctrl+Z
            if edit.isUndoAvailable():
                edit.setText(edit.text())  # same text: no textChanged, history gone
            edit.installEventFilter(self)  # once per object: installing again only reorders

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A line edit with nothing to undo does not claim Ctrl+Z while Edit › Undo can act."""
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(watched, QLineEdit)
            and isinstance(event, QKeyEvent)
            and event.matches(QKeySequence.StandardKey.Undo)
            and not watched.isUndoAvailable()
            and self.action.isEnabled()
        ):
            event.ignore()  # not overridden: the window's shortcut runs
            return True
        return super().eventFilter(watched, event)

    def undo_last(self) -> None:
        if self.last is not None and self.blocked is None:
            self.run(self.last)

    def run(self, receipt: dict[str, Any]) -> None:
        """Undo the write `receipt` describes, on the worker."""
        vault = self._vault()
        if vault is None or self.busy:
            return
        blocked = undoing.undoable(receipt).blocked
        if blocked is not None:
            self._refused(receipt, blocked)
            return
        self.busy = True
        self.notice.hide()
        self._update()
        actor, reason = (
            self._actor(),
            f"undo of {receipt.get('operation')} (journal {receipt.get('journalId')})",
        )

        def write(request: Request, planner: Planner) -> dict[str, Any]:
            return vault.write(_as(request, actor), planner)

        def fence_of(record_id: str) -> str:
            view = vault.show(record_id)
            return f"{view['id']}:{view['revision']}:{view['hash']}"

        def work() -> dict[str, Any] | WriteRejected:
            try:
                return undoing.undo(write, fence_of, receipt, reason)
            except WriteRejected as rejected:
                return rejected

        self.runner.submit(work, lambda result: self._done(receipt, result), self._failed)

    def _done(self, receipt: dict[str, Any], result: dict[str, Any] | WriteRejected) -> None:
        self.busy = False
        if isinstance(result, WriteRejected):
            self._refused(receipt, result.message)
            self.undone.emit(result.message)
        else:
            if receipt is self.last or receipt.get("journalId") == (self.last or {}).get("journalId"):
                self.last, self.blocked = None, "Nothing to undo: the last write was undone."
            what = undoing.undoable(receipt).label.lower().removeprefix("undo ")
            self.window.statusBar().showMessage(
                f"Undone: the {what} (journal {receipt.get('journalId')}) by entry {result.get('journalId')}",
                8000,
            )
            self.undone.emit(result)
        self._update()
        self._after()

    def _failed(self, message: str) -> None:
        self.busy = False
        self.window.statusBar().showMessage(f"The undo failed: {message}", 15000)
        self.undone.emit(message)
        self._update()
        self._after()

    def _refused(self, receipt: dict[str, Any], why: str) -> None:
        what = receipt.get("operation") or "write"
        message = f"Cannot undo the {what}: {why.rstrip('.')}. Nothing was written."
        if receipt is self.last or receipt.get("journalId") == (self.last or {}).get("journalId"):
            self.blocked = message
            self.notice.hide()  # its Undo would be refused again
        self.window.statusBar().showMessage(message, 15000)

    def _update(self) -> None:
        enabled = self.last is not None and self.blocked is None and not self.busy
        label = undoing.undoable(self.last).label if self.last is not None else "Undo"
        self.action.setText(f"&{label}")
        self.action.setEnabled(enabled)
        tip = (
            f"{label} (journal {self.last.get('journalId')})" if enabled and self.last else self.blocked or ""
        )
        self.action.setToolTip(tip)
        self.action.setStatusTip(tip)


def _as(request: Request, actor: str) -> Request:
    return dataclasses.replace(request, actor=actor)
