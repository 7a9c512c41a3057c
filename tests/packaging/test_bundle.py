"""The double-click build: PyInstaller makes a one-folder bundle that starts.

Slow (about a minute to build), so it runs only with
`pip install -e '.[test,package]' && python -m pytest --run-slow -m slow`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_bundle_builds_and_renders_the_demo_vault(tmp_path: Path) -> None:
    pytest.importorskip("PyInstaller")
    subprocess.run([sys.executable, str(ROOT / "packaging" / "build.py")], check=True, timeout=1200)
    executable = ROOT / "dist" / "knowledge-desktop" / "knowledge-desktop"
    assert executable.is_file()
    shot = tmp_path / "bundle.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path / "config")}
    done = subprocess.run(
        [str(executable), "--screenshot", str(shot)],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_the_bundle_reports_a_bad_folder_and_exits_non_zero(tmp_path: Path) -> None:
    executable = ROOT / "dist" / "knowledge-desktop" / "knowledge-desktop"
    if not executable.is_file():
        pytest.skip("build the bundle first (the test above does)")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path / "config")}
    done = subprocess.run(
        [str(executable), str(tmp_path / "missing"), "--screenshot", str(tmp_path / "x.png")],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        check=False,
    )
    assert done.returncode == 2
    assert "no such folder" in done.stderr
