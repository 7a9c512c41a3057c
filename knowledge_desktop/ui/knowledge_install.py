"""Installing and uninstalling an extension from Settings › Knowledge (issue 16 §2, §4).

Install reads a `manifest.json` the person picks, checks it (every error is
listed, as the CLI does) and installs it into a partition with every
permission off. Uninstall first counts what the extension wrote, then offers
Keep (the default: its facts and documents stay, as the person's) or Delete
(its documents and collections go and its facts expire, as one run the
person can revert in View Changes). Either way its grants, refs and ticks go.
The engine work runs on a worker; these are the dialogs around it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import load_manifest
from knowledge_desktop.engine.api.uninstall import Contributions, contributions, uninstall
from knowledge_desktop.engine.vault import Vault

DEFAULT_PARTITION = "private"


def install(vault: Vault, manifest: Path, partition: str) -> str:
    """Install the extension `manifest` describes into `partition`; its name (a worker's job).
    `ManifestInvalid` lists every problem; an `ApiError` says why it cannot be installed."""
    return Extensions(vault.store, vault.root).install(load_manifest(manifest), partition).name


def partitions_for_install(vault: Vault) -> list[str]:
    """The partitions an extension may be installed into, `private` first when there is one."""
    scopes = sorted(vault.scopes())
    return sorted(scopes, key=lambda s: s != DEFAULT_PARTITION)


def counted(vault: Vault, name: str) -> Contributions:
    return contributions(vault.store, vault.root, name)


def remove(vault: Vault, name: str, delete: bool) -> dict[str, Any]:
    """Uninstall `name` (Keep, or Delete as one revertible run); the result as JSON."""
    return uninstall(vault.store, vault.root, vault.write, name, delete=delete).as_json()


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class UninstallDialog(QDialog):
    """Keep or Delete what an extension wrote, with the counts the choice is about."""

    def __init__(self, name: str, found: Contributions, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Uninstall {name}")
        self.setObjectName("uninstallDialog")
        facts, docs, cols = len(found.facts), len(found.documents), len(found.collections)
        wrote = ", ".join(
            [_plural(facts, "current fact"), _plural(docs, "document"), _plural(cols, "collection")]
        )
        summary = QLabel(
            f"<b>{name}</b> wrote {wrote} that are still in your vault. Its permissions and "
            "its private state go either way; the predicates it added stay in the vocabulary."
        )
        summary.setWordWrap(True)
        self.keep = QRadioButton("Keep what it wrote (it stays as part of your knowledge)")
        self.delete = QRadioButton(
            "Delete its documents and the collections it created, and let its facts expire "
            "(one run you can revert in View Changes)"
        )
        self.keep.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.keep)
        group.addButton(self.delete)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        go = buttons.addButton("Uninstall", QDialogButtonBox.ButtonRole.AcceptRole)
        go.setObjectName("uninstallButton")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (summary, self.keep, self.delete, buttons):
            layout.addWidget(widget)
