"""Kill and fault harness: run the CLI or the window in a process of its own, SIGKILL it
after a random delay or at a named point, then check what it left behind.

Used by every test that must survive a crash, read side and write side (the write
side's harness, once `tests/writekill.py`, was a copy of the launcher with its own kill
points; it is folded in here). The pieces:

Launching — `Launcher` (a context manager)::

    with Launcher() as launcher:                     # a fork server: imports once
        run = launcher.run(cli("scan", vault), kill_after=0.4, env=env)
        run = launcher.run(cli("scan", vault), kill_at="commit:2", env=env)
        app = launcher.start(window(vault, event_log=log), env=env)  # Running
        ...; app.kill(); run = app.wait()
    run.killed, run.returncode, run.stdout, run.stderr, run.seconds

  `Launcher()` forks each command from a server process that imported the
  engine, Qt and the window once (a fresh `python -m` costs ~0.8 s of
  imports, and a kill test wants dozens of kills); `Launcher(fork=False)`
  starts a fresh interpreter per command instead, same API. Either way the
  command runs as `runpy` runs `python -m MODULE ARGS` in a new session, and a
  kill is `SIGKILL` to the whole process group (the window's parse workers
  die with it), or with `kill(group=False)` to the command alone; `marked`
  then finds what it left running (`tests/test_orphans.py`). Named points
  (`kill_at`, see `install_kill_point`): "begin:N", "commit:N" (the Nth write
  transaction's work is done, COMMIT not yet sent), "committed:N", and for the
  write side "durable:N", "step:NAME" (the publish path's steps) and "fsync:N".
  Every command notes as it goes how many transactions it began and how many are
  open (`Tracker`), so after a kill `run.landed` says whether it struck inside
  one and `run.transactions` how many it ran (`kill_at="count"` kills nowhere), so
  a test can kill at every boundary. `run_cli` runs `knowledge ARGS` in the calling
  test's user folders (the write kill tests; `Launcher(preload=CLI_PRELOAD)`).

Checking — `dump(db)` reads a state database as the next open would (WAL
recovery included) into a `Dump`: `PRAGMA integrity_check`, FTS5's own
integrity check per search table, the durable tables' rows, and every
projection table's rows in a form that does not depend on history (rowids
mapped to paths; see `dump` for the few columns left out, and why).
`reference(root, cache)` is a fresh scan of the same Markdown into a new state
folder; `check_next_open(root, reference)` opens the vault as the CLI and
the window do, reconciles, indexes the search text and compares.

Vaults — `make_vault(root, records, seed)` (the bench generator, with short
bodies) and `Flipper`, which moves a vault between two fixed contents A and
B (a burst: many files changed, added and deleted), so references are
computed once per content.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import random
import re
import runpy
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PRELOAD = ("knowledge_desktop.cli", "knowledge_desktop.ui.app", "knowledge_desktop.ui.main_window")
"""What the fork server imports before it forks anything."""
CLI_PRELOAD = ("knowledge_desktop.cli",)
"""…when it only runs the CLI (no Qt to import)."""

# -- another program holding the state database ------------------------------------------------

HOLD_LOCK = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()
"""


