"""Build the one-folder bundle, and optionally install it for the current user.

    python packaging/build.py            # → dist/knowledge-desktop/{knowledge-desktop,knowledge}
    python packaging/build.py --install  # also: ~/.local/opt, a menu entry and an icon
    python packaging/build.py --dist D   # build into D/knowledge-desktop instead

The folder holds two executables over one copy of everything else: the window
`knowledge-desktop` and the command line `knowledge` (also `knowledge mcp` for
an agent). The code bundled is this checkout's (the spec finds it by SPECPATH).

Installing copies the bundle to ~/.local/opt/knowledge-desktop, writes a
desktop entry to ~/.local/share/applications (so the app starts from the
desktop menu and the file manager's "Open With" on folders) and the icon to
~/.local/share/icons/hicolor.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
BUNDLE = DIST / "knowledge-desktop"


def build(dist: Path = DIST) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--log-level=WARN",
            "--distpath",
            str(dist),
            "--workpath",
            str(dist.parent / "build" / "pyinstaller"),  # ./build beside ./dist
            str(ROOT / "packaging" / "knowledge-desktop.spec"),
        ],
        check=True,
        cwd=ROOT,
    )
    return dist / "knowledge-desktop" / "knowledge-desktop"


def install(home: Path) -> Path:
    target = home / ".local" / "opt" / "knowledge-desktop"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(BUNDLE, target, symlinks=True)
    icons = home / ".local" / "share" / "icons" / "hicolor"
    for size in ("256", "64"):
        folder = icons / f"{size}x{size}" / "apps"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy2(
            ROOT / "resources" / "icons" / f"knowledge-desktop-{size}.png", folder / "knowledge-desktop.png"
        )
    scalable = icons / "scalable" / "apps"
    scalable.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "resources" / "icons" / "knowledge-desktop.svg", scalable / "knowledge-desktop.svg")
    entry = (ROOT / "packaging" / "knowledge-desktop.desktop").read_text("utf-8")
    entry = entry.replace("Exec=knowledge-desktop", f"Exec={target / 'knowledge-desktop'}")
    applications = home / ".local" / "share" / "applications"
    applications.mkdir(parents=True, exist_ok=True)
    desktop = applications / "knowledge-desktop.desktop"
    desktop.write_text(entry, "utf-8")
    if shutil.which("update-desktop-database"):
        subprocess.run(["update-desktop-database", str(applications)], check=False)
    return desktop


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--install", action="store_true", help="install for the current user after building")
    parser.add_argument(
        "--dist", type=Path, default=DIST, help="build into DIST/knowledge-desktop (default: ./dist)"
    )
    args = parser.parse_args()
    if args.install and args.dist.resolve() != DIST:
        parser.error("--install copies ./dist/knowledge-desktop: leave out --dist")
    executable = build(args.dist.resolve())
    print(f"built {executable}")
    if args.install:
        print(f"installed {install(Path.home())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
