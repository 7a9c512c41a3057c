"""The Catalog pane's filter bar: a text filter, and facets folded behind a Filters button.

The text narrows by title, alias, id or path (debounced while typing); the
facets choose a tag, a lifecycle state, a validity and the sort order. The
facets fold away behind one button on the filter row (as in the Search
pane), so a narrow catalog keeps its height for the tree; the button says
which facets are set. `changed` fires when the user changes any of them;
restoring settings or refilling the tag list never fires it.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLineEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.query.catalog_tree import CatalogQuery

LIFECYCLE_CHOICES = (
    ("all", "All lifecycles"),
    ("active", "Active"),
    ("superseded", "Superseded"),
    ("withdrawn", "Withdrawn"),
    ("merged", "Merged"),
)
VALIDITY_CHOICES = (
    ("all", "Any validity"),
    ("valid", "Valid"),
    ("invalid", "Invalid"),
    ("current", "Current now"),
    ("outside", "Expired or not yet valid"),
)
SORT_CHOICES = (("title", "Sort by title"), ("updated", "Sort by last update"), ("type", "Sort by type"))
FILTER_DELAY_MS = 150


class CatalogFilters(QWidget):
    changed = Signal()
    """The user changed the text or a facet (debounced while typing)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._syncing = False
        self._wanted_tag: str | None = None

        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by title, alias, id or path")
        self.filter.setClearButtonEnabled(True)
        self.filter.setToolTip("Shows only files whose title, alias, id or path contains this text")
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(FILTER_DELAY_MS)
        self._debounce.timeout.connect(self._changed)
        self.filter.textChanged.connect(lambda _text: self._debounce.start())

        self.tag = QComboBox()
        self.tag.setToolTip("Only records carrying this tag")
        self.tag.addItem("All tags", "")
        self.lifecycle = _combo(LIFECYCLE_CHOICES, "Only records in this lifecycle state")
        self.validity = _combo(
            VALIDITY_CHOICES,
            "Valid or invalid records; current ones (eligible and inside their validity window now); "
            "or those whose window has ended or not begun",
        )
        self.sort = _combo(SORT_CHOICES, "Order of the records inside each group")
        for combo in (self.tag, self.lifecycle, self.validity, self.sort):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(8)
            combo.currentIndexChanged.connect(self._changed)
            combo.currentIndexChanged.connect(self._describe_facets)

        self.filters_button = QToolButton()
        self.filters_button.setText("Filters")
        self.filters_button.setCheckable(True)
        self.filters_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)

        self.facets = QWidget()
        facets = QGridLayout(self.facets)
        facets.setContentsMargins(0, 0, 0, 0)
        facets.setHorizontalSpacing(4)
        facets.setVerticalSpacing(4)
        facets.addWidget(self.tag, 0, 0)
        facets.addWidget(self.lifecycle, 0, 1)
        facets.addWidget(self.validity, 1, 0)
        facets.addWidget(self.sort, 1, 1)
        self.filters_button.toggled.connect(self.facets.setVisible)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        filter_row = QHBoxLayout()
        filter_row.setContentsMargins(0, 0, 0, 0)
        filter_row.setSpacing(4)
        filter_row.addWidget(self.filter, 1)
        filter_row.addWidget(self.filters_button)
        layout.addLayout(filter_row)
        layout.addWidget(self.facets)
        self.facets.setVisible(False)
        self._describe_facets()

    def query(self) -> CatalogQuery:
        """The catalog query these choices ask for."""
        tag = self.tag.currentData()
        return CatalogQuery(
            text=self.filter.text().strip(),
            tag=str(tag) if tag else None,
            lifecycle=str(self.lifecycle.currentData()),
            validity=str(self.validity.currentData()),
            sort=str(self.sort.currentData()),
        )

    def set_tags(self, tags: list[str]) -> None:
        """Offer these tags, keeping the one chosen (or the one saved, on the first list)."""
        wanted = self.tag.currentData() or self._wanted_tag
        self._syncing = True
        try:
            self.tag.clear()
            self.tag.addItem("All tags", "")
            for tag in tags:
                self.tag.addItem(f"#{tag}", tag)
            found = self.tag.findData(wanted) if wanted else -1
            self.tag.setCurrentIndex(max(found, 0))
        finally:
            self._syncing = False
        self._wanted_tag = None

    def choose_tag(self, tag: str) -> None:
        """Filter by `tag` (a clicked `#tag`), offering it even before the vault's tag list
        names it (an inline tag of a note the list has not caught up with)."""
        found = self.tag.findData(tag)
        if found < 0:
            self.tag.addItem(f"#{tag}", tag)
            found = self.tag.count() - 1
        self.filters_button.setChecked(True)
        self.tag.setCurrentIndex(found)  # fires `changed` when it is a new choice

    # -- settings ------------------------------------------------------------------------
    def save(self, settings: QSettings) -> None:
        settings.setValue("catalog/facets_shown", self.filters_button.isChecked())
        settings.setValue("catalog/tag", self.tag.currentData() or "")
        settings.setValue("catalog/lifecycle", self.lifecycle.currentData())
        settings.setValue("catalog/validity", self.validity.currentData())
        settings.setValue("catalog/sort", self.sort.currentData())

    def restore(self, settings: QSettings) -> None:
        self._syncing = True
        try:
            for combo, key in (
                (self.lifecycle, "catalog/lifecycle"),
                (self.validity, "catalog/validity"),
                (self.sort, "catalog/sort"),
            ):
                found = combo.findData(str(settings.value(key, "")))
                if found >= 0:
                    combo.setCurrentIndex(found)
        finally:
            self._syncing = False
        # The tag list arrives from the vault later; the saved tag is chosen then.
        self._wanted_tag = str(settings.value("catalog/tag", "") or "") or None
        shown = settings.value("catalog/facets_shown", False)
        self.filters_button.setChecked(shown is True or str(shown).lower() == "true")
        self._describe_facets()

    # -- inside ----------------------------------------------------------------------------
    def _changed(self) -> None:
        if not self._syncing:
            self.changed.emit()

    def _active_facets(self) -> list[str]:
        """The facets set away from their default, as their combo reads."""
        return [
            combo.currentText()
            for combo in (self.tag, self.lifecycle, self.validity, self.sort)
            if combo.currentIndex() > 0
        ]

    def _describe_facets(self) -> None:
        active = self._active_facets()
        self.filters_button.setText(f"Filters ({len(active)})" if active else "Filters")
        summary = ", ".join(active) if active else "none set: all tags, lifecycles and validity, by title"
        self.filters_button.setToolTip(f"Tag, lifecycle, validity and sort — {summary}")


def _combo(choices: tuple[tuple[str, str], ...], tip: str) -> QComboBox:
    combo = QComboBox()
    combo.setToolTip(tip)
    for value, label in choices:
        combo.addItem(label, value)
    return combo
