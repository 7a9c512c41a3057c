"""The Backlinks pane's "Documentation" section: repository entities the record supports.

Issue 17 §3: a vault claim that names a decision, concept or change (the
`memoryRelations` of the last extraction of each added repository) shows
that entity under the claim's backlinks. The Repository pane hands over a
small index (claim id → entities) after each extraction, so showing it costs
a dictionary lookup, never a query. Activating an entity shows it in the
Repository pane.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

KIND_WORDS = {"decision": "Decision", "concept": "Concept", "change": "Change"}

DocIndex = dict[str, list[tuple[str, str, str, str]]]
"""claim id → [(repository folder, entity id, kind, name)]."""


class DocumentationSection(QWidget):
    entity_requested = Signal(str, str)  # repository folder, entity id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.index: DocIndex = {}
        self.record_id: str | None = None
        self.heading = QLabel("Documentation")
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.heading.setContentsMargins(4, 4, 4, 0)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.setMaximumHeight(140)
        self.list.itemActivated.connect(self._activate)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.heading)
        layout.addWidget(self.list)
        self.setVisible(False)

    def set_index(self, index: DocIndex) -> None:
        self.index = index
        self.show_for(self.record_id)

    def show_for(self, record_id: str | None) -> None:
        """Show the entities the record `record_id` supports; hide when there are none."""
        self.record_id = record_id
        self.list.clear()
        rows = self.index.get(record_id or "", []) if record_id else []
        for root, entity_id, kind, name in rows:
            item = QListWidgetItem(f"{KIND_WORDS.get(kind, kind)}: {name}")
            item.setToolTip(f"{entity_id}\nin {root}")
            item.setData(Qt.ItemDataRole.UserRole, (root, entity_id))
            self.list.addItem(item)
        self.heading.setText(f"Documentation  ·  {len(rows)}")
        self.setVisible(bool(rows))

    def _activate(self, item: QListWidgetItem) -> None:
        root, entity_id = item.data(Qt.ItemDataRole.UserRole)
        self.entity_requested.emit(str(root), str(entity_id))
