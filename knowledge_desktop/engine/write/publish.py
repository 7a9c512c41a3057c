"""The one publish path: every write to the vault's Markdown goes through `Publisher.run`.

    run(request, planner)
      1. holds the vault's write lock (`fs/lock.py`: one writer across processes);
      2. returns the stored receipt for a request id seen before with the same payload
         (and rejects it with another payload; finishes it when it was interrupted);
      3. checks the vault fence, lets the operation plan (`planner(ctx)` → `Plan`),
         then checks every fence again against the files as they are now;
      4. journals the intent — the plan and every file's bytes before and after —
         in one durable transaction;
      5. replaces each file atomically (`fs/atomic.py`), checking just before each
         that it still holds the bytes the plan expects;
      6. records the plan's durable guards, then reconciles the written paths (the one
         reconcile path: `Vault.reconcile`, which reads through the guards);
      7. in one durable transaction records provenance
         (who saved which revision) and history, marks the entry published and
         stores the receipt.

A crash anywhere leaves an entry `pending` (or nothing at all, before 4).
`resume`, and the next open of the vault (`recover`), carry such an entry
out: each of its files holds either its old bytes or its new ones, so the
remaining replacements are made and steps 6–7 run; if an outside edit got
in between, the replacements already made are put back instead, the
proposed, original and displaced bytes are kept under
`.knowledge/conflicts/<journal id>/`, and the entry is `rolled-back` with a
`write-conflict` outcome that reads report until it is reviewed
(`resume --reviewed`). See docs/writing.md.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from knowledge_desktop.engine.changes import ChangeSet
from knowledge_desktop.engine.errors import KnownError, QueryError
from knowledge_desktop.engine.fs.atomic import fsync_folder
from knowledge_desktop.engine.fs.lock import LockBusy, exclusive, is_held
from knowledge_desktop.engine.history import repo as hrepo
from knowledge_desktop.engine.query.impact import impact
from knowledge_desktop.engine.reconcile import Reconciler
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.store import guards as guard_rows
from knowledge_desktop.engine.store.db import Store, Tx
from knowledge_desktop.engine.write import checkpoints, journal, receipts
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.disk import Disk
from knowledge_desktop.engine.write.journal import Entry, JournalFile
from knowledge_desktop.engine.write.plan import Plan, Request, WriteRejected

Planner = Callable[[WriteContext], Plan]
STEP: Callable[[str], None] | None = None
"""Test seam: called with each step's name ("journaled", "replaced:N", "reconciled",
"published", "restored:N", "rolled-back"); the kill tests SIGKILL the process there."""
LOCK_NAME = "write.lock"
LOCK_WAIT_S = 30.0
PUBLISH_LOOSE_LIMIT = 4 * hrepo.LOOSE_LIMIT
"""A publication packs the checkpoint repository only when packing is far overdue (a
process that only publishes, like a script of CLI writes): packing takes seconds."""
BATCH_INTERVAL_S = 0.25
"""A run's publication (a request with a run id: the knowledge API) commits its
checkpoint inline only when the last inline flush of this publisher was at least this
long ago; otherwise its checkpoint waits for the next flush, one commit for the batch."""
BATCH_WAITING = 50
"""…or when this many of its publications already wait."""
BATCHED = "batched with the run's next checkpoint"
"""The reason a run's publication's checkpoint is pending until the next flush."""


class WriteFailed(KnownError):
    """The disk or the database failed mid-write (CLI exit 5); the journal says what stays."""

    def __init__(self, code: str, message: str, current: dict[str, Any]) -> None:
        super().__init__(message)
        self.code, self.message, self.current = code, message, current

    def as_json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "current": self.current}}


def _step(name: str) -> None:
    if STEP is not None:
        STEP(name)


class Publisher:
    def __init__(
        self,
        root: Path,
        state_dir: Path,
        store: Store,
        reconciler: Callable[[], Reconciler],
        reconcile: Callable[[list[str]], ChangeSet],
        vault_id: str,
        read_only: bool,
    ) -> None:
        self.root, self.state_dir, self.store = root, state_dir, store
        self._reconciler, self._reconcile = reconciler, reconcile
        self.vault_id, self.read_only = vault_id, read_only
        self.disk = Disk(root, state_dir)
        self._last_flush = float("-inf")  # time.monotonic() after the last publication's flush
        self._waiting = 0  # publications whose checkpoint waits for the next flush
        self._holding = 0
        """Writes of this process holding the write lock now (`interrupted`; where `flock`
        does not exist it is the only sign of one)."""

    # -- the operations' entry ----------------------------------------------------
    def run(self, request: Request, planner: Planner) -> dict[str, Any]:
        """Plan and publish one request; its receipt (WriteRejected: nothing was written)."""
        if self.read_only:
            raise WriteRejected(
                "read-only", "this vault's .knowledge folder is not writable, so nothing can be saved", {}
            )
        payload_sha = receipts.payload_sha256(request)
        with self._locked(LOCK_WAIT_S):
            replay = self._replay(request.request_id, payload_sha)
            if replay is not None:
                return replay
            if request.expected_vault_id is not None and request.expected_vault_id != self.vault_id:
                raise WriteRejected(
                    "fence-vault",
                    "the request is for another vault (its expected vault id differs)",
                    {"vaultId": self.vault_id},
                )
            ctx = self._context(request)
            plan = planner(ctx)
            files = self._verify(ctx, plan)
            affected = impact(self.store.reader(), plan.impact_of) if plan.impact_of else []
            with self.store.write(durable=True) as tx:
                seq = journal.record_intent(
                    tx,
                    request_id=request.request_id,
                    operation=plan.operation,
                    payload_sha256=payload_sha,
                    actor=request.actor,
                    target_id=plan.target_id,
                    scope=files[0].path.split("/", 1)[0] if files else _scope_of(plan),
                    payload=request.payload,
                    plan=journal.plan_json(plan, ctx.now, affected),
                    files=files,
                    now=ctx.now,
                    run_id=request.run_id,
                )
            _step("journaled")
            return self._carry_out(seq, recovering=False, batch=self._may_batch(request))

    def preview(self, request: Request, planner: Planner) -> Plan:
        """Plan `request` without publishing: what a confirmation dialog shows.

        The planner runs against a context as `run` builds it (its fences are checked
        against the files as they are now, so a stale one is rejected here too), but
        nothing is journaled or written and the write lock is not taken: the plan is
        made again, under the lock, when the request is published.
        """
        return planner(self._context(request))

    def _context(self, request: Request) -> WriteContext:
        return WriteContext(
            self.root,
            self.store,
            self._reconciler(),
            self._reconcile,
            request,
            self.vault_id,
            utc_now_text(),
        )

    def resume(self, request_id: str, *, reviewed: bool = False) -> dict[str, Any]:
        """Finish (or roll back) an interrupted request, or answer for a finished one.

        A published request gives its receipt. A rolled-back one raises its outcome
        again (`write-conflict`, `write-failed`), unless `reviewed` marks its conflict
        reviewed, which returns the entry. Nothing here overwrites an outside edit."""
        with self._locked(LOCK_WAIT_S):
            found = receipts.find(self.store.reader(), request_id)
            if found is not None:
                return found[1]
            entry = journal.by_request(self.store.reader(), request_id)
            if entry is None:
                raise WriteRejected(
                    "unknown-request", f"no request {request_id!r} in this vault's journal", {}
                )
            if entry.state == journal.PENDING:
                return self._carry_out(entry.seq)
            if reviewed and entry.conflict:
                with self.store.write(durable=True) as tx:
                    journal.mark_reviewed(tx, entry.seq, utc_now_text())
                return journal.entry_json(journal.entry(self.store.reader(), entry.seq) or entry, None)
            raise journal.outcome_error(entry)

    def recover(self) -> list[dict[str, Any]]:
        """Carry out every entry a dead process left pending (on open). Skipped while another
        process holds the write lock: its entry is not dead."""
        if self.read_only or not journal.pending(self.store.reader()):
            return []
        results: list[dict[str, Any]] = []
        try:
            with self._locked(0.0):
                for entry in journal.pending(self.store.reader()):
                    try:
                        results.append(self._carry_out(entry.seq))
                    except (WriteRejected, WriteFailed) as exc:
                        results.append(exc.as_json())
        except WriteRejected:  # busy: the writer is alive
            return []
        return results

    # -- what reads and the activity list show ----------------------------------
    def listing(self, limit: int = 50, offset: int = 0) -> dict[str, Any]:
        """The journal, newest first, each entry with its receipt or outcome."""
        if not 1 <= limit <= 1000 or offset < 0:
            raise QueryError("limit must be between 1 and 1000 and offset must not be negative")
        conn = self.store.reader()
        entries, total = journal.listing(conn, limit, offset)
        items = []
        for entry in entries:
            found = receipts.find(conn, entry.request_id) if entry.state == journal.PUBLISHED else None
            items.append(journal.entry_json(entry, found[1] if found else None))
        next_offset = offset + len(items) if offset + len(items) < total else None
        return {"items": items, "total": total, "nextOffset": next_offset}

    def open_conflicts(self) -> list[tuple[Entry, list[str]]]:
        """Unreviewed conflicts with the paths each concerns."""
        conn = self.store.reader()
        return [(e, [f.path for f in journal.files(conn, e.seq)]) for e in journal.unreviewed_conflicts(conn)]

    def interrupted(self) -> list[Entry]:
        """Pending entries that nobody is carrying out. A publish holds the write lock from its
        first check to its receipt, and its entry is pending all along, so while anyone holds
        the lock (this process or another) a pending entry is a write in progress, not an
        interrupted one (fs/lock.py). Without this, whatever read between a publish's reconcile
        and its receipt — the window's panes, refreshed by that very reconcile's ChangeSet —
        reported the write as interrupted, and kept saying so, since nothing changed after
        (issue 29, §1)."""
        pending = journal.pending(self.store.reader())
        if pending and (self._holding or is_held(self.state_dir / LOCK_NAME)):
            return []
        return pending

    # -- steps ------------------------------------------------------------------------
    @contextmanager
    def _locked(self, wait: float) -> Iterator[None]:
        try:
            with exclusive(self.state_dir / LOCK_NAME, wait):
                self._holding += 1
                try:
                    yield
                finally:
                    self._holding -= 1
        except LockBusy:
            raise WriteRejected(
                "vault-busy", "another process is writing to this vault; try again in a moment", {}
            ) from None

    def _replay(self, request_id: str, payload_sha: str) -> dict[str, Any] | None:
        conn = self.store.reader()
        found = receipts.find(conn, request_id)
        entry = journal.by_request(conn, request_id)
        seen_sha = found[0] if found else (entry.payload_sha256 if entry else None)
        if seen_sha is not None and seen_sha != payload_sha:
            raise WriteRejected(
                "request-reused",
                f"request id {request_id!r} was used for another payload; use a new request id",
                {"requestId": request_id, "journalId": entry.seq if entry else None},
            )
        if found is not None:
            return found[1]
        if entry is None:
            return None
        if entry.state == journal.PENDING:
            return self._carry_out(entry.seq)
        raise journal.outcome_error(entry)

    def _verify(self, ctx: WriteContext, plan: Plan) -> list[JournalFile]:
        """Every fence once more, right before the intent is journaled; the files' rows."""
        for path, sha in ctx.checked:
            if ctx.sha_on_disk(path) != sha:
                raise WriteRejected(
                    "fence-hash", f"{path} changed while the operation was planned; read it again", {}
                )
        ontologies = ctx.reconciler.ontologies()
        for scope, fingerprint in ctx.ontology_fences.items():
            activation = ontologies.get(scope)
            now = activation.ontology.fingerprint if activation and activation.ontology else None
            if now != fingerprint:
                raise WriteRejected(
                    "fence-ontology",
                    f"the ontology of {scope!r} changed while the operation was planned",
                    {"scope": scope, "fingerprint": now},
                )
        for guard in plan.guards:
            if guard.lift and guard.guard == "withdrawn":
                raise WriteRejected("guard-permanent", "a withdrawal is never lifted", {})
        return self.disk.rows(plan.writes, root_markdown=plan.operation in ("adopt", "undo"))

    def _may_batch(self, request: Request) -> bool:
        """Whether this publication's checkpoint may wait for the next flush: only a run's
        (a person's save is committed at once, as its receipt shows), only right after a
        flush, and only while few wait. The next publication's flush, `retry_checkpoints`
        (the window's worker after publications; the next open) and `Vault.close` commit it."""
        return (
            request.run_id is not None
            and hrepo.unavailable_reason() is None
            and time.monotonic() - self._last_flush < BATCH_INTERVAL_S
            and self._waiting < BATCH_WAITING
        )

    def _carry_out(self, seq: int, *, recovering: bool = True, batch: bool = False) -> dict[str, Any]:
        """Roll an entry forward — or back, when an outside edit got in — and publish it.
        `recovering`: the entry's own process died (its temp files are swept). `batch`: its
        checkpoint is left pending for the next flush (`_may_batch`)."""
        entry = journal.entry(self.store.reader(), seq)
        assert entry is not None
        files = journal.files(self.store.reader(), seq)
        folders: set[Path] = set()  # fsynced once each after the replacements
        try:
            for f in files:
                if recovering:
                    self.disk.sweep_temp(f.path)
                state = self.disk.state(f)
                if state == "other":
                    return self._roll_back(entry, files, conflict=f)
                if state == "old":
                    if not self.disk.replace(f, folders):
                        return self._roll_back(entry, files, conflict=f)
                    _step(f"replaced:{f.idx}")
            for folder in sorted(folders):
                fsync_folder(folder)
        except OSError as exc:
            return self._roll_back(entry, files, failure=exc)
        try:
            if entry.plan.get("guards"):
                # Before the reconcile, so that it already reads through them: a lifted
                # supersession reads active at once, not at the next reconcile. Applying
                # them again on resume changes nothing (INSERT OR IGNORE, DELETE).
                with self.store.write(durable=True) as tx:
                    self._apply_guards(tx, entry)
        except sqlite3.Error as exc:
            raise WriteFailed(
                "write-failed",
                f"the files are written but their guards could not be recorded ({exc}); "
                f"run `knowledge resume` with request id {entry.request_id}",
                {"journalId": seq, "state": journal.PENDING},
            ) from None
        indexed = self._index([f.path for f in files])
        _step("reconciled")
        receipt = receipts.build(entry, files, indexed)
        if batch:
            receipt["git"] = {"state": checkpoints.PENDING, "reason": BATCHED}
        try:
            with self.store.write(durable=True) as tx:
                for f in files:
                    _provenance(tx, entry, f)
                journal.finish(tx, seq, journal.PUBLISHED, utc_now_text())
                checkpoints.queue(tx, seq, utc_now_text(), BATCHED if batch else None)
                receipts.store(tx, entry.request_id, entry.payload_sha256, receipt, utc_now_text())
        except sqlite3.Error as exc:
            raise WriteFailed(
                "write-failed",
                f"the files are written but the journal could not be completed ({exc}); "
                f"run `knowledge resume` with request id {entry.request_id}",
                {"journalId": seq, "state": journal.PENDING},
            ) from None
        _step("published")
        if batch:
            self._waiting += 1
            return receipt
        return self._checkpoint(entry, receipt)

    def _checkpoint(self, entry: Entry, receipt: dict[str, Any]) -> dict[str, Any]:
        """Commit the pending checkpoints, after the publication is durable: whatever fails
        here leaves the publication as it is and its checkpoint pending, with the reason."""
        try:
            # packing waits for a worker (`VaultHistory.maintain`) unless far overdue
            self._flush(PUBLISH_LOOSE_LIMIT)
            self._last_flush = time.monotonic()
            receipt["git"] = checkpoints.state_of(self.store.reader(), entry.seq)
            with self.store.write() as tx:
                receipts.store(tx, entry.request_id, entry.payload_sha256, receipt, utc_now_text())
        except (OSError, sqlite3.Error) as exc:
            receipt["git"] = {
                "state": checkpoints.PENDING,
                "reason": f"the checkpoint could not be made: {exc}",
            }
        return receipt

    def retry_checkpoints(self) -> None:
        """Commit checkpoints left pending (on open), unless another process is writing."""
        if self.read_only:
            return
        try:
            with self._locked(0.0):
                self._flush(None)
        except (WriteRejected, OSError, sqlite3.Error):
            return

    def flush_waiting(self) -> None:
        """Commit the checkpoints still pending (a run's last batch) when the vault is
        closed: best effort, it never raises (the next open tries again), and it packs only
        when packing is far overdue, as a publication does (packing takes seconds)."""
        if self.read_only:
            return
        with contextlib.suppress(Exception), self._locked(0.0):
            self._flush(PUBLISH_LOOSE_LIMIT)

    def _flush(self, loose_limit: int | None) -> None:
        """Commit every pending checkpoint (under the write lock)."""
        try:
            checkpoints.flush(self.state_dir, self.store, self.root, loose_limit)
        finally:
            self._waiting = 0

    def _roll_back(
        self,
        entry: Entry,
        files: list[JournalFile],
        *,
        conflict: JournalFile | None = None,
        failure: OSError | None = None,
    ) -> NoReturn:
        """Put back what this entry replaced, keep a conflict's material, record the outcome, raise it."""
        outcome: dict[str, Any]
        if conflict is not None:
            folder = self.disk.keep_conflict(entry.seq, files, conflict)
            outcome = {
                "code": "write-conflict",
                "message": f"{conflict.path} was changed by someone else before it could be written; "
                "nothing was written and the outside edit is kept",
                "path": conflict.path,
                "recordId": conflict.record_id,
                "conflictDir": str(folder),
            }
        else:
            outcome = {"code": "write-failed", "message": f"writing failed: {failure}"}
        try:
            for f in files:
                if self.disk.restore(f):
                    _step(f"restored:{f.idx}")
        except OSError as exc:
            raise WriteFailed(
                "write-failed",
                f"{outcome['message']}; putting the earlier files back failed too ({exc}); "
                f"run `knowledge resume` with request id {entry.request_id}",
                {"journalId": entry.seq, "state": journal.PENDING},
            ) from None
        self._index([f.path for f in files])
        with self.store.write(durable=True) as tx:
            journal.finish(tx, entry.seq, journal.ROLLED_BACK, utc_now_text(), outcome)
        _step("rolled-back")
        raise journal.outcome_error(journal.entry(self.store.reader(), entry.seq) or entry)

    def _index(self, paths: list[str]) -> bool:
        """Reconcile the written paths; False when that failed (the next reconcile catches up)."""
        try:
            self._reconcile(paths)
        except (KnownError, sqlite3.Error):
            return False
        return True

    @staticmethod
    def _apply_guards(tx: Tx, entry: Entry) -> None:
        """Durable guards (spec: corrections-and-merges, Recovery and safeguards): the first
        withdrawal and supersession stay; only a lift removes a supersession guard."""
        reason = entry.plan.get("reason") or ""
        at = entry.plan.get("at", entry.created_at)
        for g in entry.plan.get("guards", []):
            key = (g["scope"], g["recordId"], g["guard"])
            if g["lift"]:
                tx.execute("DELETE FROM lifecycle_guards_v1 WHERE scope=? AND record_id=? AND guard=?", key)
                continue
            tx.execute(
                "INSERT OR IGNORE INTO lifecycle_guards_v1(scope, record_id, guard, by_id, request_id,"
                " created_at) VALUES (?,?,?,?,?,?)",
                (*key, g["byId"], entry.request_id, at),
            )
            if g["guard"] == "withdrawn":
                tx.execute(
                    "INSERT OR IGNORE INTO keyword_withdrawals_v1(scope, record_id, request_id, reason,"
                    " withdrawn_at) VALUES (?,?,?,?,?)",
                    (g["scope"], g["recordId"], entry.request_id, reason, at),
                )
        guard_rows.prune(tx)  # the change log stays bounded (store/guards.py)


def _scope_of(plan: Plan) -> str | None:
    """The partition of a plan that writes no file (a collection's folder, say), when its
    `extra.scope` names one: listing a partition's changes finds the entry by it."""
    scope = plan.extra.get("scope")
    return scope if isinstance(scope, str) and scope else None


def _provenance(tx: Tx, entry: Entry, f: JournalFile) -> None:
    """Who saved this revision ("Saved by"), and the history event."""
    scope = f.path.split("/", 1)[0]
    if f.record_id is None:
        return
    at = entry.plan.get("at", entry.created_at)
    if f.revision is not None and f.new_sha256 is not None:  # a deletion saves no revision
        tx.execute(
            "INSERT OR REPLACE INTO provenance(scope, record_id, revision, agent_id, journal_seq, sha256)"
            " VALUES (?,?,?,?,?,?)",
            (scope, f.record_id, f.revision, entry.actor, entry.seq, f.new_sha256),
        )
    tx.execute(
        "INSERT INTO history(scope, record_id, revision, sha256, event, journal_seq, at)"
        " VALUES (?,?,?,?,?,?,?)",
        (scope, f.record_id, f.revision, f.new_sha256, entry.operation, entry.seq, at),
    )