@contextlib.contextmanager
def lock_held(database: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding `database`'s write lock until the block ends: what a second
    program using the same vault looks like to our writes (its pid is the holder's)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(database)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdin is not None
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "locked"
        yield holder
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)
        holder.stdout.close()


# -- commands -------------------------------------------------------------------------------


def cli(*args: str | os.PathLike[str]) -> list[str]:
    """`python -m knowledge_desktop.cli ARGS` as a command for `Launcher`."""
    return ["knowledge_desktop.cli", *map(str, args)]


def window(vault: Path, *, event_log: Path | None = None, watch: bool = True) -> list[str]:
    """The desktop window on `vault` (run it with `QT_QPA_PLATFORM=offscreen`, see `app_env`)."""
    out = ["knowledge_desktop.ui.app", str(vault), "--size", "1000x700"]
    if event_log is not None:
        out += ["--event-log", str(event_log)]
    if not watch:
        out.append("--no-watch")
    return out


def run_cli(
    launcher: Launcher, argv: list[str], *, point: str | None = None, after: float | None = None
) -> Run:
    """`knowledge ARGV`, killed at `point` or `after` seconds, in the user folders this
    process has now (a test's own, `tests/conftest.py`), so that the test's own opens of
    the vault and the command's remember it in the same place."""
    return launcher.run(cli(*argv), kill_at=point, kill_after=after, env=user_env())


def user_env() -> dict[str, str]:
    """The user folders (XDG_*) this process has now: a test's own (`tests/conftest.py`)."""
    return {k: v for k, v in os.environ.items() if k.startswith("XDG_")}


def delete_document(vault: Path, extension: str, ref: str) -> list[str]:
    """A command that deletes a document through the knowledge API (`documents.delete`, in a
    session of the installed `extension`), which has no CLI of its own."""
    return ["tests.faultkit", "delete-document", str(vault), extension, ref]


def _delete_document(root: str, extension: str, ref: str) -> None:
    from knowledge_desktop.engine.api import documents
    from knowledge_desktop.engine.vault import Vault
    from knowledge_desktop.engine.vault_api import open_session

    with Vault.open(Path(root)) as vault:
        documents.delete(open_session(vault, extension), ref)


def app_env(home: Path) -> dict[str, str]:
    """Environment for a command: user folders under `home`, headless Qt, one BLAS thread."""
    env = {
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_RUNTIME_DIR": str(home / "runtime"),
        "OPENBLAS_NUM_THREADS": "1",
        "PYTHONPATH": str(REPO),
    }
    for variable in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        env[variable] = str(home / variable.lower())
    (home / "runtime").mkdir(parents=True, exist_ok=True, mode=0o700)
    return env


# -- launching and killing ------------------------------------------------------------------


@dataclass
class Run:
    """One command's end: killed by us, or exited by itself."""

    argv: list[str]
    killed: bool
    returncode: int | None
    """Exit status when it exited by itself; None when a signal ended it."""
    seconds: float
    """From start to the kill (or to its exit)."""
    stdout: str = ""
    stderr: str = ""
    delay: float | None = None
    point: str | None = None
    transactions: int = 0
    """Write transactions the command began (`Tracker`)."""
    open_transactions: int = 0
    """Write transactions open when it ended (`Tracker`): not 0 only after a kill."""

    @property
    def landed(self) -> bool:
        """Killed inside a write transaction: after BEGIN, before COMMIT was sent."""
        return self.killed and self.open_transactions > 0


class Running:
    """A started command; `kill()` sends SIGKILL to its process group, `wait()` gives the `Run`."""

    def __init__(self, launcher: Launcher, pid: int, argv: list[str], out: Path, point: str | None) -> None:
        self.launcher, self.pid, self.argv, self._out, self.point = launcher, pid, argv, out, point
        self.started = time.monotonic()
        self.killed_at: float | None = None
        self.delay: float | None = None

    def kill(self, group: bool = True) -> None:
        """SIGKILL the command's process group, or (`group=False`) the command alone, as a
        user's `kill -9 PID` does: what it started must then end by itself."""
        self.killed_at = time.monotonic()
        try:
            if not group:
                os.kill(self.pid, signal.SIGKILL)
                return
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            # Killed so early that it has no process group of its own yet (or it is gone).
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.pid, signal.SIGKILL)

    def arm(self) -> None:
        """Start counting a "+N" kill point from here (see `install_kill_point`)."""
        (self._out / "armed").touch()

    def alive(self) -> bool:
        """Still running (not exited, not a zombie waiting to be reaped)."""
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as stat:
                return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
        except OSError:
            return False

    def kill_inside(self, timeout: float) -> None:
        """SIGKILL at the first moment within `timeout` s that a write transaction is seen
        open (polled every half millisecond), else at its end: a random delay then this
        aims a kill at the transactions, which take a small part of a run. A transaction
        may close between the look and the kill: `Run.landed` says. (A command that ended
        meanwhile is not killed: the signal finds a process already gone.)"""
        deadline = time.monotonic() + timeout
        while self.alive() and time.monotonic() < deadline and self.progress()[1] == 0:
            time.sleep(0.0005)
        self.kill()

    def progress(self) -> tuple[int, int]:
        """(transactions begun, transactions open) so far, as the command noted them."""
        return Tracker.read(self._out / "transactions")

    def wait(self, timeout: float = 60.0) -> Run:
        status = self.launcher._wait(self.pid, timeout)
        ended = self.killed_at if self.killed_at is not None else time.monotonic()
        signalled = os.WIFSIGNALED(status)
        transactions, open_transactions = Tracker.read(self._out / "transactions")
        run = Run(
            self.argv,
            killed=signalled and os.WTERMSIG(status) == signal.SIGKILL,
            returncode=None if signalled else os.WEXITSTATUS(status),
            seconds=ended - self.started,
            stdout=_read(self._out / "stdout"),
            stderr=_read(self._out / "stderr"),
            delay=self.delay,
            point=self.point,
            transactions=transactions,
            open_transactions=open_transactions,
        )
        # Whatever the command started (parse workers) goes with it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        return run


