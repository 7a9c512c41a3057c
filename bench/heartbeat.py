"""Measuring how long the UI thread goes without serving its event loop.

A timer asks to fire every `interval_ms`; when the loop is busy the tick
arrives late, and the delay beyond the interval is a stall the user felt
(a frozen window). The UI benchmarks (live.py, ui.py) read `worst_ms`; the app itself never
runs one, so it lives here beside them rather than in the package.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer


class Heartbeat(QObject):
    def __init__(self, interval_ms: int = 10, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.interval_ms = interval_ms
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)
        self._last = 0.0
        self.worst_ms = 0.0
        self.stalls: list[float] = []

    def start(self) -> None:
        self.reset()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def reset(self) -> None:
        self._last = time.perf_counter()
        self.worst_ms = 0.0
        self.stalls = []

    def _tick(self) -> None:
        now = time.perf_counter()
        late = (now - self._last) * 1000 - self.interval_ms
        self._last = now
        self.worst_ms = max(self.worst_ms, late)
        if late > 50:
            self.stalls.append(late)


def pump_until(app: QCoreApplication, condition: Callable[[], bool], timeout: float) -> bool:
    """Serve the event loop until `condition()` holds (True) or `timeout` seconds pass (False):
    how the window benchmarks wait for a pane without a nested loop of their own."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        app.processEvents()
        if condition():
            return True
        time.sleep(0.001)
    return False
