"""Settings › Knowledge: the extensions installed in the vault and a switch per permission.

Spec: facts-entities-collections-api ("What the user sees"); issue 16 §4.
Every permission an extension asked for is shown as a sentence for a person
(`engine/api/wording.py`), off until the person turns it on. A switch is read
from and written to the durable grants on a worker (the UI thread never waits
on SQLite), and counts from the extension's next call, in this process or
any other (`knowledge mcp`, a script). The extension's reason and the
predicates it declared stand above the switches, so the person knows who is
asking and why.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.uninstall import Contributions
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui import knowledge_install
from knowledge_desktop.ui.knowledge_install import UninstallDialog
from knowledge_desktop.ui.knowledge_self_facts import SelfFactsPanel
from knowledge_desktop.ui.knowledge_you import YouPanel

if TYPE_CHECKING:
    from knowledge_desktop.ui.tasks import Runner

EMPTY = (
    "No extension is installed in this vault.\n\n"
    "Install one with Install Extension… (or `knowledge extensions VAULT install MANIFEST`); "
    "it can do nothing until you turn its permissions on here."
)


def installed_extensions(vault: Vault) -> list[dict[str, Any]]:
    """Every installed extension as `Installed.as_json` shapes it (run on a worker)."""
    return [e.as_json() for e in Extensions(vault.store, vault.root).list()]


def set_grant(vault: Vault, name: str, permission: str, on: bool) -> list[dict[str, Any]]:
    """Turn one permission on or off, then the extensions as they now stand (a worker's job)."""
    extensions = Extensions(vault.store, vault.root)
    if on:
        extensions.grant(name, permission)
    else:
        extensions.revoke(name, permission)
    return installed_extensions(vault)


class KnowledgeSettings(QDialog):
    """The dialog: extensions on the left, the chosen one's reason and switches on the right."""

    def __init__(
        self,
        vault: Vault,
        runner: Runner,
        parent: QWidget | None = None,
        view_changes: Callable[[], None] | None = None,
        open_record: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings › Knowledge")
        self.setObjectName("knowledgeSettings")
        self.resize(820, 600)
        self.vault = vault
        self.runner = runner
        self.extensions: list[dict[str, Any]] = []
        self.switches: dict[str, QCheckBox] = {}
        """The shown extension's switches by permission string (tests drive them)."""
        self.self_facts: SelfFactsPanel | None = None
        """The shown extension's self facts (knowledge_self_facts.py)."""
        self.uninstall_dialog: UninstallDialog | None = None
        """The Keep/Delete question while it is open (tests answer it)."""
        self.you = YouPanel(vault, runner, open_record)
        """Which person page is you (knowledge_you.py), for the shown extension's partition."""
        self.names = QListWidget()
        self.names.setObjectName("extensionList")
        self.names.setMaximumWidth(220)
        self.names.currentRowChanged.connect(self._show)
        self.detail = QWidget()
        self.detail_layout = QVBoxLayout(self.detail)
        self.detail_layout.setAlignment(Qt.AlignmentFlag.AlignTop)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.detail)
        self.status = QLabel("Reading the installed extensions…")
        self.status.setObjectName("knowledgeStatus")
        self.status.setWordWrap(True)
        body = QHBoxLayout()
        body.addWidget(self.names)
        body.addWidget(scroll, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.install_button = QPushButton("Install Extension…")
        self.install_button.setToolTip("Install an extension from its manifest.json, every permission off")
        self.install_button.clicked.connect(self._choose_manifest)
        buttons.addButton(self.install_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.uninstall_button = QPushButton("Uninstall…")
        self.uninstall_button.setToolTip("Remove the selected extension; keep or delete what it wrote")
        self.uninstall_button.setEnabled(False)
        self.uninstall_button.clicked.connect(self.start_uninstall)
        buttons.addButton(self.uninstall_button, QDialogButtonBox.ButtonRole.ActionRole)
        if view_changes is not None:
            changes = QPushButton("View Changes…")
            changes.setToolTip("What extensions changed, by run: conflicts to decide, runs to revert")
            changes.clicked.connect(view_changes)
            buttons.addButton(changes, QDialogButtonBox.ButtonRole.ActionRole)
        self.you.changed.connect(lambda: self._show(self.names.currentRow()))
        layout = QVBoxLayout(self)
        layout.addWidget(self.you)
        layout.addLayout(body, 1)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self.runner.submit(lambda: installed_extensions(vault), self._loaded, self._failed)

    # -- data ---------------------------------------------------------------------
    def _loaded(self, extensions: list[dict[str, Any]], select: str | None = None) -> None:
        shown = select or self._current_name()
        self.extensions = extensions
        self.names.blockSignals(True)
        self.names.clear()
        for ext in extensions:
            item = QListWidgetItem(ext["name"])
            item.setToolTip(ext["description"])
            self.names.addItem(item)
        self.names.blockSignals(False)
        self.uninstall_button.setEnabled(bool(extensions))
        if not extensions:
            self.status.setText(EMPTY)
            self._fill(None)
            return
        self.status.setText("A permission counts from the extension's next call.")
        names = [e["name"] for e in extensions]
        self.names.setCurrentRow(names.index(shown) if shown in names else 0)
        self._show(self.names.currentRow())

    def _failed(self, message: str) -> None:
        self.status.setText(f"Could not read or change the extensions: {message}")
        self._show(self.names.currentRow())  # the switches go back to what is recorded

    def _current_name(self) -> str | None:
        item = self.names.currentItem()
        return item.text() if item is not None else None

    # -- the chosen extension -------------------------------------------------------
    def _show(self, row: int) -> None:
        self._fill(self.extensions[row] if 0 <= row < len(self.extensions) else None)

    def _fill(self, ext: dict[str, Any] | None) -> None:
        while self.detail_layout.count():
            child = self.detail_layout.takeAt(0)
            widget = child.widget() if child is not None else None
            if widget is not None:
                widget.hide()  # gone from view now, deleted when the loop comes round
                widget.deleteLater()
        self.switches = {}
        self.self_facts = None
        self.you.show_partition(ext["partition"] if ext is not None else None)
        if ext is None:
            return
        heading = QLabel(f"<b>{_escape(ext['name'])}</b> — {_escape(ext['description'])}")
        heading.setWordWrap(True)
        self.detail_layout.addWidget(heading)
        reason = QLabel(f"Why it asks: {_escape(ext['reason'])}" if ext["reason"] else "It gives no reason.")
        reason.setWordWrap(True)
        self.detail_layout.addWidget(reason)
        where = QLabel(f"Installed in partition <b>{_escape(ext['partition'])}</b>; it sees nothing else.")
        self.detail_layout.addWidget(where)
        self.detail_layout.addWidget(QLabel("<b>Permissions</b> (all off until you turn them on)"))
        for p in ext["permissions"]:
            box = QCheckBox(p["sentence"])
            box.setToolTip(p["permission"])
            box.setChecked(bool(p["granted"]))
            box.toggled.connect(
                lambda on, perm=p["permission"], name=ext["name"]: self._toggle(name, perm, on)
            )
            self.switches[p["permission"]] = box
            self.detail_layout.addWidget(box)
        if ext["predicates"]:
            added = QLabel("<b>What it added to the vocabulary</b> (stays if you uninstall it)")
            self.detail_layout.addWidget(added)
            for d in ext["predicates"]:
                values = "one value" if d["cardinality"] == "one" else "many values"
                line = QLabel(f"{_escape(d['predicate'])} — {_escape(d['description'])} ({values})")
                line.setWordWrap(True)
                self.detail_layout.addWidget(line)
        self.self_facts = SelfFactsPanel(self.vault, self.runner, ext)
        self.detail_layout.addWidget(self.self_facts)

    def _toggle(self, name: str, permission: str, on: bool) -> None:
        vault = self.vault
        self.status.setText(f"{'Turning on' if on else 'Turning off'}: {permission}…")
        self.runner.submit(lambda: set_grant(vault, name, permission, on), self._loaded, self._failed)

    # -- install and uninstall ------------------------------------------------------
    def _choose_manifest(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Install Extension", "", "Extension manifest (manifest.json *.json)"
        )
        if path:
            self.install_manifest(Path(path))

    def install_manifest(self, manifest: Path) -> None:
        """Install the extension of `manifest` into a partition (asked when the vault has several
        and none is `private`), every permission off, then show it."""
        vault = self.vault
        self.status.setText(f"Checking {manifest.name}…")

        def chosen(partitions: list[str]) -> None:
            if not partitions:
                self.status.setText("This vault has no partition to install an extension into.")
                return
            partition = partitions[0]
            if len(partitions) > 1 and partition != knowledge_install.DEFAULT_PARTITION:
                partition, ok = QInputDialog.getItem(
                    self, "Install Extension", "The partition it may see:", partitions, 0, False
                )
                if not ok:
                    self.status.setText("Not installed.")
                    return
            self.runner.submit(
                lambda: (knowledge_install.install(vault, manifest, partition), installed_extensions(vault)),
                lambda done: self._installed(done[0], done[1]),
                lambda message: self.status.setText(f"Not installed: {message}"),
            )

        self.runner.submit(lambda: knowledge_install.partitions_for_install(vault), chosen, self._failed)

    def _installed(self, name: str, extensions: list[dict[str, Any]]) -> None:
        self._loaded(extensions, select=name)
        self.status.setText(f"Installed {name}; every permission is off until you turn it on.")

    def start_uninstall(self) -> None:
        """Count what the selected extension wrote, then ask Keep or Delete."""
        name = self._current_name()
        if name is None:
            return
        vault = self.vault
        self.status.setText(f"Counting what {name} wrote…")
        self.runner.submit(
            lambda: knowledge_install.counted(vault, name), lambda found: self._ask(name, found), self._failed
        )

    def _ask(self, name: str, found: Contributions) -> None:
        dialog = UninstallDialog(name, found, self)
        self.uninstall_dialog = dialog
        vault = self.vault

        def answered(code: int) -> None:
            self.uninstall_dialog = None
            if code != QDialog.DialogCode.Accepted:
                self.status.setText(f"{name} stays installed.")
                return
            delete = dialog.delete.isChecked()
            self.status.setText(f"Uninstalling {name}…")
            self.runner.submit(
                lambda: (knowledge_install.remove(vault, name, delete), installed_extensions(vault)),
                lambda done: self._uninstalled(done[0], done[1]),
                self._failed,
            )

        dialog.finished.connect(answered)
        dialog.open()

    def _uninstalled(self, result: dict[str, Any], extensions: list[dict[str, Any]]) -> None:
        self._loaded(extensions)
        if result["mode"] == "delete":
            self.status.setText(
                f"Uninstalled {result['name']}; what it wrote was deleted in run {result['runId']}"
                " (revert it in View Changes to bring it back)."
            )
        else:
            self.status.setText(f"Uninstalled {result['name']}; what it wrote is kept.")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