class Launcher:
    """Starts commands (module + arguments, as `python -m` takes them) to be killed."""

    def __init__(self, *, fork: bool = True, preload: tuple[str, ...] = PRELOAD) -> None:
        self.fork = fork
        self.preload = preload
        self._server: subprocess.Popen[str] | None = None
        self._children: dict[int, subprocess.Popen[bytes]] = {}
        self._tmp = Path(tempfile.mkdtemp(prefix="faultkit-"))
        self._serial = 0

    def __enter__(self) -> Launcher:
        if self.fork:
            env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": str(REPO)}
            self._server = subprocess.Popen(
                [sys.executable, "-m", "tests.faultkit", "serve", *self.preload],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=REPO,
                env=env,
            )
            assert self._ask({"op": "ping"}) == {"ok": True}
        return self

    def __exit__(self, *exc: object) -> None:
        for child in self._children.values():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        if self._server is not None:
            assert self._server.stdin is not None
            assert self._server.stdout is not None
            self._server.stdin.close()
            self._server.wait(timeout=30)
            self._server.stdout.close()
        shutil.rmtree(self._tmp, ignore_errors=True)

    def start(
        self, argv: list[str], *, env: dict[str, str] | None = None, kill_at: str | None = None
    ) -> Running:
        self._serial += 1
        out = self._tmp / str(self._serial)
        out.mkdir()
        spec = {"argv": argv, "env": env or {}, "point": kill_at, "out": str(out), "cwd": str(REPO)}
        if self._server is not None:
            pid = int(self._ask({"op": "run", **spec})["pid"])
        else:
            child = subprocess.Popen(
                [sys.executable, "-m", "tests.faultkit", "child", json.dumps(spec)],
                cwd=REPO,
                env={**os.environ, **(env or {}), "PYTHONPATH": str(REPO)},
                start_new_session=True,
            )
            pid = child.pid
            self._children[pid] = child
        return Running(self, pid, argv, out, kill_at)

    def run(
        self,
        argv: list[str],
        *,
        kill_after: float | None = None,
        kill_at: str | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 60.0,
        inside: float = 0.0,
    ) -> Run:
        """Run `argv`; SIGKILL it `kill_after` seconds after its start (or at `kill_at`);
        with `inside`, at the first open transaction within `inside` s from then on
        (`Running.kill_inside`)."""
        running = self.start(argv, env=env, kill_at=kill_at)
        running.delay = kill_after
        if kill_after is not None:
            time.sleep(max(0.0, running.started + kill_after - time.monotonic()))
            running.kill_inside(inside)
        return running.wait(timeout)

    def _wait(self, pid: int, timeout: float) -> int:
        if self._server is not None:
            return int(self._ask({"op": "wait", "pid": pid, "timeout": timeout})["status"])
        child = self._children.pop(pid)
        try:
            child.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(pid, signal.SIGKILL)
            child.wait()
        code = child.returncode
        return (-code & 0x7F) if code < 0 else (code << 8)

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        server = self._server
        assert server is not None
        assert server.stdin is not None
        assert server.stdout is not None
        server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        line = server.stdout.readline()
        if not line:
            raise RuntimeError("the faultkit fork server died")
        answer: dict[str, Any] = json.loads(line)
        return answer


MARK = "FAULTKIT_MARK"
"""An environment variable to give a command (`env={MARK: "some-value"}`): every process
it starts inherits it, so `marked` finds them even once they lost their parent. (Not the
command itself when the fork server runs it: it sets the variable after its start, which
/proc does not show.)"""


def marked(value: str) -> dict[int, int]:
    """The live processes whose environment has `MARK=value`: pid → parent pid (Linux)."""
    wanted = f"{MARK}={value}".encode()
    found: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as environ:
                if wanted not in environ.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile, or not ours to read
        if fields[0] != b"Z":  # a zombie has exited already: it holds nothing
            found[int(entry.name)] = int(fields[1])
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text("utf-8", errors="replace")
    except OSError:
        return ""


# -- the launched side (python -m tests.faultkit serve|child) --------------------------------


def _serve(preload: list[str]) -> None:
    """Import `preload`, then fork one child per request read from stdin."""
    for name in preload:
        __import__(name)
    requests, answers = sys.stdin, sys.stdout
    for line in requests:
        request = json.loads(line)
        if request["op"] == "ping":
            answer: dict[str, Any] = {"ok": True}
        elif request["op"] == "run":
            pid = os.fork()
            if pid == 0:
                _child(request)
            answer = {"pid": pid}
        else:
            answer = {"status": _reap(request["pid"], request["timeout"])}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


