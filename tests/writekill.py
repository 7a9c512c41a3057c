"""A small kill harness for the write side: run `knowledge` commands in forked processes and
SIGKILL them at a named point of the publish path or after a delay.

A fork server (`python -m tests.writekill`) imports the CLI once and forks one child per
command, so a kill costs milliseconds of start-up instead of a second of imports, and the
test process itself (which may hold Qt threads) never forks. Kill points:

- `step:NAME` — the publish path's step seam (`write.publish.STEP`): "journaled",
  "replaced:0", "reconciled", "published";
- `fsync:N` — at the Nth `os.fsync` (1: the temp file of the first replacement is written,
  not yet renamed over the record);
- `durable:N` — inside the Nth durable transaction (`Store.write(durable=True)`), after its
  work and before COMMIT (1: the journaled intent, 2: the publication);
- None — no named point (kill it from outside with `Killer.run(..., after=seconds)`).

The `tests/faultkit.py` harness on another branch does the same for the read side; when
both are on main, this one should become a thin use of it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Outcome:
    killed: bool
    returncode: int | None
    stdout: str


class Killer:
    """The fork server, as a context manager."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self._server: subprocess.Popen[str] | None = None
        self._serial = 0

    def __enter__(self) -> Killer:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self._server = subprocess.Popen(
            [sys.executable, "-m", "tests.writekill"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=env,
        )
        return self

    def __exit__(self, *exc: object) -> None:
        server = self._server
        if server is not None and server.stdin is not None and server.stdout is not None:
            server.stdin.close()
            server.wait(timeout=30)
            server.stdout.close()

    def run(self, argv: list[str], *, point: str | None = None, after: float | None = None) -> Outcome:
        """Run `knowledge ARGV`; SIGKILL it at `point`, or `after` seconds."""
        self._serial += 1
        out = self.scratch / f"out{self._serial}"
        pid = int(self._ask({"op": "run", "argv": argv, "point": point, "out": str(out)})["pid"])
        if after is not None:
            time.sleep(after)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        status = int(self._ask({"op": "wait", "pid": pid})["status"])
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        code = None if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        text = out.read_text("utf-8", errors="replace") if out.exists() else ""
        return Outcome(killed, code, text)

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        server = self._server
        assert server is not None
        assert server.stdin is not None
        assert server.stdout is not None
        server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        line = server.stdout.readline()
        if not line:
            raise RuntimeError("the kill server died")
        answer: dict[str, Any] = json.loads(line)
        return answer


# -- the server side ------------------------------------------------------------------------


def _serve() -> None:
    import knowledge_desktop.cli  # noqa: F401  (imported once, before any fork)

    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "run":
            pid = os.fork()
            if pid == 0:
                _child(request)
            answer: dict[str, Any] = {"pid": pid}
        else:
            answer = {"status": os.waitpid(request["pid"], 0)[1]}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


def _child(request: dict[str, Any]) -> None:
    code = 1
    try:
        out = os.open(request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, 1)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 2)
        if request["point"]:
            _install(request["point"])
        from knowledge_desktop.cli import main

        try:
            code = main(request["argv"])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        os._exit(code)


def _install(point: str) -> None:
    from knowledge_desktop.engine.store.db import Store
    from knowledge_desktop.engine.write import publish

    kind, _, name = point.partition(":")

    def die() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    if kind == "step":
        publish.STEP = lambda step: die() if step == name else None
        return
    target, seen = int(name), [0]
    if kind == "fsync":
        real_fsync = os.fsync

        def fsync(fd: int) -> None:
            seen[0] += 1
            if seen[0] == target:
                die()
            real_fsync(fd)

        os.fsync = fsync
        return
    original = Store.write

    @contextlib.contextmanager
    def write(self: Store, bulk: bool = False, *, durable: bool = False) -> Iterator[Any]:
        with original(self, bulk, durable=durable) as tx:
            yield tx
            if durable:
                seen[0] += 1
                if seen[0] == target:
                    die()

    Store.write = write  # type: ignore[method-assign,assignment]


if __name__ == "__main__":
    _serve()
