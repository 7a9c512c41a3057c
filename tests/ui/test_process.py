"""Process-wide settings the window makes for its worker threads."""

from __future__ import annotations

import sys

import pytest

from knowledge_desktop.ui import process


def test_the_window_process_is_tuned_for_threads() -> None:
    process.tune_for_window()
    assert sys.getswitchinterval() == pytest.approx(process.SWITCH_INTERVAL_S)
    if sys.platform.startswith("linux"):
        assert process.limit_malloc_arenas(process.MALLOC_ARENAS)
