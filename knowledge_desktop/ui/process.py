"""Process-wide settings for a window that shares its interpreter with engine workers.

The window's process runs Python on several threads (the UI, the watcher's
reconciles, the Runner's queries). Three defaults suit a batch
program better than that:

* The interpreter lock's switch interval (5 ms): a worker holding the lock
  makes the UI thread wait up to that long for every callback Qt makes into
  Python, and Qt makes one for each virtual call on a Python subclass (a
  model's data(), a widget's event()), thousands per layout. On a 1,000-file
  burst into a 10k vault the worst stall was about 250 ms at 1 ms and
  140–170 ms at 0.2 ms; 0.05 ms was no better on bursts and, in one run at
  100k, made single edits wait (p95 630 ms), so 0.2 ms it is.
* Thread priority: when the UI thread asks for the lock, the holder lets go
  and the waiting threads race to take it. Engine work runs at a lower
  priority (`background_thread`) so that, when the two cores are busy, the
  scheduler favours the UI thread in that race. On its own we could not
  measure a difference on a burst (the runs vary too much); it costs nothing.
* glibc's malloc arenas (up to 8 per core): each thread that allocates gets
  its own heap, and memory freed in one cannot serve another, so the
  resident size of a long-running window creeps up. Two arenas measured
  25 MiB less on the 100k-record vault, at no cost in speed we could see.

And one thing PySide6 does: once it is imported, its import hook (`__feature__`
support) reads the source of every module imported after it, to see whether the
module uses PySide6, and that source stays in `linecache`: 456 files, 14 MiB of
lines the window never shows. `drop_source_lines` lets them go once the window's
modules are imported (a traceback reads its lines again when one is formatted).
"""

from __future__ import annotations

import ctypes
import linecache
import os
import sys
import threading

WORKER_NICENESS = 10
SWITCH_INTERVAL_S = 0.0002
MALLOC_ARENAS = 2
_M_ARENA_MAX = -8  # mallopt's parameter number in glibc's malloc.h


def tune_for_window() -> None:
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    limit_malloc_arenas(MALLOC_ARENAS)


def drop_source_lines() -> None:
    """Forget the module sources PySide6's import hook read (see above)."""
    linecache.clearcache()


def limit_malloc_arenas(count: int) -> bool:
    """Cap glibc's malloc arenas; False where there is no glibc (nothing changes)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_ARENA_MAX, count))


def background_thread() -> None:
    """Lower the calling thread's scheduling priority (Linux: threads have their own nice value)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        tid = threading.get_native_id()
        if os.getpriority(os.PRIO_PROCESS, tid) < WORKER_NICENESS:
            os.setpriority(os.PRIO_PROCESS, tid, WORKER_NICENESS)
    except OSError:  # not permitted here: the thread keeps its priority
        pass
