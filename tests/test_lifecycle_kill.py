"""SIGKILL `knowledge withdraw`, `correct`, `supersede` and `merge` at every step of the
publish path and at random moments: after the next open (or `resume`) every record is wholly
old or wholly new, the journal agrees with the files, no guard is lost (a published
withdrawal or supersession has its guard, an unpublished one none), and the projections
equal a fresh scan (issue 14, Tests; spec: corrections-and-merges, Recovery and safeguards)."""

from __future__ import annotations

import hashlib
import random
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowledge_desktop.cli import main
from knowledge_desktop.engine.vault import Vault
from tests import faultkit as fk
from tests.vaultkit import VaultKit, fresh_snapshot, frontmatter, snapshot

GUARDED_POINTS = (
    "durable:1",
    "step:journaled",
    "fsync:1",
    "step:replaced:0",
    "durable:2",
    "step:reconciled",
    "durable:3",
    "step:published",
)
"""Before the intent commits; after it; the first new bytes in a temp file; after the first
replacement; inside the guards' transaction; after the projections; inside the publication;
after it. A merge has no guards: its publication is the second durable transaction."""
MERGE_POINTS = (*GUARDED_POINTS[:4], "step:replaced:1", "step:reconciled", "durable:2", "step:published")
RANDOM_KILLS = 3
CLAIMS = 28
"""Targets per kind: enough for every command of one test (8 named points, the timed run,
and up to 6 × RANDOM_KILLS random attempts)."""
FIXED = {
    "kind": "claim",
    "claim_kind": "fact",
    "assertion_origin": "source",
    "attribution": "CI",
    "entities": ["pg_pr"],
    "evidence": [{"url": "https://ci.example.org"}],
}


@pytest.fixture(scope="module")
def killer() -> Iterator[fk.Launcher]:
    with fk.Launcher(preload=fk.CLI_PRELOAD) as server:
        yield server


