"""Cost ratios instead of wall-clock limits: a guard against a pathological pattern runs the
work on an input of size n and of size 4n and compares the two costs. Linear work costs
4 times as much, quadratic work 16 times; an absolute limit instead says nothing on a fast
machine and fails on a loaded one. (With 2n the two were 2 and 4 apart, and a loaded
machine's noise alone made ×3.9 out of a linear ×2.)

The cost is this process's CPU time (`time.process_time`, all its threads), the least of a
few runs, so that other processes on a shared machine do not count; and the sizes are
small, so that a quadratic regression fails in seconds rather than hanging the suite.
"""

from __future__ import annotations

import time
from collections.abc import Callable

GROWTH = 4
"""How much larger the second input is."""
LINEAR = 8.0
"""The largest cost(4n) / cost(n) accepted: linear is 4, quadratic 16."""


def cpu_cost(work: Callable[[], object], runs: int = 2) -> float:
    """The least CPU time of `runs` runs of `work`."""
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def assert_near_linear(work: Callable[[int], object], n: int, limit: float = LINEAR) -> float:
    """Fail when `work(4n)` costs more than `limit` times `work(n)`; the ratio."""
    small = cpu_cost(lambda: work(n))
    large = cpu_cost(lambda: work(GROWTH * n))
    ratio = large / max(small, 1e-3)
    assert ratio <= limit, f"size {n} → {GROWTH * n}: cost {small:.3f} s → {large:.3f} s (×{ratio:.1f})"
    return ratio
