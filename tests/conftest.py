"""Shared test set-up: headless Qt, builders for small vaults on disk, and a check that
no test leaves a thread of its own running."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp/knowledge-desktop-test-runtime")
os.makedirs(os.environ["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)

import threading  # noqa: E402
import time  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from tests.vaultkit import VaultKit  # noqa: E402


@pytest.fixture(autouse=True)
def user_folders(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's cache and state folders (platformdirs) in a folder of the test's own: the
    engine remembers the vaults it opened there (engine/vault_state.py), and a test must
    neither read another test's memory nor write the real one's."""
    home = tmp_path_factory.mktemp("user")
    for variable in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(variable, str(home / variable.lower()))
    return home


@pytest.fixture
def kit(tmp_path: Path) -> Iterator[VaultKit]:
    """A temporary vault folder with helpers to write records and open it."""
    vault_kit = VaultKit(tmp_path / "vault")
    yield vault_kit
    vault_kit.close()


THREAD_GRACE_S = 5.0
"""How long the threads a test started get to finish after it: a stopped watcher or
pool ends its threads within milliseconds, but a loaded CI machine can be slow."""


def _outlives_tests(thread: threading.Thread) -> bool:
    """Threads that legitimately outlive the test that first ran code in them."""
    # Qt's pool threads (QThreadPool.globalInstance(), where the window's engine calls run)
    # are not Python's: Python only wraps them as "Dummy-N" the first time one runs Python
    # code, and the wrapper is never removed. Qt expires the threads themselves.
    return isinstance(thread, threading._DummyThread)


KNOWN_THREAD_LEAKS: dict[str, str] = {}
"""Tests known to leave threads behind, each for a bug in the code under test (not in
the test). Such a test fails once it stops leaking, so that its entry is removed."""


@pytest.fixture(autouse=True)
def no_thread_left_running(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that leaves a Python thread it started still running afterwards (a
    watcher, a worker pool, a timer that nobody stopped), daemon or not: a daemon thread
    that outlives its test keeps working on a vault the next test no longer expects."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + THREAD_GRACE_S
    alive = []
    for thread in threading.enumerate():
        if thread in before or _outlives_tests(thread):
            continue
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            alive.append(thread)
    known = KNOWN_THREAD_LEAKS.get(request.node.nodeid)
    if known and not alive:
        pytest.fail(f"no thread leaks any more ({known}): remove it from KNOWN_THREAD_LEAKS", pytrace=False)
    if alive and not known:
        names = ", ".join(sorted(f"{t.name} ({type(t).__module__}.{type(t).__qualname__})" for t in alive))
        pytest.fail(f"threads still running {THREAD_GRACE_S:g} s after the test: {names}", pytrace=False)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="also run tests marked slow (bundle build)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with `python -m pytest --run-slow -m slow`")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
