"""Correct… as a form: the replacement of a claim or relationship, and Back from its review.

The replacement starts as the original's file without the fields the store
assigns (`write_ops.correction_draft`), shown field by field; the review is
the one confirmation dialog every write shows (`PublishDialog`), given a Back
button here that closes it and shows the form again as it was left.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDialogButtonBox, QWidget

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.forms.record_form import RecordForm
from knowledge_desktop.ui.tasks import Runner
from knowledge_desktop.ui.write_ops import Operation, Subject

if TYPE_CHECKING:
    from knowledge_desktop.ui.publish_dialog import PublishDialog


def correction_form(
    vault: Vault,
    runner: Runner,
    subject: Subject,
    text: str,
    operation: Callable[[str], Operation],
    parent: QWidget | None = None,
) -> RecordForm:
    intro = (
        f"The replacement for {subject.label}. It becomes a new record; the original is kept, "
        "superseded by it. Change what was wrong and review the result."
    )
    return RecordForm(
        vault,
        runner,
        subject.kind,
        text,
        operation,
        title=f"Correct {subject.kind}",
        intro=intro,
        scope=subject.scope or None,
        parent=parent,
    )


def with_back(dialog: PublishDialog | None, form: RecordForm) -> None:
    """Give the review a Back button: it closes the review and shows `form` as it was."""
    if dialog is None:
        return
    back = dialog.buttons.addButton("◀ Back", QDialogButtonBox.ButtonRole.ResetRole)
    back.setToolTip("Return to the form, with everything as you left it")
    back.setAutoDefault(False)

    def go_back() -> None:
        dialog.reject()
        form.open()

    back.clicked.connect(go_back)
