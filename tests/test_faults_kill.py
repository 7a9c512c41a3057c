"""SIGKILL at random points of a cold index and of a burst reconcile, in the `knowledge` CLI
and in the window: every next open is consistent — integrity_check ok, the projections
equal a fresh scan of the same Markdown, the durable tables untouched, and no loss or
damage reported — because every change is written in one transaction and the state's
identity is committed before its manifest (spec: retrieval-and-dates, keeping
state.sqlite; ARCHITECTURE.md, data flow).

A kill between transactions tests less than one inside: each driver asserts a minimum of
kills that landed inside a write transaction (`faultkit.Tracker`), from named points (every
transaction boundary of a CLI scan; commits spread over the window's index and burst) and
aimed random kills. The default run kills 58 times on a 300-record vault; the soak
variants about 500 times on a 2,000-record vault: `python -m pytest -m soak`. Delays come
from a fixed seed printed with every failure (`FAULTKIT_SEED=N` draws others).
"""

from __future__ import annotations

import os
import random
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests import faultkit as fk

SEED = int(os.environ.get("FAULTKIT_SEED") or 20261204)
"""Fixed, so that a run is reproducible (and printed with every failure); `FAULTKIT_SEED=N`
draws other delays."""


def aim(n: int, window: float) -> float:
    """Every other random kill is aimed: after its delay, it waits (up to `window` s) for a
    write transaction to be open (`fk.Running.kill_inside`). The others strike wherever the
    delay falls: mostly between transactions, which take a small part of a run."""
    return window if n % 2 else 0.0


def boundaries(transactions: int) -> list[str]:
    """Every transaction boundary of a run: before its first write, then after each commit,
    and the last transaction's work done but not committed."""
    return ["begin:1", *(f"committed:{n}" for n in range(1, transactions)), f"commit:{transactions}"]


MARKER = "private/notes/faultkit-ready.md"
TRIES = 3
"""A CLI run that ended before its kill is checked too, then tried again within the shorter
time it took (a calibration run can be slower than the rest)."""


@dataclass(frozen=True)
class Plan:
    records: int
    body_max: int
    kills: int
    """Kills at random delays; named points come on top."""
    points: int = 0
    """Kills of the window at named points (the CLI drivers kill at every boundary)."""
    least: int = 0
    """Kills that must land inside a write transaction, of all the driver's kills."""


@dataclass
class Bench:
    root: Path
    home: Path
    cache: Path
    env: dict[str, str]
    rng: random.Random
    kills: int = 0
    landed: int = 0
    """Kills that struck inside a write transaction (`fk.Run.landed`)."""
    started: float = 0.0

    def check(self, run: fk.Run | None, durable: dict[str, list[Any]] | None = None) -> None:
        """What a killed run left: readable as it is, and consistent once opened again."""
        what = f"seed {SEED}, {run!r:.400}" if run is not None else f"seed {SEED}, unkilled run"
        if run is not None and run.killed:
            self.kills += 1
            self.landed += run.landed
        left = fk.state_after_kill(self.root)
        assert left is None or left.integrity == ["ok"], f"{what}: {left.integrity if left else ''}"
        if left is not None and durable is not None:
            assert not fk.durable_changes(left, durable), what
        problems = fk.check_next_open(self.root, fk.reference(self.root, self.cache), durable)
        assert not problems, f"{what}:\n" + "\n".join(problems)

    def report(self, name: str, least: int) -> None:
        """Print the counts, and fail when fewer than `least` kills landed in a transaction."""
        seconds = time.monotonic() - self.started
        landed = f"{self.landed} inside a transaction"
        print(f"{name}: {self.kills} kills, {landed}, in {seconds:.1f} s (seed {SEED})")
        assert self.landed >= least, f"seed {SEED}: only {self.landed} of {self.kills} kills landed"


@pytest.fixture(scope="module")
def launcher() -> Iterator[fk.Launcher]:
    with fk.Launcher() as started:
        yield started


