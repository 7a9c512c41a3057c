"""`knowledge-desktop [VAULT] [--screenshot FILE.png [--select ID]] [--repository FOLDER]`: the window.

With no folder it reopens the last vault, or the demo vault the first time
(or with `--demo`): a copy of the bundled one in the user's data folder
(ui/demo.py), with the welcome page in the record pane on that first start.
`--screenshot` waits until the vault is loaded (and the selected record
shown), renders the window to a PNG and exits: 0 when written, non-zero with a one-line message otherwise.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

ENTITY_KINDS = ("decision", "concept", "change", "commit")
"""`--select` with an id of one of these kinds names a repository entity (with `--repository`)."""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="knowledge-desktop", description="Browse a knowledge vault.")
    parser.add_argument(
        "vault", nargs="?", help="vault folder (default: the last vault, else the bundled demo vault)"
    )
    parser.add_argument("--demo", action="store_true", help="open the bundled demo vault")
    parser.add_argument(
        "--screenshot", metavar="FILE.png", help="render the window to a PNG once loaded, then exit"
    )
    parser.add_argument(
        "--select",
        metavar="ID",
        help="open this record (id or path) once loaded; with --repository, an entity id shows that entity",
    )
    parser.add_argument(
        "--pane",
        choices=("catalog", "search", "backlinks", "timeline", "diagnostics", "activity", "repository"),
        help="bring this pane to the front once loaded (useful with --screenshot)",
    )
    parser.add_argument(
        "--record-tab",
        choices=("rendered", "source", "history", "facts"),
        help="show this tab of the record pane (useful with --select and --screenshot)",
    )
    parser.add_argument(
        "--repository", metavar="FOLDER", help="add this documentation repository to the vault once loaded"
    )
    parser.add_argument(
        "--as-of",
        metavar="DATE|COMMIT",
        help="then show the vault as it was at this day (YYYY-MM-DD) or checkpoint, read-only",
    )
    parser.add_argument("--search", metavar="TEXT", help="type this into the search box once loaded")
    parser.add_argument(
        "--event-log", metavar="FILE", help="append one JSON line per applied change set to FILE"
    )
    parser.add_argument("--no-watch", action="store_true", help="do not watch the vault for outside edits")
    parser.add_argument("--size", metavar="WxH", default=None, help="window size, e.g. 1400x900")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    from knowledge_desktop.ui.process import tune_for_window

    tune_for_window()  # before Qt starts threads of its own (each would get an arena)
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from knowledge_desktop.ui.dialogs import install_crash_hook
    from knowledge_desktop.ui.main_window import MainWindow
    from knowledge_desktop.ui.style import apply_style

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("Knowledge Desktop")
    app.setOrganizationName("Knowledge Desktop")
    app.setDesktopFileName("knowledge-desktop")
    apply_style(app)
    from PySide6.QtGui import QIcon

    from knowledge_desktop.resources import resource_path

    app.setWindowIcon(QIcon(str(resource_path("icons", "knowledge-desktop-256.png"))))
    window = MainWindow(watch=not args.no_watch, event_log=Path(args.event_log) if args.event_log else None)
    if args.size:
        width, _, height = args.size.partition("x")
        window.resize(int(width), int(height))
    window.show()
    given = Path(args.vault) if args.vault else None
    path = window.welcome.start_path(given, demo=args.demo or bool(args.screenshot))

    def after_load() -> None:
        if args.as_of and window.vault is not None and window.vault.as_of is None:
            window.past.open(args.as_of, args.as_of)  # loads again: the rest follows then
            return
        if args.repository:
            folder = Path(args.repository).resolve()
            if args.select and args.select.split(":", 1)[0] in ENTITY_KINDS:
                window.repository.pending_reveal = (str(folder), args.select)
                args.select = None
            window.repository.add_repository(folder)
        if args.pane:
            window.focus_pane(args.pane.capitalize())
            if args.pane == "repository":  # give it room: it is a wide table
                dock = window.docks["Repository"]
                window.resizeDocks([dock], [window.width() * 45 // 100], Qt.Orientation.Horizontal)
        if args.search:
            window.search.set_query(args.search)
        if args.record_tab == "facts":  # the tab appears once the page's facts are read
            record = window.record

            def show_facts(available: bool) -> None:
                if available:
                    record.tabs.setCurrentWidget(record.facts)

            record.facts.available.connect(show_facts)
        elif args.record_tab:
            tabs = window.record.tabs
            tabs.setCurrentIndex(
                [tabs.tabText(i).lower() for i in range(tabs.count())].index(args.record_tab)
            )
        if args.select:
            window.open_record(args.select)

    window.loaded.connect(after_load)
    if args.screenshot:
        target = Path(args.screenshot)

        def shoot() -> None:
            app.processEvents()
            ok = window.grab().save(str(target))
            if not ok:
                sys.stderr.write(f"knowledge-desktop: could not write {target}\n")
            app.exit(0 if ok else 1)

        def failed(message: str) -> None:
            sys.stderr.write(f"knowledge-desktop: {message.strip().splitlines()[-1]}\n")
            app.exit(2)

        def settle() -> None:
            # Panes fill on workers; shoot once every pending answer has arrived.
            if window.runner.running:
                QTimer.singleShot(100, settle)
            else:
                QTimer.singleShot(300, shoot)

        def loaded() -> None:
            if not args.as_of or (window.vault is not None and window.vault.as_of is not None):
                QTimer.singleShot(300, settle)

        window.loaded.connect(loaded)
        window.load_failed.connect(failed)
    window.open_vault(path)
    # A bug on the main thread (in a slot) reaches the crash dialog as a worker's does.
    restore_hook = install_crash_hook(window.show_crash)
    try:
        return int(app.exec())
    finally:
        restore_hook()


if __name__ == "__main__":
    raise SystemExit(main())
