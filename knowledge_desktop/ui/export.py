"""File › Export Diagnostics…: pick a file and a format, write the report.

The report text comes from the engine's `diagnostics_report.render`, called
the way `knowledge diagnostics --format … --output …` calls it, so a file
saved from the window and one written by the CLI for the same vault are the
same bytes (apart from the generation time stamped inside).

The format follows the file name when its extension names one (someone who
types `report.csv` wants CSV whatever filter is showing), else the chosen
name filter, whose extension is then added. The file is written on a worker
with an atomic replace, so an existing report is never left half-written.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from knowledge_desktop.engine.fs.atomic import write_atomic
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.report import diagnostics_report
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.render.values import literal
from knowledge_desktop.ui.tasks import Runner


class ReportFormat(NamedTuple):
    key: str  # the engine's format name, as `--format` takes it
    label: str
    extensions: tuple[str, ...]  # first one is added to names without an extension

    @property
    def name_filter(self) -> str:
        patterns = " ".join(f"*{ext}" for ext in self.extensions)
        return f"{self.label} ({patterns})"


REPORT_FORMATS = (
    ReportFormat("html", "HTML report", (".html", ".htm")),
    ReportFormat("json", "JSON", (".json",)),
    ReportFormat("csv", "CSV spreadsheet", (".csv",)),
    ReportFormat("md", "Markdown", (".md", ".markdown")),
)


def name_filters() -> str:
    return ";;".join(f.name_filter for f in REPORT_FORMATS)


def choose_format(file_name: str, selected_filter: str) -> tuple[str, Path]:
    """The format to write and the final path, from the typed name and the chosen filter."""
    path = Path(file_name)
    suffix = path.suffix.lower()
    for fmt in REPORT_FORMATS:
        if suffix in fmt.extensions:
            return fmt.key, path
    chosen = next((f for f in REPORT_FORMATS if f.name_filter == selected_filter), REPORT_FORMATS[0])
    return chosen.key, path.with_name(path.name + chosen.extensions[0])


def report_text(vault: Vault, fmt: str) -> tuple[str, int]:
    """The report exactly as the CLI renders it, and how many diagnostics it lists."""
    items = vault.diagnostics()
    text = diagnostics_report.render(
        items,
        fmt,
        vault=str(vault.root),
        generated_at=utc_now_text(),
        merge_candidates=vault.merge_candidates(),
    )
    return text, len(items)


def write_report(vault: Vault, fmt: str, target: Path) -> int:
    """Render and write the report atomically; runs on a worker. Returns the count."""
    text, count = report_text(vault, fmt)
    try:
        write_atomic(target, text.encode("utf-8"))
    except OSError as exc:
        # The bare error names the hidden temp file; say which report failed instead.
        reason = exc.strerror or str(exc)
        raise OSError(f"Cannot write {target}: {reason}") from exc
    return count


def default_target(vault: Vault, folder: Path | None) -> Path:
    """Suggest a name outside the vault, so the report never shows up as a vault file: in the
    folder of the last export (`folder`, remembered by the pane), else the person's Documents
    folder, else their home — never beside the vault, which for the demo was the app's own
    install folder (issue 29, §8)."""
    return (folder if folder is not None and folder.is_dir() else documents_folder()) / (
        f"{vault.root.name}-diagnostics.html"
    )


def documents_folder() -> Path:
    """The person's Documents folder when it exists, else their home folder."""
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(documents) if documents and Path(documents).is_dir() else Path.home()


def export_diagnostics(
    parent: QWidget,
    runner: Runner,
    vault: Vault,
    *,
    folder: Path | None = None,
    on_written: Callable[[Path, int], None] | None = None,
) -> Path | None:
    """Ask for a file, then write the report on a worker. Returns the chosen path or None."""
    suggested = default_target(vault, folder)
    file_name, selected = QFileDialog.getSaveFileName(
        parent,
        "Export Diagnostics",
        str(suggested),
        name_filters(),
        REPORT_FORMATS[0].name_filter,
    )
    if not file_name:
        return None
    fmt, target = choose_format(file_name, selected)

    def failed(message: str) -> None:
        text = f"The diagnostics report was not saved.\n\n{message}"
        QMessageBox.warning(parent, "Export failed", literal(text))

    def done(count: int) -> None:
        if on_written is not None:
            on_written(target, count)

    # No key: every export the user asked for is written and confirmed.
    runner.submit(lambda: write_report(vault, fmt, target), done, failed)
    return target