def _bench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plan: Plan, salt: int) -> Bench:
    root, home = tmp_path / "vault", tmp_path / "home"
    fk.make_vault(root, plan.records, seed=3, body_max=plan.body_max)
    env = fk.app_env(home)
    for variable, value in env.items():
        if variable.startswith("XDG_"):
            monkeypatch.setenv(variable, value)  # the checks open the vault as the killed process did
    return Bench(
        root, home, tmp_path / "reference", env, random.Random(SEED + salt), started=time.monotonic()
    )


def _indexed(bench: Bench, launcher: fk.Launcher) -> dict[str, list[Any]]:
    """Index the vault once, then give every durable table a row the kills must keep."""
    run = launcher.run(fk.cli("scan", bench.root, "--index-text"), env=bench.env)
    assert run.returncode == 0, run.stderr
    return fk.seed_durable(bench.root / ".knowledge" / "state.sqlite")


# -- the CLI ----------------------------------------------------------------------------------


def cli_cold(launcher: fk.Launcher, bench: Bench, plan: Plan) -> None:
    scan = fk.cli("scan", bench.root, "--index-text")
    calibration = launcher.run(scan, env=bench.env, kill_at="count")
    assert calibration.returncode == 0, calibration.stderr
    assert calibration.transactions
    bench.check(None)
    window = calibration.seconds
    for slot in range(plan.kills):
        for _ in range(TRIES):
            fk.wipe_state(bench.root, bench.home)
            delay = fk.slot_delay(bench.rng, slot, plan.kills, window)
            run = launcher.run(scan, env=bench.env, kill_after=delay, inside=aim(slot, window))
            bench.check(run)
            if run.killed:
                break
            window = min(window, run.seconds)  # it ran faster than calibrated: aim within that
    for point in boundaries(calibration.transactions):
        fk.wipe_state(bench.root, bench.home)
        run = launcher.run(scan, env=bench.env, kill_at=point)
        assert run.killed, f"{point} never reached: {run.stderr}"
        bench.check(run)


def cli_burst(launcher: fk.Launcher, bench: Bench, plan: Plan) -> None:
    durable = _indexed(bench, launcher)
    flipper = fk.Flipper(bench.root, seed=bench.rng.randrange(10**6))
    scan = fk.cli("scan", bench.root, "--index-text")
    flipper.flip()
    calibration = launcher.run(scan, env=bench.env, kill_at="count")
    assert calibration.returncode == 0, calibration.stderr
    assert calibration.transactions
    bench.check(None, durable)
    window = calibration.seconds
    for slot in range(plan.kills):
        for _ in range(TRIES):
            flipper.flip()
            delay = fk.slot_delay(bench.rng, slot, plan.kills, window)
            run = launcher.run(scan, env=bench.env, kill_after=delay, inside=aim(slot, window))
            bench.check(run, durable)
            if run.killed:
                break
            window = min(window, run.seconds)
    for point in boundaries(calibration.transactions):
        flipper.flip()
        run = launcher.run(scan, env=bench.env, kill_at=point)
        assert run.killed, f"{point} never reached: {run.stderr}"
        bench.check(run, durable)


# -- the window -------------------------------------------------------------------------------


