"""The main window: opens a vault on a worker and lists its records.

The five panes (catalog, record, backlinks, timeline, diagnostics) build on
this frame; for now it shows every record file with its kind, type and
lifecycle, and the scan summary in the status bar.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QThreadPool, Signal
from PySide6.QtWidgets import QHeaderView, QLabel, QMainWindow, QMessageBox, QTableView

from knowledge_desktop.engine.query.inventory import RecordFilter
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.models.records_model import RecordsModel
from knowledge_desktop.ui.tasks import run_task


class MainWindow(QMainWindow):
    loaded = Signal()
    load_failed = Signal(str)

    def __init__(self, pool: QThreadPool | None = None) -> None:
        super().__init__()
        self.pool = pool or QThreadPool.globalInstance()
        self.vault: Vault | None = None
        self.setWindowTitle("Knowledge Desktop")
        self.resize(1100, 700)
        self.model = RecordsModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.setCentralWidget(self.table)
        self.summary = QLabel("")
        self.statusBar().addPermanentWidget(self.summary)

    def open_vault(self, path: Path) -> None:
        self.statusBar().showMessage(f"Opening {path}…")

        def work() -> tuple[Vault, list[dict[str, Any]], dict[str, Any]]:
            vault = Vault.open(path)
            vault.reconcile()
            listed = vault.records(RecordFilter(include_ineligible=True, lifecycle="all"), limit=1000)
            rows = listed["items"]
            offset = listed["nextOffset"]
            while offset is not None:
                more = vault.records(
                    RecordFilter(include_ineligible=True, lifecycle="all"), limit=1000, offset=offset
                )
                rows.extend(more["items"])
                offset = more["nextOffset"]
            return vault, rows, vault.counts()

        run_task(work, self._on_loaded, self._on_failed, self._on_crash, self.pool)

    def _on_loaded(self, result: tuple[Vault, list[dict[str, Any]], dict[str, Any]]) -> None:
        vault, rows, counts = result
        if self.vault is not None:
            self.vault.close()
        self.vault = vault
        self.model.set_rows(rows)
        self.setWindowTitle(f"{vault.root.name} — Knowledge Desktop")
        sev = counts["diagnostics"]
        self.summary.setText(
            f"{counts['records']} records · {counts['unrecognized']} unrecognized"
            f" · {sev['error']} errors · {sev['warning']} warnings"
        )
        self.statusBar().showMessage(f"Opened {vault.root}", 5000)
        self.loaded.emit()

    def _on_failed(self, message: str) -> None:
        self.statusBar().showMessage(message)
        self.load_failed.emit(message)
        QMessageBox.warning(self, "Cannot open vault", message)

    def _on_crash(self, trace: str) -> None:
        self.load_failed.emit(trace)
        QMessageBox.critical(self, "Internal error", trace)

    def closeEvent(self, event: Any) -> None:
        self.pool.waitForDone(5000)
        if self.vault is not None:
            self.vault.close()
            self.vault = None
        super().closeEvent(event)
