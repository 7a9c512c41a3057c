"""The Runner: answers come back on the UI thread, and overtaken keyed work is dropped."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest
from PySide6.QtCore import QThreadPool
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.tasks import Runner
from tests.vaultkit import VaultKit


class Payload:
    """Something a job's work holds, that a weak reference can watch."""


def one_thread_runner() -> tuple[Runner, QThreadPool]:
    pool = QThreadPool()
    pool.setMaxThreadCount(1)
    return Runner(pool), pool


def test_answers_arrive_on_the_ui_thread(qtbot: QtBot) -> None:
    runner, _ = one_thread_runner()
    seen: list[tuple[object, bool]] = []
    runner.submit(
        lambda: 42, lambda v: seen.append((v, threading.current_thread() is threading.main_thread()))
    )
    qtbot.waitUntil(lambda: runner.running == 0)
    assert seen == [(42, True)]
    runner.close()


def test_a_queued_request_overtaken_by_a_newer_one_of_its_key_never_runs(qtbot: QtBot) -> None:
    runner, _ = one_thread_runner()
    gate = threading.Event()
    ran: list[str] = []
    answered: list[str] = []
    # The only worker is held, so the keyed requests below queue behind it.
    runner.submit(lambda: gate.wait(5), lambda _: None)
    for name in ("first", "second", "third"):
        runner.submit(lambda n=name: ran.append(n) or n, answered.append, key="view")
    runner.submit(lambda: ran.append("other") or "other", answered.append, key="elsewhere")
    gate.set()
    qtbot.waitUntil(lambda: runner.running == 0)
    assert ran == ["third", "other"]
    assert answered == ["third", "other"]
    runner.close()


def test_a_running_request_overtaken_later_still_drops_its_answer(qtbot: QtBot) -> None:
    runner, _ = one_thread_runner()
    started = threading.Event()
    gate = threading.Event()
    answered: list[str] = []

    def slow() -> str:
        started.set()
        gate.wait(5)
        return "old"

    runner.submit(slow, answered.append, key="view")
    assert started.wait(5)
    runner.submit(lambda: "new", answered.append, key="view")
    gate.set()
    qtbot.waitUntil(lambda: runner.running == 0)
    assert answered == ["new"]
    runner.close()


def test_queries_on_pool_threads_reuse_their_connections(qtbot: QtBot, kit: VaultKit) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    vault = kit.scan()
    runner, _ = one_thread_runner()
    seen: list[int] = []
    for _ in range(5):
        runner.submit(lambda: id(vault.store.reader()), seen.append)
        qtbot.waitUntil(lambda: runner.running == 0)
    assert len(set(seen)) == 1  # one pool thread, one connection, however many jobs
    runner.close()


def test_an_answer_nobody_takes_goes_to_on_dropped(qtbot: QtBot) -> None:
    runner, _ = one_thread_runner()
    started, release = threading.Event(), threading.Event()
    answered: list[str] = []
    dropped: list[str] = []

    def slow() -> str:
        started.set()
        release.wait(5)
        return "first"

    runner.submit(slow, answered.append, key="open", on_dropped=dropped.append)
    assert started.wait(5)
    runner.submit(lambda: "second", answered.append, key="open", on_dropped=dropped.append)
    release.set()
    qtbot.waitUntil(lambda: runner.running == 0)
    assert (answered, dropped) == (["second"], ["first"])
    runner.close()


def test_work_finishing_after_close_is_disposed_on_the_worker(qtbot: QtBot) -> None:
    runner, pool = one_thread_runner()
    started, release = threading.Event(), threading.Event()
    disposed: list[tuple[str, bool]] = []

    def slow() -> str:
        started.set()
        release.wait(5)
        return "vault"

    runner.submit(
        slow,
        lambda _: pytest.fail("a closed runner answered"),
        on_dropped=lambda r: disposed.append((r, threading.current_thread() is threading.main_thread())),
    )
    assert started.wait(5)
    threading.Timer(0.05, release.set).start()
    runner.close()  # waits for the worker
    assert disposed == [("vault", False)]
    pool.waitForDone(5000)


def test_background_work_leaves_the_pool_to_the_panes(qtbot: QtBot) -> None:
    runner, _ = one_thread_runner()
    release = threading.Event()
    answered: list[str] = []
    for n in range(3):  # more long jobs than the background pool has threads
        runner.submit(lambda n=n: release.wait(10) and f"long {n}", answered.append, background=True)
    runner.submit(lambda: "pane", answered.append)
    qtbot.waitUntil(lambda: answered == ["pane"], timeout=5000)
    release.set()
    qtbot.waitUntil(lambda: runner.running == 0, timeout=10_000)
    assert sorted(answered) == ["long 0", "long 1", "long 2", "pane"]
    runner.close()


def test_an_urgent_request_goes_before_the_queued_ones(qtbot: QtBot) -> None:
    runner, _ = one_thread_runner()
    gate = threading.Event()
    ran: list[str] = []
    runner.submit(lambda: gate.wait(5), lambda _: None)  # holds the only worker
    for name in ("catalog", "timeline"):
        runner.submit(lambda n=name: ran.append(n), lambda _: None)
    runner.submit(lambda: ran.append("search"), lambda _: None, urgent=True)
    gate.set()
    qtbot.waitUntil(lambda: runner.running == 0)
    assert ran == ["search", "catalog", "timeline"]
    runner.close()


def test_finished_work_holds_nothing_once_the_pool_is_done(qtbot: QtBot) -> None:
    """What a job held (its work, its callbacks) is let go once the pool says it is done,
    not at some later garbage collection. Jobs run one after another, each answer taken on
    this thread while the worker is still returning from the job, as in the window: a
    QRunnable job run so stayed referenced from the pool's Python wrapper after Qt deleted
    it, with its closures and, through them, the Runner — a cycle with the Runner's pool
    that the window-lifetime check saw only when no garbage collection happened to run
    first (which hangs on what ran before in the process: under xdist, it failed), and in
    the window, whose pool is the global one, a leak for good."""
    runner, pool = one_thread_runner()
    payloads = [Payload() for _ in range(10)]
    held = [weakref.ref(p) for p in payloads]
    answered: list[int] = []
    for n, payload in enumerate(payloads):
        runner.submit(lambda n=n, p=payload: n if p else -1, answered.append)
        qtbot.waitUntil(lambda: runner.running == 0)
        qtbot.waitUntil(lambda: pool.activeThreadCount() == 0)  # the worker is done with it
    del payload, payloads
    runner.close()
    assert answered == list(range(10))
    gc.collect()  # what is left is held, not merely waiting for a collection
    assert [n for n, ref in enumerate(held) if ref() is not None] == []
    assert pool.activeThreadCount() == 0