def _wait_for(condition: Any, running: fk.Running, what: str, timeout: float = 30.0) -> float:
    """Poll the files a running window writes (its event log, its database) until `condition`."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            running.kill()
            run = running.wait()
            raise AssertionError(f"seed {SEED}: the window never got to {what}: {run.stderr[-2000:]}")
        time.sleep(0.01)
    return time.monotonic()


def _burst_over(running: fk.Running, log: Path, touched: set[str]) -> bool:
    """The window ended (killed at its point) or logged every path of the burst."""
    return not running.alive() or all(_logged(log, p) for p in touched)


def _logged(log: Path, path: str) -> bool:
    try:
        return path in log.read_text("utf-8")
    except OSError:
        return False


def _text_indexed(root: Path) -> bool:
    try:
        conn = sqlite3.connect(f"file:{root / '.knowledge' / 'state.sqlite'}?mode=ro", uri=True)
        try:
            return conn.execute("SELECT count(*) FROM keyword_pending_v1").fetchone()[0] == 0
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def window_cold(launcher: fk.Launcher, bench: Bench, plan: Plan) -> None:
    log = bench.home / "events.jsonl"
    running = launcher.start(fk.window(bench.root, event_log=log), env=bench.env)
    # The first scan is logged once read; the search text is indexed after it.
    _wait_for(lambda: _logged(log, "private/") and _text_indexed(bench.root), running, "the end of its index")
    window = time.monotonic() - running.started
    transactions = running.progress()[0]
    print(f"window-cold: {transactions} transactions to the end of the index")
    running.kill()
    running.wait()
    bench.check(None)
    for n, delay in enumerate(fk.kill_delays(bench.rng, plan.kills, window)):
        fk.wipe_state(bench.root, bench.home)
        log.unlink(missing_ok=True)
        argv = fk.window(bench.root, event_log=log)
        bench.check(launcher.run(argv, env=bench.env, kill_after=delay, inside=aim(n, window)))
    for point in window_points(transactions, plan.points):
        fk.wipe_state(bench.root, bench.home)
        log.unlink(missing_ok=True)
        bench.check(_killed_at(launcher, fk.window(bench.root, event_log=log), bench.env, point))


def window_points(last: int, count: int) -> list[str]:
    """`count` named points spread over the window's transactions 1 … `last` (at the commit
    of each: its work done, COMMIT not sent), `last` as the calibration run counted them."""
    assert last > 0, f"seed {SEED}: the window ran no transaction to kill in"
    numbers = {1 + (last - 1) * i // max(1, count - 1) for i in range(count)}
    return [f"commit:{n}" for n in sorted(numbers)]


def _killed_at(launcher: fk.Launcher, argv: list[str], env: dict[str, str], point: str) -> fk.Run:
    """A window killed at `point` by itself; one that never got there is killed after 30 s
    and fails (a window idles rather than ending)."""
    run = launcher.start(argv, env=env, kill_at=point).wait(timeout=30)
    assert run.landed, f"seed {SEED}: {point} never reached ({run.transactions} transactions)"
    return run


def window_burst(launcher: fk.Launcher, bench: Bench, plan: Plan) -> None:
    """The window watches an indexed vault; a burst of edits lands; it is killed while the
    watcher's reconcile (or the text index after it) runs."""
    durable = _indexed(bench, launcher)
    flipper = fk.Flipper(bench.root, seed=bench.rng.randrange(10**6))
    marker = bench.root / MARKER
    log = bench.home / "events.jsonl"

    def start(n: int, point: str | None = None) -> fk.Running:
        """The window open and watching: it logged the marker changed before it started."""
        marker.write_text(f"Waiting {n}.\n")
        log.unlink(missing_ok=True)
        running = launcher.start(fk.window(bench.root, event_log=log), env=bench.env, kill_at=point)
        _wait_for(lambda: _logged(log, MARKER), running, "watching")
        return running

    def burst() -> None:
        flipper.flip()
        marker.write_text("Settled.\n")

    running = start(0)
    settled = running.progress()[0]
    begun = time.monotonic()
    burst()
    touched = flipper.paths()
    # (The window indexes the text of live edits when a search needs it, so nothing more to wait for.)
    _wait_for(lambda: all(_logged(log, p) for p in touched), running, "the burst")
    window = time.monotonic() - begun
    burst_end = running.progress()[0]
    print(f"window-burst: {settled} transactions to open, {burst_end - settled} for the burst")
    running.kill()
    running.wait()
    bench.check(None, durable)
    for n, delay in enumerate(fk.kill_delays(bench.rng, plan.kills, window), 1):
        running = start(n)
        begun = time.monotonic()
        burst()
        running.delay = delay
        time.sleep(max(0.0, begun + delay - time.monotonic()))
        running.kill_inside(aim(n, window))
        bench.check(running.wait(), durable)

    def killed_at(n: int, point: str) -> None:
        """A burst killed at the named point `point` of its own transactions."""
        running = start(n, point)
        running.arm()
        burst()
        # The burst's own count varies too: on a loaded machine its edits coalesce into
        # fewer watcher batches, and a point past its last transaction is never reached.
        # Such a run is killed once the burst is applied and counts only if that landed.
        _wait_for(partial(_burst_over, running, log, touched), running, "the burst")
        if running.alive():
            running.kill()
        bench.check(running.wait(timeout=30), durable)

    for n, point in enumerate(window_points(burst_end - settled, plan.points), plan.kills + 1):
        # Counted from the burst on ("commit:+K"): how many transactions opening a vault
        # takes before it watches varies with timing.
        killed_at(n, point.replace(":", ":+"))
    # A loaded machine can leave too few of those inside a transaction (its edits coalesced
    # into fewer batches than the calibration run's): kill at the burst's first commit, which
    # every burst reaches, until enough have, at most `points` more runs.
    for n in range(plan.kills + plan.points + 1, plan.kills + 2 * plan.points + 1):
        if bench.landed >= plan.least:
            break
        killed_at(n, "commit:+1")