class Session:
    """One vault with many claims and page pairs, one fresh target per killed command."""

    def __init__(self, kit: VaultKit, scratch: Path, killer: fk.Launcher, operation: str) -> None:
        self.root, self.scratch, self.killer = kit.root, scratch, killer
        self.seed = zlib.crc32(operation.encode())
        print(f"random kills drawn from seed {self.seed}")  # shown with a failure
        self.rng = random.Random(self.seed)
        self.serial = 0
        self.kills = 0
        self.random_landed = 0
        """Random kills that struck inside a write transaction (`fk.Run.landed`)."""
        kit.page("private/projects/pr.md", "pg_pr", "PR 42", type="project")
        for n in range(1, CLAIMS + 1):
            if operation == "merge":
                alias = [f"email:p{n}@example.org"]
                kit.page(f"private/people/p{n}.md", f"pg_p{n}", f"Person {n}", type="person", aliases=alias)
                kit.page(
                    f"private/people/q{n}.md", f"pg_q{n}", f"Q {n}", type="person", aliases=alias, tags=["x"]
                )
                continue
            kit.claim(f"private/claims/c{n}.md", f"cl_{n}", f"Snapshot {n}", entities=["pg_pr"])
            kit.claim(f"private/claims/d{n}.md", f"cl_d{n}", f"Because of {n}", entities=["pg_pr"],
                      dependencies=[f"cl_{n}"])  # fmt: skip
            if operation == "supersede":
                kit.claim(f"private/claims/b{n}.md", f"cl_b{n}", f"Merged {n}", entities=["pg_pr"])
        kit.scan()
        kit.close()

    def fence(self, vault: Vault, record_id: str) -> str:
        shown = vault.show(record_id)
        return f"{record_id}:{shown['revision']}:{shown['hash']}"

    def command(self, operation: str) -> tuple[list[str], dict[str, bytes | None], str, list[str]]:
        """argv, the files it may write with their bytes now, its request id, and the ids
        it guards when published."""
        self.serial += 1
        n, request = self.serial, f"rq_{self.serial}"
        with Vault.open(self.root) as vault:
            vault.reconcile()
            if operation == "withdraw":
                args, ids = ["withdraw", str(self.root), self.fence(vault, f"cl_{n}")], [f"cl_{n}"]
            elif operation == "correct":
                source = self.scratch / f"fixed{n}.md"
                source.write_text(f"---\n{frontmatter({**FIXED, 'title': f'Fixed {n}'})}---\nFixed.\n")
                args = ["correct", str(self.root), self.fence(vault, f"cl_{n}"), "--with", str(source)]
                ids = [f"cl_{n}"]
            elif operation == "supersede":
                earlier = [f"cl_d{n}", f"cl_{n}"]  # cl_d{n} first: it depends on cl_{n}
                by = f"cl_b{n}"
                args = ["supersede", str(self.root), "--by", self.fence(vault, by)]
                args += [self.fence(vault, i) for i in earlier]
                vault_paths = {i: vault.show(i)["path"] for i in earlier}
                ids = earlier
                args += ["--reason", "later"]
                before = {p: (self.root / p).read_bytes() for p in vault_paths.values()}
                return [*args, "--request-id", request, "--json"], before, request, ids
            else:
                args = ["merge", str(self.root), "--survivor", self.fence(vault, f"pg_p{n}")]
                args += ["--absorbed", self.fence(vault, f"pg_q{n}")]
                ids = []
            paths = [vault.show(i)["path"] for i in (ids or [f"pg_p{n}", f"pg_q{n}"])]
        before: dict[str, bytes | None] = {p: (self.root / p).read_bytes() for p in paths}
        if operation == "correct":
            before[f"private/claims/fixed-{n}.md"] = None
        return [*args, "--reason", "killed", "--request-id", request, "--json"], before, request, ids

    def kill(self, operation: str, point: str | None) -> None:
        after = None if point else self.rng.uniform(0.0, self.span(operation))
        argv, before, request, ids = self.command(operation)
        outcome = fk.run_cli(self.killer, argv, point=point, after=after)
        if point is not None:
            assert outcome.killed, (point, outcome)
        else:
            assert outcome.killed or outcome.returncode == 0, outcome
        self.kills += outcome.killed
        if point is None:
            self.random_landed += outcome.landed
        self.check(request, before, ids)

    def span(self, operation: str) -> float:
        """How long an unkilled run of this operation takes (measured once)."""
        if not hasattr(self, "_spans"):
            self._spans: dict[str, float] = {}
        if operation not in self._spans:
            argv, before, request, ids = self.command(operation)
            started = time.monotonic()
            assert fk.run_cli(self.killer, argv).returncode == 0
            self._spans[operation] = time.monotonic() - started
            self.check(request, before, ids)
        return self._spans[operation]

    def check(self, request: str, before: dict[str, bytes | None], ids: list[str]) -> None:
        if self.rng.random() < 0.5:  # `resume` opens the vault (finishing what was pending), then answers
            assert main(["resume", str(self.root), request, "--json"]) in (0, 4)
        with Vault.open(self.root) as vault:
            vault.reconcile()
            listing = vault.journal(limit=1000)["items"]
            assert [i for i in listing if i["state"] != "published"] == []
            assert [d.code for d in vault.vault_diagnostics()] == []
            entry = next((i for i in listing if i["requestId"] == request), None)
            marks = ",".join("?" * len(ids))
            guarded = {
                r
                for (r,) in vault.store.reader().execute(
                    f"SELECT record_id FROM lifecycle_guards_v1 WHERE record_id IN ({marks})", ids
                )
            }
            if entry is None:  # killed before the intent was journaled: all old, no guard
                for rel, data in before.items():
                    now = (self.root / rel).read_bytes() if (self.root / rel).exists() else None
                    assert now == data, rel
                assert guarded == set()
            else:  # journaled: all new, exactly as the receipt says, every guard in place
                for item in entry["receipt"]["items"]:
                    data = (self.root / item["path"]).read_bytes()
                    assert hashlib.sha256(data).hexdigest() == item["hash"]
                    assert vault.show(item["id"])["revision"] == item["revision"]
                assert guarded == set(ids)
            assert "lifecycle-guarded" not in {d.code for d in vault.diagnostics()}
            assert [p for p in self.root.rglob(".*.tmp") if ".knowledge" not in p.parts] == []
            assert snapshot(vault) == fresh_snapshot(self.root, self.scratch)


@pytest.mark.parametrize("operation", ["withdraw", "correct", "supersede", "merge"])
def test_killed_lifecycle_writes_leave_each_record_wholly_old_or_wholly_new(
    operation: str, kit: VaultKit, tmp_path: Path, killer: fk.Launcher
) -> None:
    """Eight named points of the publish path and three random moments per operation
    (44 kills in all; 80 with the page writes' kill test)."""
    session = Session(kit, tmp_path, killer, operation)
    points = MERGE_POINTS if operation == "merge" else GUARDED_POINTS
    for point in points:
        session.kill(operation, point)
    for _ in range(6 * RANDOM_KILLS):  # a delay past the end kills nothing: try again
        if session.kills >= len(points) + RANDOM_KILLS:
            break
        session.kill(operation, None)
    assert session.kills == len(points) + RANDOM_KILLS
    landed = f"{session.random_landed} in a transaction"
    print(f"{operation}: {len(points)} at named points, {RANDOM_KILLS} random ({landed})")
