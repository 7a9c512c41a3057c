"""Running engine work off the UI thread.

A `Task` wraps one callable; it runs on the global QThreadPool and reports
back through a QObject's signals, which Qt delivers to the main thread by a
queued connection. Environment errors (`VaultError`, `QueryError`, OSError)
arrive as `failed(message)`; anything else is a bug and arrives as
`crashed(traceback)` so the window can show the crash dialog.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from knowledge_desktop.engine.query.inventory import QueryError
from knowledge_desktop.engine.vault import VaultError

KNOWN_ERRORS: tuple[type[BaseException], ...] = (VaultError, QueryError, OSError)


class TaskSignals(QObject):
    succeeded = Signal(object)
    failed = Signal(str)
    crashed = Signal(str)


class Task(QRunnable):
    def __init__(self, work: Callable[[], Any]) -> None:
        super().__init__()
        self.work = work
        self.signals = TaskSignals()
        self.setAutoDelete(True)

    def run(self) -> None:
        try:
            result = self.work()
        except KNOWN_ERRORS as exc:
            self.signals.failed.emit(str(exc))
        except Exception:
            self.signals.crashed.emit(traceback.format_exc())
        else:
            self.signals.succeeded.emit(result)


def run_task(
    work: Callable[[], Any],
    on_success: Callable[[Any], None],
    on_failure: Callable[[str], None],
    on_crash: Callable[[str], None],
    pool: QThreadPool | None = None,
) -> Task:
    task = Task(work)
    task.signals.succeeded.connect(on_success)
    task.signals.failed.connect(on_failure)
    task.signals.crashed.connect(on_crash)
    (pool or QThreadPool.globalInstance()).start(task)
    return task