# -- the tests ------------------------------------------------------------------------------

DEFAULT = {
    "cli-cold": Plan(300, 500, kills=10, least=4),
    "cli-burst": Plan(300, 500, kills=10, least=4),
    "window-cold": Plan(300, 500, kills=8, points=4, least=4),
    "window-burst": Plan(300, 500, kills=8, points=4, least=3),
}
"""Per driver: kills at random delays (half of them aimed, see `aim`), at named points of
the window, and how many of all its kills must land inside a transaction; the CLI drivers
add one kill at every transaction boundary (8 for a cold scan, 6 for a burst), two of them
inside one. Measured twice on the 2-core machine under load (seed 20261204): 9–10 of 18,
9 of 16, 6–9 of 12 and 7–9 of 12 landed. The window-cold minimum is what its named points
guarantee; window-burst's is lower, as a named point of the burst may lie past a loaded
run's last transaction (the aimed kills' share swings with the machine's load, and a margin over it
came within one of it in two runs); a CLI driver's adds a margin of its aimed kills."""
SOAK = {
    "cli-cold": Plan(2000, 1500, kills=146, least=40),
    "cli-burst": Plan(2000, 1500, kills=146, least=40),
    "window-cold": Plan(2000, 1500, kills=100, points=12, least=30),
    "window-burst": Plan(2000, 1500, kills=100, points=12, least=30),
}
"""About 500 kills in all with the transaction boundaries and named points."""
DRIVERS = {
    "cli-cold": cli_cold,
    "cli-burst": cli_burst,
    "window-cold": window_cold,
    "window-burst": window_burst,
}


@pytest.mark.parametrize("driver", list(DEFAULT))
def test_a_killed_run_leaves_a_state_the_next_open_makes_consistent(
    driver: str, launcher: fk.Launcher, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGKILL during a cold index or a burst (CLI and window): the next open equals a fresh
    scan, and the durable tables are untouched; enough of the kills struck inside a write
    transaction to say so."""
    plan = DEFAULT[driver]
    bench = _bench(tmp_path, monkeypatch, plan, salt=list(DEFAULT).index(driver))
    DRIVERS[driver](launcher, bench, plan)
    bench.report(driver, plan.least)


@pytest.mark.soak
@pytest.mark.parametrize("driver", list(SOAK))
def test_soak_kills(
    driver: str, launcher: fk.Launcher, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same on a 2,000-record vault, 500 kills in all (`python -m pytest -m soak`)."""
    plan = SOAK[driver]
    bench = _bench(tmp_path, monkeypatch, plan, salt=100 + list(SOAK).index(driver))
    DRIVERS[driver](launcher, bench, plan)
    bench.report(driver, plan.least)
