"""Handing freed heap back to the operating system.

glibc keeps memory that Python and SQLite free in its heap for reuse and
rarely returns it on its own: queries that build large results (a whole-vault
timeline, the diagnostics list, a catalog page at 100k records) leave the
resident size higher after each one. In the window on a 100k-record vault,
40 edits (each refreshing every pane) grew it from about 575 to 715 MiB, and
one `malloc_trim(0)` brought it back to 585 MiB. The call takes tens of
milliseconds on a large heap and runs without the interpreter lock, so the
window asks for it on a worker once the panes are quiet.

The opposite holds while searching: a search of common words builds and
frees arrays of several MiB (`query/ranking.py`). By default glibc hands
blocks that large to and from the kernel on every search, and each one is
page-faulted in again by the next (about a quarter of a 20 ms search at 100k
records). `keep_freed_blocks` keeps them in the heap for reuse; the idle
trim above still returns them once the window is quiet.
"""

from __future__ import annotations

import ctypes
import gc
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim


def return_free_heap() -> bool:
    """Release free heap pages to the system; False where there is no glibc."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
KEPT_BLOCK = 256 << 20
"""Blocks up to this size come from the heap and free space up to twice it stays there."""


@cache
def keep_freed_blocks() -> bool:
    """Serve large blocks from the heap and keep freed ones; False where there is no glibc."""
    if _malloc_trim() is None:
        return False
    mallopt: Callable[[int, int], int] = ctypes.CDLL(None).mallopt
    return bool(mallopt(M_MMAP_THRESHOLD, KEPT_BLOCK)) and bool(mallopt(M_TRIM_THRESHOLD, 2 * KEPT_BLOCK))


PAUSED_FULL_THRESHOLD = 1 << 30
"""A generation-2 threshold no allocation pattern reaches: full collections paused."""


class _Pause:
    """How many threads want full collections paused, and the threshold to restore."""

    lock = threading.Lock()
    holders = 0
    restore_to = 0


@contextmanager
def full_collections_paused() -> Iterator[None]:
    """No automatic full garbage collections while bulk work builds the graph.

    A full collection walks every tracked object with the interpreter lock
    held; in the window that freezes the UI thread for as long (about 100 ms
    per collection at 10k records, 0.6 s at 100k), and bulk work that
    allocates steadily triggers several. Young collections still run, so the
    short-lived cycles of a parse are freed as usual; what survives is frozen
    afterwards (`return_freed_memory`).

    The setting is the process's, so the pause is counted across threads and
    lifted only when the last holder leaves: the window loads the graph
    beside the freshness check, and when the check ended first it restored
    full collections under the load (stalls of 300-500 ms at 100k).
    """
    with _Pause.lock:
        young, middle, full = gc.get_threshold()
        if _Pause.holders == 0:
            _Pause.restore_to = full
            gc.set_threshold(young, middle, PAUSED_FULL_THRESHOLD)
        _Pause.holders += 1
    try:
        yield
    finally:
        with _Pause.lock:
            _Pause.holders -= 1
            if _Pause.holders == 0:
                young, middle, _ = gc.get_threshold()
                gc.set_threshold(young, middle, _Pause.restore_to)


def return_freed_memory(full: bool = True) -> None:
    """Hand the heap pages a large reconcile freed back to the system.

    A cold scan decodes, encodes and drops several kilobytes of parse per
    file, and loading the graph decodes the whole parse cache; glibc keeps
    such freed small blocks in its heap, so without this a process that
    scanned 10,000 files stays about 80 MB larger for as long as the vault is
    open. `malloc_trim` releases the free pages; elsewhere it is a no-op.

    First the garbage is collected, then what survives — the graph, alive
    as long as the vault is open — is frozen out of later collections: each
    full collection would otherwise walk every node again (0.6 s at 100k
    records), and no thread, the window's included, runs meanwhile. This one
    collection is such a pause (about 90 ms at 10k records), but only a full
    one may precede the freeze: garbage other threads left in the oldest
    generation would be frozen with the graph and never freed (at 100k a
    young-only collection here left the window 100 MiB larger).

    `full=False` is for a graph restored from its snapshot (`graph.snapshot`),
    which makes next to no cyclic garbage (refcounts free the rest whether
    frozen or not): it is frozen without any collection. At 100k records the
    full collection stalled the window for 350-670 ms, and even a young one
    took 200-300 ms right after the restore (nothing after a freeze does).
    Nor is the heap trimmed then: the trim holds malloc's locks while it
    walks a heap that size, and the window trims once it is quiet.
    """
    if full:
        gc.collect()
    gc.freeze()
    if full:
        return_free_heap()
