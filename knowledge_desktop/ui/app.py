"""`knowledge-desktop [VAULT] [--screenshot FILE.png]`: the window, on the demo vault by default."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from knowledge_desktop.resources import demo_vault_path


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="knowledge-desktop", description="Browse a knowledge vault.")
    parser.add_argument("vault", nargs="?", help="vault folder (default: the bundled demo vault)")
    parser.add_argument(
        "--screenshot", metavar="FILE.png", help="render the window to a PNG once loaded, then exit"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from knowledge_desktop.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Knowledge Desktop")
    app.setOrganizationName("Knowledge Desktop")
    window = MainWindow()
    window.show()
    path = Path(args.vault) if args.vault else demo_vault_path()
    exit_code = 0
    if args.screenshot:
        target = Path(args.screenshot)

        def shoot() -> None:
            app.processEvents()
            ok = window.grab().save(str(target))
            if not ok:
                sys.stderr.write(f"knowledge-desktop: could not write {target}\n")
            app.exit(0 if ok else 1)

        def failed(message: str) -> None:
            sys.stderr.write(f"knowledge-desktop: {message.splitlines()[-1]}\n")
            app.exit(2)

        window.loaded.connect(lambda: QTimer.singleShot(200, shoot))
        window.load_failed.connect(failed)
    window.open_vault(path)
    exit_code = app.exec()
    return int(exit_code)


if __name__ == "__main__":
    raise SystemExit(main())
