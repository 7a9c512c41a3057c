"""The window's write commands: Withdraw, Correct, Supersede By, Merge Into, Unmerge, Undo.

They live in the Record menu and in the record and catalog context menus,
each enabled only where it applies (the record's kind and lifecycle, a vault
that can be written). Each builds an `Operation` (ui/write_ops.py) fenced with
what the window showed and opens the `PublishDialog`, which previews,
asks for a reason and publishes on a worker. The result reaches the panes as
a ChangeSet through `Vault.on_publish`, relayed like the watcher's, so every
pane updates in place. The diagnostics pane's "Possible duplicates" rows get
a Merge… action, and the Activity dock lists the journal. A published write
can be undone right after where the spec gives it an undo (ui/undo.py), and
the keyboard focus goes back to where it was when the dialogs close.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMenu, QWidget

from knowledge_desktop.engine.changes import ChangeSet
from knowledge_desktop.engine.query.inventory import RecordFilter
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write import lifecycle
from knowledge_desktop.engine.write.naming import new_id
from knowledge_desktop.ui.adopt_action import AdoptAction
from knowledge_desktop.ui.forms.correction import correction_form, with_back
from knowledge_desktop.ui.forms.new_records import NewRecords
from knowledge_desktop.ui.forms.record_form import RecordForm
from knowledge_desktop.ui.panes.activity import ActivityPane
from knowledge_desktop.ui.panes.diagnostics import DUPLICATES
from knowledge_desktop.ui.undo import UndoCommands
from knowledge_desktop.ui.widgets.focus_return import focused_now, return_focus_after
from knowledge_desktop.ui.write_forms import RecordPicker
from knowledge_desktop.ui.write_ops import Operation, Subject, correction_draft, describe_receipt
from knowledge_desktop.ui.your_name import YourName

if TYPE_CHECKING:
    from knowledge_desktop.ui.publish_dialog import PublishDialog
    from knowledge_desktop.ui.window_parts import WindowParts

Applies = Callable[[Subject], bool]


class WriteActions:
    """The write QActions, their menus, and the dialog each opens."""

    def __init__(self, window: WindowParts) -> None:
        self.window = window
        self.dialog: PublishDialog | None = None
        """The confirmation dialog open now (tests drive it)."""
        self.form: RecordForm | RecordPicker | None = None
        """The form or picker open before the dialog (Correct…, Supersede By…, Merge Into…)."""
        self._rules: dict[QAction, Applies] = {}
        self.shown: Subject | None = None
        """The record the actions' enabled states were last judged for."""
        self._focus: QWidget | None = None
        """The widget that had the keyboard focus when the action started (focused again after)."""
        self.withdraw = self._action("&Withdraw…", self.start_withdraw, lambda s: s.lifecycle != "withdrawn")
        self.correct = self._action(
            "&Correct…",
            self.start_correct,
            lambda s: s.kind in ("claim", "relationship") and s.lifecycle in ("active", "expired"),
        )
        self.supersede = self._action(
            "&Supersede By…", self.start_supersede, lambda s: s.kind == "claim" and s.lifecycle == "active"
        )
        self.merge = self._action(
            "&Merge Into…", self.start_merge, lambda s: s.kind == "page" and s.lifecycle == "active"
        )
        self.unmerge = self._action(
            "U&nmerge…", self.start_unmerge, lambda s: s.kind == "page" and s.lifecycle == "merged"
        )
        self.undo = self._action(
            "&Undo Supersession…",
            self.start_undo,
            lambda s: s.kind == "claim" and s.lifecycle == "superseded" and s.superseded_by is not None,
        )
        self.actions = list(self._rules)
        record_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Record")
        assert isinstance(record_menu, QMenu)
        record_menu.addSeparator()
        for action in self.actions:
            record_menu.addAction(action)
        record_menu.aboutToShow.connect(self.refresh)

        self.activity = ActivityPane(window.runner, window)
        dock = QDockWidget("Activity", window)
        dock.setObjectName("dock-activity")
        dock.setWidget(self.activity)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        window.tabifyDockWidget(window.docks["Diagnostics"], dock)
        window.docks["Diagnostics"].raise_()
        window.docks["Activity"] = dock
        dock.setTitleBarWidget(QWidget())  # its tab names it, as for the other panes
        view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
        assert isinstance(view_menu, QMenu)
        toggle = dock.toggleViewAction()
        toggle.setText("Activity pane")
        view_menu.addAction(toggle)

        self.your_name = YourName(window, window.settings)  # Settings › Your Name…: the actor
        self.undoing = UndoCommands(
            window, window.runner, lambda: self.window.vault, self.your_name.name, self.activity.refresh
        )  # Edit › Undo, the status bar's Undo
        self.activity.undo_requested.connect(self.undoing.run)
        self.adopt = AdoptAction(window, self._wrote, self.your_name.name)  # File › Adopt Notes…
        self.new = NewRecords(window, self._wrote)  # File › New…

        self.merge_candidate = QAction("Merge…", window.diagnostics.table)
        self.merge_candidate.setStatusTip("Merge the possible duplicates this row names")
        self.merge_candidate.triggered.connect(self.merge_selected_candidate)
        window.diagnostics.table.addAction(self.merge_candidate)
        window.diagnostics.table.selectionModel().currentChanged.connect(lambda *_: self._candidate_enabled())
        self._candidate_enabled()

        browser = window.record.browser
        browser.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        browser.customContextMenuRequested.connect(self._record_menu)
        tree = window.catalog.tree
        tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        tree.customContextMenuRequested.connect(self._catalog_menu)
        window.loaded.connect(self._vault_opened)
        window.change_applied.connect(lambda _change: self._changed())
        # The record pane loads on a worker: after every answer of the runner (once its
        # callback ran, hence the zero timer) the record shown may have changed. Cheap.
        # the window as context: a refresh queued while it closes is dropped with it
        window.runner.busy_changed.connect(lambda _running: QTimer.singleShot(0, window, self.refresh))

    def _action(self, text: str, slot: Callable[[Subject], None], applies: Applies) -> QAction:
        action = QAction(text, self.window)
        action.triggered.connect(lambda: self._on_subject(slot))
        action.setEnabled(False)
        self._rules[action] = applies
        return action

    # -- what the actions act on ---------------------------------------------------------
    def subject(self) -> Subject | None:
        """The record the record pane shows now (its fence is what the person saw)."""
        loaded = self.window.record.loaded
        if loaded is None or loaded.gone or loaded.path != self.window.current_path:
            return None
        return Subject.from_view(loaded.view)

    def refresh(self) -> None:
        """Enable each action only where it applies to the record shown."""
        subject, vault = self.subject(), self.window.vault
        self.shown = subject
        writable = vault is not None and not vault.read_only
        for action, applies in self._rules.items():
            action.setEnabled(writable and subject is not None and applies(subject))

    def _on_subject(self, slot: Callable[[Subject], None]) -> None:
        self._focus = focused_now()
        subject = self.subject()
        if subject is not None and self.window.vault is not None:
            slot(subject)

    def _vault_opened(self) -> None:
        vault = self.window.vault
        if vault is not None:
            relay = self.window.relay

            def published(change: ChangeSet, v: Vault = vault) -> None:
                relay.changed.emit(v, change)  # from the worker: queued to the UI thread

            vault.on_publish = published
            self.activity.set_vault(vault)
        self.undoing.vault_changed()
        self.refresh()
        self._candidate_enabled()

    def _changed(self) -> None:
        self.refresh()
        self.activity.refresh()

    # -- the operations ----------------------------------------------------------------
    def start_withdraw(self, s: Subject) -> None:
        def call(write: lifecycle.Write, fences: dict[str, str], reason: str) -> dict[str, Any]:
            return lifecycle.withdraw(write, fences[s.id], reason)

        self.confirm(Operation("Withdraw", f"{s.label} ({s.id})", {s.id: s.fence}, call))

    def start_unmerge(self, s: Subject) -> None:
        def call(write: lifecycle.Write, fences: dict[str, str], reason: str) -> dict[str, Any]:
            return lifecycle.unmerge(write, fences[s.id], reason)

        into = f", taking back what it added to {s.merged_into}" if s.merged_into else ""
        self.confirm(Operation("Unmerge", f"{s.label} ({s.id}){into}", {s.id: s.fence}, call))

    def start_correct(self, s: Subject) -> None:
        loaded = self.window.record.loaded
        source = loaded.source if loaded is not None else ""
        vault = self.window.vault
        if vault is None:
            return
        replacement_id = new_id(s.kind)  # once: the preview shows the id the file gets

        def corrected(text: str) -> Operation:
            def call(write: lifecycle.Write, fences: dict[str, str], reason: str) -> dict[str, Any]:
                return lifecycle.correct(write, fences[s.id], text, reason, replacement_id=replacement_id)

            return Operation("Correct", f"{s.label} ({s.id}) with a new record", {s.id: s.fence}, call)

        form = correction_form(vault, self.window.runner, s, correction_draft(source), corrected, self.window)
        self.form = form
        return_focus_after(form, self._focus)
        form.chosen.connect(lambda text: with_back(self._confirmed(corrected(text)), form))
        form.open()

    def start_supersede(self, s: Subject) -> None:
        wanted = RecordFilter(kind="claim", scope=s.scope)
        self._pick(s, "Supersede By", f"The claim that replaces {s.label}", wanted, self._supersede_by)

    def _supersede_by(self, s: Subject, by: Subject) -> None:
        def call(write: lifecycle.Write, fences: dict[str, str], reason: str) -> dict[str, Any]:
            return lifecycle.supersede(write, fences[by.id], [fences[s.id]], reason)

        fences = {s.id: s.fence, by.id: by.fence}
        self.confirm(Operation("Supersede", f"{s.label} ({s.id}) by {by.label} ({by.id})", fences, call))

    def start_undo(self, s: Subject) -> None:
        by_id = s.superseded_by
        vault = self.window.vault
        if by_id is None or vault is None:
            return
        self.window.runner.submit(lambda: vault.show(by_id), lambda view: self._undo_by(s, view))

    def _undo_by(self, s: Subject, view: dict[str, Any]) -> None:
        by = Subject.from_view(view)
        if by is None:
            return

        def call(write: lifecycle.Write, fences: dict[str, str], reason: str) -> dict[str, Any]:
            return lifecycle.supersede(write, fences[by.id], [fences[s.id]], reason, undo=True)

        fences = {s.id: s.fence, by.id: by.fence}
        summary = f"the supersession of {s.label} ({s.id}) by {by.id}: it is active again"
        self.confirm(Operation("Undo", summary, fences, call))

    def start_merge(self, s: Subject) -> None:
        wanted = RecordFilter(kind="page", scope=s.scope, types=frozenset({s.type}) if s.type else None)
        prompt = (
            f"Choose the page that survives. “{s.title}” is merged into it: the page you choose "
            f"stays, and “{s.title}” is merged away (its file stays, pointing to the survivor)."
        )
        self._pick(s, "Merge Into", prompt, wanted, self._merge)

    def _merge(self, absorbed: Subject, survivor: Subject) -> None:
        def call(write: lifecycle.Write, fences: dict[str, str], reason: str) -> dict[str, Any]:
            return lifecycle.merge(write, fences[survivor.id], fences[absorbed.id], reason)

        fences = {survivor.id: survivor.fence, absorbed.id: absorbed.fence}
        summary = (
            f"“{absorbed.title}” into “{survivor.title}”: “{survivor.title}” survives; "
            f"“{absorbed.title}” is merged away (its file stays, pointing to the survivor)."
        )
        self.confirm(Operation("Merge", summary, fences, call))

    def _pick(
        self,
        s: Subject,
        title: str,
        prompt: str,
        wanted: RecordFilter,
        then: Callable[[Subject, Subject], None],
    ) -> None:
        vault = self.window.vault
        if vault is None:
            return
        self.form = RecordPicker(self.window.runner, vault, wanted, s.id, title, prompt, self.window)
        return_focus_after(self.form, self._focus)
        self.form.chosen.connect(lambda record_id: self._fetch(record_id, lambda other: then(s, other)))
        self.form.open()

    def _fetch(self, record_id: str, then: Callable[[Subject], None]) -> None:
        """The chosen record as it is now (its fence), then `then` (on the UI thread)."""
        vault = self.window.vault
        if vault is None:
            return

        def done(view: dict[str, Any]) -> None:
            subject = Subject.from_view(view)
            if subject is not None:
                then(subject)

        self.window.runner.submit(lambda: vault.show(record_id), done)

    def confirm(self, op: Operation) -> None:
        """Open the one confirmation dialog for `op`."""
        self._confirmed(op)

    def _confirmed(self, op: Operation) -> PublishDialog | None:
        vault = self.window.vault
        if vault is None:
            return None
        from knowledge_desktop.ui.publish_dialog import PublishDialog  # when first opened

        op.actor = self.your_name.name()
        if self._focus is None:  # not started from a record action (a diagnostics row)
            self._focus = focused_now()
        self.dialog = PublishDialog(vault, self.window.runner, op, self.window)
        self.dialog.finished_publish.connect(self._published)
        self.dialog.change_actor.connect(lambda d=self.dialog: self._change_actor(d))
        return_focus_after(self.dialog, self._focus)
        self._focus = None
        self.dialog.open()
        return self.dialog

    def _change_actor(self, dialog: PublishDialog) -> None:
        """Settings › Your Name… over the publish dialog; a new name is planned again."""
        names = self.your_name.open(dialog)
        names.accepted.connect(lambda: dialog.actor_changed(self.your_name.name()))

    def _published(self, result: object) -> None:
        if isinstance(result, dict):
            self._wrote(result)

    def _wrote(self, receipt: dict[str, Any]) -> None:
        """A write of this window was published: say so, with Undo when it has one."""
        self.undoing.wrote(receipt, describe_receipt(receipt))
        self.activity.refresh()

    # -- possible duplicates -------------------------------------------------------------
    def _candidate_enabled(self) -> None:
        found = self.window.diagnostics.selected_diagnostic()
        vault = self.window.vault
        writable = vault is not None and not vault.read_only
        self.merge_candidate.setEnabled(writable and found is not None and found.code == DUPLICATES)

    def merge_selected_candidate(self) -> None:
        """Merge the row's other page into its first (the survivor), after the dialog."""
        self._focus = focused_now()
        found, vault = self.window.diagnostics.selected_diagnostic(), self.window.vault
        if found is None or found.code != DUPLICATES or vault is None or found.record_id is None:
            return
        first = found.record_id

        def pair() -> tuple[dict[str, Any], dict[str, Any]] | None:
            for group in vault.merge_candidates():
                ids = [p["id"] for p in group["pages"]]
                if ids and ids[0] == first and len(ids) > 1:
                    return vault.show(ids[0]), vault.show(ids[1])
            return None

        def chosen(views: tuple[dict[str, Any], dict[str, Any]] | None) -> None:
            if views is None:
                self.window.show_error("These pages are no longer possible duplicates.")
                return
            survivor, absorbed = (Subject.from_view(v) for v in views)
            if survivor is not None and absorbed is not None:
                self._merge(absorbed, survivor)

        self.window.runner.submit(pair, chosen)

    # -- context menus -------------------------------------------------------------------
    def _record_menu(self, pos: QPoint) -> None:
        browser = self.window.record.browser
        menu = browser.createStandardContextMenu(pos)
        menu.addSeparator()
        menu.addAction(self.window.commands.edit)
        self.refresh()
        for action in self.actions:
            menu.addAction(action)
        menu.exec(browser.viewport().mapToGlobal(pos))
        menu.deleteLater()

    def _catalog_menu(self, pos: QPoint) -> None:
        """On a record row: open it, and offer the actions for it once it is shown."""
        tree = self.window.catalog.tree
        index = tree.indexAt(pos)
        if not index.isValid():
            return
        tree.setCurrentIndex(index)
        path = self.window.catalog.selected_path()
        if path is None:
            return
        if path != self.window.current_path:
            self.window.open_record(path)
        menu = QMenu(tree)
        menu.addAction(self.window.commands.edit)
        self.refresh()
        for action in self.actions:
            menu.addAction(action)
        menu.exec(tree.viewport().mapToGlobal(pos))
        menu.deleteLater()
