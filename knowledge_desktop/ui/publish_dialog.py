"""The one dialog every write action shows before it publishes.

It plans the operation on a worker without publishing (`write_ops.preview`)
and shows what will change as a diff of each file's frontmatter (what will
be written, issue 29 §4), the records that depend on the target (impact, by
title), what can be undone and what cannot (before the button, §3), and asks
for a reason: Publish stays disabled until one is typed. Under the preview
it names who the write is by (the `actor` of its lifecycle change and
journal entry) with a link to Settings › Your Name…, since an account with
no full name reads `root` there; a new name plans the preview again. The fences, hashes
and request id are behind a Details disclosure, closed by default.
Publishing runs on a worker too; the panes learn of the result from the
ChangeSet the publish reconciles (`Vault.on_publish`), not from this dialog.
A stale fence — the file changed since it was shown — is explained here,
with a Reload that fences the records as they are now; nothing was written.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write.plan import WriteRejected
from knowledge_desktop.ui.tasks import Runner
from knowledge_desktop.ui.widgets.disclosure import Disclosure
from knowledge_desktop.ui.write_ops import (
    STALE_CODES,
    Operation,
    Preview,
    preview,
    publish,
    reload_fences,
)
from knowledge_desktop.ui.write_words import permanence

ADDED, REMOVED = "rgba(46, 160, 67, 0.22)", "rgba(248, 81, 73, 0.22)"


class PublishDialog(QDialog):
    """Preview, reason, publish — for one `Operation`."""

    previewed = Signal()
    """The preview (or its rejection) is shown."""
    finished_publish = Signal(object)
    """A publish attempt ended: its receipt, a WriteRejected, or an error message."""
    change_actor = Signal()
    """The person asked to change the name the write is by (Settings › Your Name…)."""

    def __init__(self, vault: Vault, runner: Runner, op: Operation, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.vault, self.runner, self.op = vault, runner, op
        self.preview: Preview | None = None
        self.receipt: dict[str, Any] | None = None
        self.busy = False
        self.setWindowTitle(f"{op.verb} — Knowledge Desktop")
        self.resize(720, 620)

        self.heading = heading = QLabel(f"<b>{html.escape(op.verb)}</b> {html.escape(op.summary)}")
        heading.setWordWrap(True)
        self.fence_label = QLabel("Planning…")
        self.fence_label.setWordWrap(True)
        self.fence_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.fence_label.setToolTip(
            "What the window showed: the write is refused if the file changed since then"
        )
        self.details = Disclosure("Details", self.fence_label)
        self.diff = QTextBrowser()
        self.diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.diff.setLineWrapMode(QTextBrowser.LineWrapMode.NoWrap)
        changes = QGroupBox("What will change (frontmatter)")
        QVBoxLayout(changes).addWidget(self.diff)
        self.actor_label = QLabel()
        self.actor_label.setWordWrap(True)
        self.actor_label.linkActivated.connect(lambda _link: self.change_actor.emit())
        self.actor_label.setToolTip(
            "The name the journal and the record's lifecycle change give as the actor"
        )
        self.set_actor(op.actor)
        self.impact = QListWidget()
        self.impact.setWordWrap(True)  # titles wrap; ids are in each row's tooltip
        self.impact.setMaximumHeight(120)
        self.impact_box = QGroupBox("Impact")
        QVBoxLayout(self.impact_box).addWidget(self.impact)
        self.impact_note = QLabel("Impact: no other record depends on it.")
        self.impact_note.hide()

        self.stale = QFrame()
        self.stale.setFrameShape(QFrame.Shape.StyledPanel)
        self.stale_label = QLabel()
        self.stale_label.setWordWrap(True)
        self.reload_button = QPushButton("Reload")
        self.reload_button.setToolTip("Read the records again and show what the action would change now")
        self.reload_button.clicked.connect(self.reload)
        row = QHBoxLayout(self.stale)
        row.addWidget(self.stale_label, 1)
        row.addWidget(self.reload_button)
        self.stale.hide()
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.hide()

        self.reason = QLineEdit()
        self.reason.setPlaceholderText("Why? Recorded with the change (required)")
        self.reason.textChanged.connect(self._update_buttons)
        reason_row = QHBoxLayout()
        reason_row.addWidget(QLabel("Reason:"))
        reason_row.addWidget(self.reason, 1)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.publish_button = self.buttons.addButton(op.verb, QDialogButtonBox.ButtonRole.AcceptRole)
        self.publish_button.setDefault(True)
        cancel = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        cancel.setAutoDefault(False)
        self.buttons.accepted.connect(self.publish)
        self.buttons.rejected.connect(self.reject)

        self.permanence = QLabel(permanence(op.verb))
        self.permanence.setWordWrap(True)
        self.permanence.setVisible(bool(self.permanence.text()))

        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(self.stale)
        layout.addWidget(changes, 1)
        layout.addWidget(self.actor_label)
        layout.addWidget(self.impact_box)
        layout.addWidget(self.impact_note)
        layout.addWidget(self.details)
        layout.addLayout(reason_row)
        layout.addWidget(self.error)
        layout.addWidget(self.permanence)
        layout.addWidget(self.buttons)
        self._update_buttons()
        self.reason.setFocus()
        self._plan()

    # -- preview --------------------------------------------------------------------
    def _plan(self) -> None:
        self.busy = True
        self._update_buttons()
        vault, op = self.vault, self.op
        key = f"preview-{id(self)}"
        self.runner.submit(lambda: preview(vault, op), self._previewed, self._failed, key=key)

    def _previewed(self, result: Preview | WriteRejected) -> None:
        self.busy = False
        if isinstance(result, WriteRejected):
            self.preview = None
            self._rejected(result)
        else:
            self.preview = result
            self.stale.hide()
            self._show(result)
        self._update_buttons()
        self.previewed.emit()

    def _show(self, shown: Preview) -> None:
        fences = "<br>".join(
            f"{html.escape(rid)} · revision {rev} · hash {html.escape(sha[:10])}"
            f'<span style="color:gray">{html.escape(sha[10:])}</span>'
            for rid, rev, sha in shown.fences
        )
        new = f"<br>New record id: {html.escape(shown.replacement_id)}" if shown.replacement_id else ""
        self.fence_label.setText(
            f"Fence (what the window showed; the write is refused if it changed):<br>{fences}"
            f"<br>Request id: {html.escape(shown.request_id)}{new}"
        )
        parts = []
        for diff in shown.diffs:
            note = " (new file)" if diff.new_file else ""
            parts.append(f"<div><b>{html.escape(diff.path)}</b>{note}</div><pre>")
            for line in diff.lines:
                color = ADDED if line.startswith("+") else REMOVED if line.startswith("-") else None
                text = html.escape(line)
                parts.append(f'<span style="background:{color}">{text}</span>\n' if color else text + "\n")
            parts.append("</pre>")
        self.diff.setHtml("".join(parts))
        self.impact.clear()
        for item in shown.impact:
            self.impact.addItem(impact_row(item))
        count = len(shown.impact)
        self.impact_box.setTitle(f"Impact: {count:,} record(s) depend on it (nothing is changed in them)")
        self.impact_box.setVisible(bool(count))  # an empty list box would only take room
        self.impact_note.setVisible(not count)

    def set_actor(self, actor: str | None) -> None:
        """Name who the write is by, with the link to change it (hidden when the engine's
        default, the OS login, applies)."""
        self.actor_label.setVisible(actor is not None)
        if actor is not None:
            self.actor_label.setText(
                f"By <b>{html.escape(actor)}</b> (<code>actor</code> above) · "
                '<a href="your-name">Change in Settings › Your Name…</a>'
            )

    def actor_changed(self, actor: str) -> None:
        """The name was changed while this dialog was open: show it and plan again."""
        if actor == self.op.actor:
            return
        self.op.actor = actor
        self.set_actor(actor)
        self.preview = None
        self._plan()

    def details_text(self) -> str:
        """The Details disclosure's text as plain text (tests read it)."""
        return self.fence_label.text().replace("<br>", "\n")

    def reload(self) -> None:
        """Fence the records as they are now and plan again (nothing was written)."""
        self.busy = True
        self.stale.hide()
        self.error.hide()
        self._update_buttons()
        vault, op = self.vault, self.op
        self.runner.submit(lambda: reload_fences(vault, op), self._reloaded, self._failed)

    def _reloaded(self, op: Operation) -> None:
        self.op = op
        self._plan()

    # -- publish --------------------------------------------------------------------
    def publish(self) -> None:
        reason = self.reason.text().strip()
        if not reason or self.preview is None or self.busy:
            return
        self.busy = True
        self.error.hide()
        self._update_buttons()
        vault, op = self.vault, self.op
        self.runner.submit(lambda: publish(vault, op, reason), self._published, self._publish_failed)

    def _published(self, result: dict[str, Any] | WriteRejected) -> None:
        self.busy = False
        if isinstance(result, WriteRejected):
            self._rejected(result)
            self._update_buttons()
            self.finished_publish.emit(result)
            return
        self.receipt = result
        self.finished_publish.emit(result)
        self.accept()

    def _publish_failed(self, message: str) -> None:
        self._failed(message)
        self.finished_publish.emit(message)

    def _failed(self, message: str) -> None:
        self.busy = False
        self.error.setText(message)
        self.error.show()
        self._update_buttons()
        self.previewed.emit()

    def _rejected(self, rejected: WriteRejected) -> None:
        self.preview = None  # asking again would be refused alike: reload or cancel
        if rejected.code in STALE_CODES:
            self.preview = None
            self.stale_label.setText(
                f"<b>The record changed since it was shown.</b> {html.escape(rejected.message)}<br>"
                "Nothing was written. Reload to see what this would change now."
            )
            self.stale.show()
        else:
            self.error.setText(f"Refused ({rejected.code}): {rejected.message}. Nothing was written.")
            self.error.show()

    def _update_buttons(self) -> None:
        ready = self.preview is not None and not self.busy
        self.publish_button.setEnabled(ready and bool(self.reason.text().strip()))
        self.reload_button.setEnabled(not self.busy)


def impact_row(item: dict[str, Any]) -> QListWidgetItem:
    """A dependent as a person reads it: its title and how it depends (ids in the tooltip)."""
    kind = item.get("kind") or "record"
    if kind == "page" and item.get("type"):  # a person, a project: what a page is to a reader
        kind = item["type"]
    title = item.get("title") or item["id"]
    via = item.get("via")
    how = f" — names it in {via}" if via else ""
    row = QListWidgetItem(f"{title} ({kind}, {item.get('lifecycle')}){how}")
    row.setToolTip(f"{item['id']} · {item.get('path')}\n{via} of {item.get('through')}")
    return row