def _reap(pid: int, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            return os.waitpid(pid, 0)[1]
        time.sleep(0.01)


def _child(spec: dict[str, Any]) -> None:
    """Run one command in this process (forked or fresh) and exit with its status."""
    code = 1
    out = Path(spec["out"])
    try:
        with contextlib.suppress(PermissionError):
            os.setsid()  # a fresh interpreter started with start_new_session leads one already
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, name in ((1, "stdout"), (2, "stderr")):
            handle = os.open(out / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(handle, fd)
        os.environ.update(spec["env"])
        os.chdir(spec["cwd"])
        install_kill_point(spec.get("point"), Tracker(out / "transactions"))
        module, *args = spec["argv"]
        sys.argv = [module, *args]
        sys.modules.pop(module, None)  # preloaded for its imports; runpy runs it afresh
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


KILL_PHASES = ("begin", "commit", "committed", "durable", "step", "fsync", "count")


def install_kill_point(point: str | None, tracker: Tracker | None = None) -> list[int]:
    """SIGKILL this process at a named point:

    - "begin:N", "commit:N", "committed:N" — the Nth write transaction (`Store.write`)
      right after BEGIN, after its work but before COMMIT, or right after COMMIT;
    - "durable:N" — the Nth durable transaction (`Store.write(durable=True)`: the write
      side's journal and publication), after its work and before COMMIT;
    - "step:NAME" — at the publish path's step seam (`write.publish.STEP`): "journaled",
      "replaced:K" (the Kth file of the plan replaced), "reconciled", "published";
    - "fsync:N" — at the Nth `os.fsync` (1: the temp file of the first replacement is
      written, not yet renamed over its record);
    - "count" or None — nowhere (`tracker` still counts).

    "begin:+N", "commit:+N", "committed:+N" count from `Running.arm()` instead of the
    start: the Nth transaction begun after it (a window's opening runs a number of
    transactions that varies with timing; a test arms it as it starts the work to kill).

    `tracker` (see `Tracker`) notes every BEGIN and every end, so that what a kill
    interrupted can be read after it. Returns the transaction counter."""
    from knowledge_desktop.engine.store.db import Store

    phase, _, nth = (point or "count").partition(":")
    if phase not in KILL_PHASES:
        raise ValueError(f"unknown kill point {point!r}")

    def die() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    if phase == "step":
        from knowledge_desktop.engine.write import publish

        publish.STEP = lambda step: die() if step == nth else None
    armed = nth.startswith("+")  # counted from the first transaction after `Running.arm`
    target = int(nth) if phase not in ("step", "count") else 0
    base: list[int | None] = [None if armed else 0]
    arm_file = tracker.path.with_name("armed") if tracker is not None else None
    if phase == "fsync":
        real_fsync, synced = os.fsync, [0]

        def fsync(fd: int) -> None:
            synced[0] += 1
            if synced[0] == target:
                die()
            real_fsync(fd)

        os.fsync = fsync
    original = Store.write
    seen, durables = [0], [0]

    @contextlib.contextmanager
    def write(
        self: Store, bulk: bool = False, *, durable: bool = False, chunk: bool = False
    ) -> Iterator[Any]:
        with original(self, bulk, durable=durable, chunk=chunk) as tx:
            seen[0] += 1
            if base[0] is None and arm_file is not None and arm_file.exists():
                base[0] = seen[0] - 1
            mine = seen[0] - base[0] if base[0] is not None else 0
            if durable:
                durables[0] += 1
            durable_nth = durables[0] if durable else 0
            if tracker is not None:
                tracker.enter(seen[0])
            try:
                if mine == target and phase == "begin":
                    die()
                yield tx
                if (mine == target and phase == "commit") or (durable_nth == target and phase == "durable"):
                    die()
            finally:
                if tracker is not None:
                    tracker.leave()  # before COMMIT: a kill from now on finds the work done
        if mine == target and phase == "committed":
            die()

    Store.write = write  # type: ignore[method-assign,assignment]
    return seen


class Tracker:
    """What the killed process was doing when the kill came, written as it goes to a file
    that outlives the process (the page cache keeps a `pwrite` whatever kills its writer):
    how many write transactions it began and how many were open. A kill that finds one
    open *landed* inside a transaction — the kill the consistency checks are about; one
    between transactions (starting up, parsing, idle) tests less.

    The mark is cleared just before COMMIT is sent, so a kill during COMMIT itself counts
    as outside: an undercount, never an overcount."""

    WIDTH = 24

    def __init__(self, path: Path) -> None:
        import threading

        self.path = path
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        self._lock = threading.Lock()
        self.count = self.open = 0
        self._note()

    def enter(self, count: int) -> None:
        with self._lock:
            self.count, self.open = max(self.count, count), self.open + 1
            self._note()

    def leave(self) -> None:
        with self._lock:
            self.open -= 1
            self._note()

    def _note(self) -> None:
        os.pwrite(self._fd, f"{self.count} {self.open}".ljust(self.WIDTH).encode(), 0)

    @staticmethod
    def read(path: Path) -> tuple[int, int]:
        """(transactions begun, transactions open) as the process last noted them."""
        count, _, open_ = _read(path).strip().partition(" ")
        return (int(count or 0), int(open_ or 0))


# -- state: what a database holds, as the next open reads it ----------------------------------

FTS_SHADOW = re.compile(
    r"^(keyword_(history_)?fts_v1_.+|note_text_fts_v1)_(data|idx|content|docsize|config)$"
)
"""FTS5's own tables: their b-tree segments depend on the order of the writes, not on the
Markdown; the text they index is compared through the rows tables (`_projection`)."""
IGNORED_COLUMNS = {
    # Wall-clock times of the last text index and scan: when it ran, not what it read.
    "keyword_state_v1": ("generation", "indexed_at", "scanned_at"),
    # `generation` (above) counts the partition's index transactions, so it depends on how
    # many runs there were (a kill adds one), never on the Markdown.
    # The vectors' generation is the time of their last change (projections/semantic.py).
    # `logged` is such a time too, and the log of changed files (skipped whole, below) lists
    # what each run changed.
    "semantic_state_v1": ("generation", "logged"),
    # Passages are numbered as they are embedded, in chunks that depend on the runs.
    "semantic_chunks_v1": ("rowid",),
}
HISTORY_INDEX = {"checkpoint_paths"}
"""The index of the checkpoint repository's commits: read from `.knowledge/history.git`
(and brought up to its head by `history.index.sync`), not from the Markdown, so a
reference scan of the same files has none."""
STAT_COLUMNS = ("size", "mtime_ns", "inode")
"""files' stat of each file, compared with the file system itself (see `check_stats`), not
with a reference scan taken when the files had other mtimes and inodes."""


@dataclass
class Dump:
    integrity: list[str]
    fts_problems: list[str]
    durable: dict[str, list[tuple[Any, ...]]]
    projections: dict[str, list[tuple[Any, ...]]]
    stats: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    walk_digest: str | None = None
    """The stored digest of the last full walk (`store/freshness.py`), checked against the
    disk like the stats, never against a reference scan of other files."""


def dump(db: Path) -> Dump:
    """Everything a consistency check compares, read from the database file at `db`."""
    from knowledge_desktop.engine.store import packed, schema
    from knowledge_desktop.engine.store.projections import weights

    conn = sqlite3.connect(db, isolation_level=None)
    packed.register(conn)  # the records' search text is stored packed
    try:
        integrity = [r[0] for r in conn.execute("PRAGMA integrity_check")]
        names = sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'"))
        durable = {t: _rows(conn, f"SELECT * FROM {t}") for t in schema.DURABLE_TABLES if t in names}
        projections: dict[str, list[tuple[Any, ...]]] = {}
        fts_problems: list[str] = []
        stats: dict[str, tuple[int, int, int]] = {}
        for name in names:
            if name in schema.DURABLE_TABLES or name.startswith("sqlite_") or FTS_SHADOW.match(name):
                continue
            if name in HISTORY_INDEX or name == "note_text_fts_v1":  # compared with its rows
                continue
            if re.match(r"^(keyword_(history_)?text_v1_|note_text_store_v1$)", name):  # read through the FTS
                continue
            if name == "semantic_changes_v1":  # which runs changed what (IGNORED_COLUMNS)
                continue
            if re.match(r"^keyword_(history_)?fts_v1_", name):
                try:
                    conn.execute("BEGIN")
                    conn.execute(f"INSERT INTO {name}({name}) VALUES('integrity-check')")
                except sqlite3.DatabaseError as exc:
                    fts_problems.append(f"{name}: {exc}")
                finally:
                    conn.execute("ROLLBACK")
                continue
            projections[name] = _projection(conn, name, weights.BLOCK, weights.decode)
        if "files" in names:
            for path, size, mtime, inode in conn.execute("SELECT path, size, mtime_ns, inode FROM files"):
                stats[path] = (size, mtime, inode)
        digest = None
        if "projection_meta" in names:
            row = conn.execute("SELECT value FROM projection_meta WHERE key='walk_digest'").fetchone()
            digest = row[0] if row else None
    finally:
        conn.close()
    return Dump(integrity, fts_problems, durable, projections, stats, digest)


def _rows(conn: sqlite3.Connection, sql: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in conn.execute(sql)), key=repr)


def _projection(conn: sqlite3.Connection, name: str, block: int, decode: Any) -> list[tuple[Any, ...]]:
    """One projection table's rows, free of rowids (keyword tables number rows as they come)."""
    if name == "note_text_rows_v1":  # rowids number notes as they come: the text, by path
        return _rows(
            conn,
            "SELECT r.path, r.scope, r.title, r.tags, r.body_line, r.sha256, f.title, f.aliases,"
            " f.tags, f.body FROM note_text_rows_v1 r LEFT JOIN note_text_fts_v1 f ON f.rowid = r.rowid",
        )
    m = re.match(r"^keyword_(history_rows|rows|tags|weights|lengths)_v1_(.+)$", name)
    if m is None:
        columns = [r[1] for r in conn.execute(f"PRAGMA table_info({name})")]
        skip = set(IGNORED_COLUMNS.get(name, ())) | (set(STAT_COLUMNS) if name == "files" else set())
        keep = ", ".join(c for c in columns if c not in skip)
        # The walk digest is checked against the disk (`check_stats`); the guards version
        # counts guard changes (the seed's too), so it depends on history, not the Markdown.
        # The notes' text generation counts its index transactions, as keyword_state_v1's does.
        history = "'walk_digest', 'guards_version', 'note_text_generation'"
        where = f" WHERE key NOT IN ({history})" if name == "projection_meta" else ""
        return _rows(conn, f"SELECT {keep} FROM {name}{where}")
    kind, suffix = m.groups()
    rows = f"keyword_rows_v1_{suffix}"
    if kind in ("rows", "history_rows"):
        fts = name.replace("rows", "fts")
        found = conn.execute(
            f"SELECT r.*, f.title, f.aliases, f.body FROM {name} r LEFT JOIN {fts} f ON f.rowid = r.rowid"
        )
        return sorted((tuple(r)[1:] for r in found), key=repr)
    path_of = dict(conn.execute(f"SELECT rowid, path FROM {rows}"))
    if kind == "tags":
        return _rows(conn, f"SELECT t.tag, r.path FROM {name} t LEFT JOIN {rows} r ON r.rowid = t.rowid")
    out: list[tuple[Any, ...]] = []
    if kind == "weights":
        for term, number, postings, positions in conn.execute(f"SELECT * FROM {name}"):
            for offset, (weight, at) in decode(postings, positions).items():
                out.append((term, path_of.get(number * block + offset), weight, tuple(at)))
    else:  # lengths: three int32 arrays of `block` slots — length, title length, aliases length
        for number, sizes in conn.execute(f"SELECT block, sizes FROM {name}"):
            values = array("i", sizes)
            for slot in range(block):
                if values[slot]:
                    rowid = number * block + slot
                    out.append(
                        (path_of.get(rowid), values[slot], values[block + slot], values[2 * block + slot])
                    )
    return sorted(out, key=repr)


def reference(root: Path, cache: Path) -> Dump:
    """A fresh scan of the Markdown under `root` into a new state folder (cached by content)."""
    from knowledge_desktop.engine.store.db import Store
    from knowledge_desktop.engine.vault import Vault

    key = content_key(root)
    folder = cache / key
    db = folder / "state.sqlite"
    if not db.exists():
        folder.mkdir(parents=True, exist_ok=True)
        vault = Vault(root.resolve(), folder, Store(db), False, "vlt_reference")
        try:
            vault.reconcile()
            vault.index_keywords()
        finally:
            vault.close()
    return dump(db)


def content_key(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and ".knowledge" not in p.parts):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def check_stats(root: Path, found: Dump) -> list[str]:
    """files' (size, mtime, inode) against the files themselves: what a scan now would record."""
    out = []
    for path, stat in sorted(found.stats.items()):
        try:
            st = os.stat(root / path, follow_symlinks=False)
        except OSError:
            out.append(f"{path}: listed in files but gone")
            continue
        if stat != (st.st_size, st.st_mtime_ns, st.st_ino):
            out.append(f"{path}: files says {stat}, the disk {(st.st_size, st.st_mtime_ns, st.st_ino)}")
    if found.walk_digest is not None:
        from knowledge_desktop.engine.fs.walk import walk
        from knowledge_desktop.engine.store import freshness

        # A stored digest vouches that `files` matches the disk: it must be the disk's.
        if found.walk_digest != freshness.digest(walk(root)):
            out.append("projection_meta's walk digest does not describe the files on disk")
    return out


def differences(found: Dump, expected: Dump) -> list[str]:
    """What differs between two dumps' projections, table by table (first rows of each)."""
    out = []
    for table in sorted(set(found.projections) | set(expected.projections)):
        a, b = found.projections.get(table), expected.projections.get(table)
        if a == b:
            continue
        if a is None or b is None:
            out.append(f"{table}: only in {'the reference' if a is None else 'the vault'}")
            continue
        extra = [r for r in a if r not in b][:3]
        missing = [r for r in b if r not in a][:3]
        out.append(f"{table}: {len(a)} rows vs {len(b)}; extra {extra!r:.600}; missing {missing!r:.600}")
    return out


def state_after_kill(root: Path) -> Dump | None:
    """The state a killed process left, read before anything else opens it (None: no database)."""
    db = root / ".knowledge" / "state.sqlite"
    return dump(db) if db.exists() else None


def check_next_open(root: Path, expected: Dump, durable: dict[str, list[Any]] | None = None) -> list[str]:
    """Open the vault as the CLI and the window do (reconcile, then index the search text, as
    `scan --index-text` does) and list every way its state differs from `expected`; []
    when consistent."""
    from knowledge_desktop.engine.vault import Vault

    problems: list[str] = []
    with Vault.open(root) as vault:
        vault.reconcile()
        vault.index_keywords()
        problems += [
            f"vault diagnostic after reopening: {d.code}: {d.message}" for d in vault.vault_diagnostics()
        ]
        manifest = json.loads((root / ".knowledge" / "manifest.json").read_text("utf-8"))
        if manifest["expectedVaultId"] != vault.store.identity("vault_id"):
            problems.append("manifest and store identity name different vaults")
    found = dump(root / ".knowledge" / "state.sqlite")
    if found.integrity != ["ok"]:
        problems.append(f"integrity_check: {found.integrity[:3]}")
    problems += found.fts_problems
    problems += differences(found, expected)
    problems += check_stats(root, found)
    if durable is not None:
        problems += durable_changes(found, durable)
    return problems


def durable_changes(found: Dump, seeded: dict[str, list[Any]]) -> list[str]:
    return [
        f"durable table {table} changed: {found.durable.get(table)!r:.300} instead of {rows!r:.300}"
        for table, rows in seeded.items()
        if found.durable.get(table) != rows
    ]


DURABLE_SEED: dict[str, list[dict[str, Any]]] = {
    "journal": [
        {
            "seq": 1,
            "request_id": "req-1",
            "operation": "withdraw",
            "scope": "private",
            "payload": "{}",
            "created_at": "2026-10-01T09:00:00.000Z",
            "state": "published",  # a finished entry: nothing for an open to recover
        }
    ],
    "receipts": [
        {
            "request_id": "req-1",
            "payload_sha256": "ab" * 32,
            "receipt": '{"ok": true}',
            "created_at": "2026-10-01T09:00:00.000Z",
        }
    ],
    "provenance": [
        {"scope": "private", "record_id": "cl_x", "revision": 2, "agent_id": "agent-7", "journal_seq": 1}
    ],
    "keyword_withdrawals_v1": [
        {
            "scope": "private",
            "record_id": "cl_x",
            "request_id": "req-1",
            "reason": "wrong",
            "withdrawn_at": "2026-10-01T09:00:00.000Z",
        }
    ],
    "lifecycle_guards_v1": [
        {
            "scope": "private",
            "record_id": "cl_y",
            "guard": "superseded",
            "by_id": "cl_z",
            "request_id": "req-2",
            "created_at": "2026-10-01T09:00:00.000Z",
        }
    ],
    "git_outbox": [
        {
            "seq": 1,
            "journal_seq": 1,
            "state": "committed",  # a finished checkpoint: nothing for an open to retry
            "commit_id": "ef" * 20,
            "created_at": "2026-10-01T09:00:00.000Z",
        }
    ],
    "history": [
        {
            "seq": 1,
            "scope": "private",
            "record_id": "cl_x",
            "revision": 2,
            "sha256": "cd" * 32,
            "event": "withdrawn",
            "journal_seq": 1,
            "at": "2026-10-01T09:00:00.000Z",
        }
    ],
    "extensions_v1": [
        {
            "name": "recipes",
            "scope": "private",
            "manifest": '{"name": "recipes", "description": "Recipes"}',
            "secret": b"k" * 32,
            "installed_at": "2026-10-01T09:00:00.000Z",
        }
    ],
    "extension_grants_v1": [
        {"name": "recipes", "permission": "collections.create", "granted_at": "2026-10-01T09:00:00.000Z"}
    ],
    "extension_quota_v1": [{"name": "recipes", "day": "2026-10-01", "writes": 3, "chars": 120}],
    "extension_refs_v1": [
        {"name": "recipes", "ref": "ent_" + "a" * 26, "kind": "entity", "record_id": "pg_ada"}
    ],
    "extension_selected_v1": [{"name": "recipes", "collection_id": "col_x"}],
    "guard_changes_v1": [{"version": 1, "scope": "private", "record_id": "cl_w"}],
}
"""One row in each durable table but the identity, by column name (later migrations add
columns with defaults): what a kill must never lose or change."""


def seed_durable(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Write `DURABLE_SEED` into the database at `db`; the rows as `dump` will read them
    (read back, so the columns a migration added come with their defaults)."""
    conn = sqlite3.connect(db)
    with conn:
        for table, rows in DURABLE_SEED.items():
            for row in rows:
                names = ", ".join(row)
                marks = ",".join("?" * len(row))
                conn.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})", list(row.values()))
    seeded = {t: _rows(conn, f"SELECT * FROM {t}") for t in DURABLE_SEED}
    conn.close()
    return seeded


# -- vaults -----------------------------------------------------------------------------------


def make_vault(root: Path, records: int, seed: int = 1, body_max: int = 900) -> None:
    """A generated vault (bench/generate_vault.py: every record kind, links, merges,
    supersession, broken files) with bodies of at most `body_max` bytes."""
    spec = importlib.util.spec_from_file_location("faultkit_generate", REPO / "bench" / "generate_vault.py")
    assert spec is not None
    assert spec.loader is not None
    module = sys.modules.get(spec.name)
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up while defining
        spec.loader.exec_module(module)
    module.BODY_MIN, module.BODY_MAX = 200, body_max
    module.generate(root, records, seed, force=True)


class Flipper:
    """Moves a vault between two contents: A (as generated) and B, a burst away from A —
    `changed` files edited, `removed` deleted, `added` new records — in both directions."""

    def __init__(
        self, root: Path, seed: int, *, changed: int = 120, removed: int = 40, added: int = 60
    ) -> None:
        self.root = root
        rng = random.Random(seed)
        files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
        self.a = {p: (root / p).read_bytes() for p in files}
        picked = rng.sample(files, changed + removed)
        self.b = dict(self.a)
        for path in picked[:changed]:
            self.b[path] = _edit(self.a[path], rng)
        for path in picked[changed:]:
            del self.b[path]
        donors = rng.sample(files, added)
        for n, donor in enumerate(donors):
            text = self.a[donor].decode("utf-8", errors="replace")
            text = re.sub(r"(?m)^id: (\S+)$", rf"id: \g<1>-copy{n}", text, count=1)
            folder = donor.rsplit("/", 1)[0]
            self.b[f"{folder}/burst-{n:03}.md"] = text.encode("utf-8")
        self.state = "a"

    def flip(self) -> str:
        """Write the other content (the burst); which one the vault holds now."""
        target = self.b if self.state == "a" else self.a
        current = self.a if self.state == "a" else self.b
        for path in sorted(set(current) - set(target)):
            (self.root / path).unlink()
        for path, data in target.items():
            if current.get(path) != data:
                full = self.root / path
                full.parent.mkdir(parents=True, exist_ok=True)
                full.write_bytes(data)
        self.state = "b" if self.state == "a" else "a"
        return self.state

    def paths(self) -> set[str]:
        """Every path the burst touches (in either direction)."""
        return {p for p in set(self.a) | set(self.b) if self.a.get(p) != self.b.get(p)}


def _edit(data: bytes, rng: random.Random) -> bytes:
    text = data.decode("utf-8", errors="replace")
    how = rng.randrange(4)
    if how == 0:
        return (text + f"\nA burst edit {rng.randrange(10**6)} about [[Nobody In Particular]].\n").encode()
    if how == 1:
        return re.sub(r"(?m)^title: (.*)$", r"title: \1 (renamed)", text, count=1).encode()
    if how == 2:
        return re.sub(r"(?m)^lifecycle: active$", "lifecycle: withdrawn", text, count=1).encode()
    return text.replace("---\n", "---\nbroken: [unclosed\n", 1).encode()


def kill_delays(rng: random.Random, count: int, window: float) -> list[float]:
    """`count` delays spread over [0, window]: one per equal slice, at a random place in it."""
    return [slot_delay(rng, i, count, window) for i in range(count)]


def slot_delay(rng: random.Random, slot: int, count: int, window: float) -> float:
    """A random delay in the `slot`-th of `count` equal slices of [0, window]."""
    return (slot + rng.random()) * window / count


def wipe_state(root: Path, home: Path) -> None:
    """Back to a vault never indexed: no `.knowledge/`, and no memory of having opened it."""
    shutil.rmtree(root / ".knowledge", ignore_errors=True)
    shutil.rmtree(home / "xdg_state_home", ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        _serve(sys.argv[2:])
    elif sys.argv[1] == "child":
        _child(json.loads(sys.argv[2]))
    elif sys.argv[1] == "delete-document":
        _delete_document(*sys.argv[2:5])
