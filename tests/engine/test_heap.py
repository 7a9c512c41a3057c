"""The pause of full collections is the process's: counted across threads (engine/heap.py)."""

from __future__ import annotations

import gc
import threading

from knowledge_desktop.engine.heap import PAUSED_FULL_THRESHOLD, full_collections_paused


def test_the_pause_lasts_until_its_last_holder_leaves() -> None:
    normal = gc.get_threshold()
    entered, leave = threading.Event(), threading.Event()

    def other_holder() -> None:
        with full_collections_paused():
            entered.set()
            leave.wait(10)

    with full_collections_paused():
        thread = threading.Thread(target=other_holder)
        thread.start()
        assert entered.wait(10)
    # This thread left first: the other still holds the pause.
    assert gc.get_threshold()[2] == PAUSED_FULL_THRESHOLD
    leave.set()
    thread.join(10)
    assert gc.get_threshold() == normal


def test_nested_holders_in_one_thread_restore_once() -> None:
    normal = gc.get_threshold()
    with full_collections_paused():
        with full_collections_paused():
            assert gc.get_threshold()[2] == PAUSED_FULL_THRESHOLD
        assert gc.get_threshold()[2] == PAUSED_FULL_THRESHOLD
    assert gc.get_threshold() == normal
