"""The nearest-rank percentile the benchmarks report their figures with.

Five scripts (facts.py, facts_pane.py, live.py, publish.py, ui.py) quote p50, p95
and max this way; they import it from here, beside them, so that a figure means the
same in every RESULTS.md row. (query.py interpolates between ranks instead, and says so.)
"""

from __future__ import annotations


def pct(values: list[float], q: float, digits: int = 1) -> float:
    """The value at rank `q` (0 to 1) of `values`, rounded to `digits` places."""
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], digits)
