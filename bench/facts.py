"""Knowledge API facts (issue 16 §5): `facts.lookup` on a partition holding many facts, and a
run of `facts.put` calls undone by `changes.revert` of its run id.

    python bench/facts.py --facts 100000 --subjects 2000 [--lookups 2000] [--puts 0]
    python bench/facts.py --facts 1000 --subjects 20 --lookups 0 --puts 500 --fresh

The vault (`bench/vaults/facts-<facts>-<subjects>[-<notes>]/` unless `--vault`) is one
partition, `private/`: a self page, `--subjects` person pages, `--notes` note pages (default
none; a generated 100k vault has some 35,000 pages), and `--facts` fact claims written straight
to disk in the shape `facts.put` gives them (a `fact:` mapping, the subject in `entities`, the
writer in `evidence`), spread evenly over the self page and the people, ten `many` predicates
of the core vocabulary, one in ten pointing at another person. Writing them through `facts.put`
would take hours; what is measured is reading them. A generated vault is reused; `--fresh`
writes it again, and a vault without `.knowledge/` is scanned cold (`scanSeconds`: open +
reconcile in this process, the OS page cache warm from the writing).

Lookups (`--lookups` of each kind, random subjects, one extension granted five of the ten
predicates on people and on self): `person` and `self` without a prefix, `personPrefix` and
`selfPrefix` under `pref.food`. Each gives p50/p95/max in ms and the mean facts returned. The
session's first lookup is timed apart (`firstMs`): it loads the partitions' ontologies once.
`cpuLoopMs` times a fixed pure-Python loop run after each person lookup, about as long as one:
on a machine others share, its p95 shows how much of a lookup's tail is waiting for a CPU.

Puts (`--puts`): a new extension (`bench-put-<n>`, so the daily quota of 500 writes starts
empty) writes `--puts` values of `pref.food.like` about self in one run, then that run is
reverted through `changes.revert` by its run id (the extension holds `changes.manage`).
`putTotalS`, per-put p50/p95/max ms, `revertTotalS`, `flushS` (committing the checkpoints the
run's last publications left pending, as closing the vault does: docs/history.md, "Batched
checkpoints"), `commits` (checkpoint commits made for the run's `2 × --puts` publications), and
`totalS` = the three; `putSteps` and
`revertSteps` split the mean write (ms) by the publish path's steps (`write.publish.STEP`, as
`bench/publish.py` does): `api` is the API's own work before `Vault.write` (resolving, checks,
reads; for a revert, listing the run), `journaled` the plan and the durable journal entry,
`replaced` the file written and synced, `reconciled`, `published` (guards, provenance, the
receipt), `checkpoint` the Git checkpoint of issue 15, `after` the put's work after its
write (issuing refs). The written
claims stay on disk withdrawn (a revert deletes nothing). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from percentile import pct  # bench/percentile.py, beside this script

from knowledge_desktop.engine.api import facts
from knowledge_desktop.engine.api.changes import Changer, revert
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.api.session import Planner, Session, Write
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session
from knowledge_desktop.engine.write import publish
from knowledge_desktop.engine.write.plan import Request

SCOPE = "private"
PREDICATES = (
    "pref.food.like",
    "pref.food.dislike",
    "pref.food.cuisine",
    "contact.email",
    "relation.friend",
    "relation.colleague",
    "work.project",
    "schedule.event",
    "health.allergy",
    "identity.nickname",
)
READ = ("pref.food.*", "relation.friend", "contact.email")
"""What the reading extension is granted, on people and on self: five of the ten predicates."""
WORDS = [
    "stew",
    "soup",
    "bread",
    "rice",
    "lentils",
    "curry",
    "pasta",
    "salad",
    "tofu",
    "herring",
    "cheese",
    "figs",
]
STAMP = "2026-11-01T09:00:00.000Z"


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": pct(values, 0.5, 3), "p95": pct(values, 0.95, 3), "max": pct(values, 1, 3)}


def _page(record_id: str, title: str, aliases: list[str], page_type: str = "person") -> str:
    lines = [
        "---",
        "format: knowledge-record-v1",
        f"id: {record_id}",
        "revision: 1",
        "kind: page",
        f"title: {title}",
        f"recorded_at: '{STAMP}'",
        f"updated_at: '{STAMP}'",
        f"scope: {SCOPE}",
        "lifecycle: active",
        f"type: {page_type}",
    ]
    if aliases:
        lines += ["aliases:", *(f"- {a}" for a in aliases)]
    return "\n".join([*lines, "---", ""]) + "\n"


def _claim(n: int, subject: tuple[str, str], predicate: str, value: str, obj: str | None) -> str:
    """A claim as `facts.put` writes it (tests/engine/api/test_facts.py shows one)."""
    subject_id, title = subject
    entities = [subject_id, *([obj] if obj else [])]
    fact = [f"  predicate: {predicate}", f"  value: {value}"]
    fact += [f"  object: {obj}"] if obj else []
    fact += ["  origin: extension:seed", "  source: extracted", f"  source_ref: seed/{n}"]
    kind = "preference" if predicate.startswith("pref.") else "fact"
    return (
        "\n".join(
            [
                "---",
                "format: knowledge-record-v1",
                f"id: cl_F{n:09d}",
                "revision: 1",
                "kind: claim",
                f'title: "{title}: {predicate} = {value}"',
                f"scope: {SCOPE}",
                "lifecycle: active",
                f"recorded_at: {STAMP}",
                f"updated_at: {STAMP}",
                f"claim_kind: {kind}",
                "assertion_origin: agent_inference",
                "attribution: extension seed",
                "evidence:",
                f"  - url: extension:seed/seed/{n}",
                "    attribution: extension seed",
                "entities:",
                *(f"  - {e}" for e in entities),
                "fact:",
                *fact,
                "---",
                f"{title} · {predicate}: {value}",
            ]
        )
        + "\n"
    )


def generate(root: Path, n_facts: int, n_subjects: int, seed: int, n_notes: int = 0) -> None:
    """Write the vault: pages, then the claims, 1,000 to a folder, then `n_notes` note pages
    (a catalog with as many pages as a generated 100k vault's, for the page queries)."""
    rng = random.Random(seed)
    people = root / SCOPE / "people"
    people.mkdir(parents=True)
    (people / "me.md").write_text(_page("pg_me", "Grace", ["knowledge:self"]), encoding="utf-8")
    subjects = [("pg_me", "Grace")]
    for i in range(n_subjects):
        subjects.append((f"pg_P{i:06d}", f"Person {i}"))
        text = _page(f"pg_P{i:06d}", f"Person {i}", [f"email:person{i}@example.org"])
        (people / f"person-{i:06d}.md").write_text(text, encoding="utf-8")
    for n in range(n_facts):
        subject = subjects[n % len(subjects)]
        predicate = PREDICATES[(n // len(subjects)) % len(PREDICATES)]
        value = f"{rng.choice(WORDS)} {n}"
        obj = None
        if n % 10 == 3 and n_subjects > 1:
            obj = subjects[1 + rng.randrange(n_subjects)][0]
        folder = root / SCOPE / "claims" / f"c{n // 1000:04d}"
        if n % 1000 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        (folder / f"fact-{n:09d}.md").write_text(_claim(n, subject, predicate, value, obj), encoding="utf-8")
    for n in range(n_notes):
        folder = root / SCOPE / "notes" / f"n{n // 1000:04d}"
        if n % 1000 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        text = _page(f"pg_N{n:07d}", f"Note {n}", [], page_type="note")
        (folder / f"note-{n:07d}.md").write_text(text, encoding="utf-8")
    marker = {"facts": n_facts, "subjects": n_subjects, "notes": n_notes}
    (root / ".bench-facts.json").write_text(json.dumps(marker))


def reader_session(vault: Vault) -> Session:
    """The extension `bench-read`, installed once, granted `READ` on people and on self."""
    extensions = Extensions(vault.store, vault.root)
    if "bench-read" not in {e.name for e in extensions.list()}:
        permissions = [f"facts.read:{s}:{p}" for s in ("person", "self") for p in READ]
        knowledge = {"permissions": permissions}
        manifest = {"name": "bench-read", "description": "Reads facts", "knowledge": knowledge}
        extensions.install(validate_manifest(manifest), SCOPE)
        for permission in permissions:
            extensions.grant("bench-read", permission)
    return open_session(vault, "bench-read")


def busy_loop() -> float:
    """Milliseconds of a fixed piece of pure-Python work (about a millisecond when idle)."""
    started = time.perf_counter()
    total = 0
    for i in range(25_000):
        total += i
    return (time.perf_counter() - started) * 1000


def time_lookups(vault: Vault, n_subjects: int, count: int, seed: int) -> dict[str, Any]:
    session = reader_session(vault)
    people = [f"pg_P{i:06d}" for i in range(n_subjects)]
    refs = dict(zip(people, session.refs.issue("entity", people), strict=True))
    rng = random.Random(seed)
    started = time.perf_counter()
    facts.lookup(session, refs[people[0]])
    out: dict[str, Any] = {"firstMs": round((time.perf_counter() - started) * 1000, 1)}
    loops: list[float] = []
    kinds = {"person": None, "personPrefix": "pref.food", "self": None, "selfPrefix": "pref.food"}
    for label, prefix in kinds.items():
        times, found = [], []
        for _ in range(count):
            subject = "self" if label.startswith("self") else refs[rng.choice(people)]
            started = time.perf_counter()
            result = facts.lookup(session, subject, prefix)
            times.append((time.perf_counter() - started) * 1000)
            found.append(len(result))
            if label == "person":
                loops.append(busy_loop())
        out[label] = {**summary(times), "meanFound": round(statistics.fmean(found), 1)}
    out["cpuLoopMs"] = summary(loops)
    return out


class Steps:
    """Time spent in each step of the publish path, summed over writes (`publish.STEP`), and
    before and after `Vault.write` (`around`)."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = {}
        self.last = 0.0

    def start(self) -> None:
        self.last = time.perf_counter()

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        label = name.split(":", maxsplit=1)[0]
        self.totals[label] = self.totals.get(label, 0.0) + (now - self.last)
        self.last = now

    def around(self, write: Write) -> Write:
        """`write`, marking the API's work before it and the checkpoint after the last step."""

        def timed(request: Request, planner: Planner) -> dict[str, Any]:
            self("api")
            receipt = write(request, planner)
            self("checkpoint")
            return receipt

        return timed

    def mean_ms(self, writes: int) -> dict[str, float]:
        return {k: round(v * 1000 / writes, 2) for k, v in self.totals.items()}


def time_puts(vault: Vault, count: int) -> dict[str, Any]:
    extensions = Extensions(vault.store, vault.root)
    taken = {e.name for e in extensions.list()}
    name = next(f"bench-put-{i}" for i in range(1, 10_000) if f"bench-put-{i}" not in taken)
    permissions = ["facts.read:self:pref.food.*", "facts.write:self:pref.food.*", "changes.manage"]
    manifest = {"name": name, "description": "Writes facts", "knowledge": {"permissions": permissions}}
    extensions.install(validate_manifest(manifest), SCOPE)
    for permission in permissions:
        extensions.grant(name, permission)
    session = open_session(vault, name)
    steps = Steps()
    publish.STEP = steps
    session.write = steps.around(session.write)
    facts.lookup(session, "self", "pref.food")  # the session's first call loads the ontologies
    times = []
    (commits_before,) = (
        vault.store.reader().execute("SELECT COUNT(DISTINCT commit_id) FROM git_outbox").fetchone()
    )
    started = time.perf_counter()
    for n in range(count):
        t = time.perf_counter()
        steps.start()
        result = facts.put(session, predicate_hint="pref.food.like", value=f"{name} dish {n}")
        steps("after")
        times.append((time.perf_counter() - t) * 1000)
        assert result.status == "applied", result
    put_s = time.perf_counter() - started
    put_steps = steps.mean_ms(count)
    steps.totals.clear()
    started = time.perf_counter()
    steps.start()
    undone = revert(Changer.of(session), run_id=session.run_id)
    revert_s = time.perf_counter() - started
    publish.STEP = None
    started = time.perf_counter()
    vault.publisher.flush_waiting()  # the run's last batch, as closing the vault commits it
    flush_s = time.perf_counter() - started
    (commits,) = (
        vault.store.reader()
        .execute("SELECT COUNT(DISTINCT commit_id) - ? FROM git_outbox", (commits_before,))
        .fetchone()
    )
    assert undone.reverted == count, undone.as_json()
    return {
        "puts": count,
        "putTotalS": round(put_s, 2),
        "putMs": summary(times),
        "putSteps": put_steps,
        "revertTotalS": round(revert_s, 2),
        "revertSteps": steps.mean_ms(count),
        "reverted": undone.reverted,
        "flushS": round(flush_s, 2),
        "commits": commits,
        "totalS": round(put_s + revert_s + flush_s, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--subjects", type=int, default=2000)
    parser.add_argument("--notes", type=int, default=0, help="note pages besides the people")
    parser.add_argument("--lookups", type=int, default=2000, help="of each kind; 0: none")
    parser.add_argument("--puts", type=int, default=0)
    parser.add_argument("--vault", type=Path)
    parser.add_argument("--fresh", action="store_true", help="write the vault again")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    name = f"facts-{args.facts}-{args.subjects}" + (f"-{args.notes}" if args.notes else "")
    root = args.vault or Path("bench/vaults") / name
    out: dict[str, Any] = {"vault": str(root), "facts": args.facts, "subjects": args.subjects}
    out["notes"] = args.notes
    if args.fresh and root.exists():
        shutil.rmtree(root)
    if not (root / ".bench-facts.json").exists():
        started = time.perf_counter()
        generate(root, args.facts, args.subjects, args.seed, args.notes)
        out["generateSeconds"] = round(time.perf_counter() - started, 1)
    cold = not (root / ".knowledge").exists()
    started = time.perf_counter()
    vault = Vault.open(root)
    change = vault.reconcile()
    out["scanSeconds" if cold else "reopenSeconds"] = round(time.perf_counter() - started, 2)
    out["readOnOpen"] = change.read
    try:
        rows = vault.store.reader().execute("SELECT count(*) FROM facts_v1 WHERE scope=?", (SCOPE,))
        out["factRows"] = rows.fetchone()[0]
        if args.lookups:
            out["lookupMs"] = time_lookups(vault, args.subjects, args.lookups, args.seed)
        if args.puts:
            out["putRun"] = time_puts(vault, args.puts)
    finally:
        vault.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
