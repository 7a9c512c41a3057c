"""Query benchmark: grep, lookup, timeline and the freshness check on a warm index.

    python bench/query.py --sizes 10000 100000 [--seed 1] [--repeat N] [--json]

For each size it reuses the vault cached under `bench/vaults/<n>-<seed>/` (or
generates it with `bench/generate_vault.py`), reads its state database once
so the OS has it cached (the targets are for a warm index), opens it, runs `reconcile()`
once so the index is warm (reporting how long that took and what it parsed:
after an engine change the projections are rebuilt, which is a full cold
index), and then times in this process, with `time.perf_counter` around each
engine call:

* grep: 1-, 2- and 3-word queries of common and of rare words, in every mode
  (all/any/phrase), unfiltered and filtered (kind, type, tag, a one-month
  occurred_at range, and two combinations) — 216 queries per size;
* lookup: exact titles, aliases and ids of current records (200) plus names
  and ids that do not exist (20);
* timeline: one month of occurred_at (12 months spread over the generated
  range), and the timeline of an entity (20 people, projects and companies);
* the freshness check: `reconcile()` on the unchanged vault, 5 times.

The query set is deterministic for a given (size, seed). Words come from the
vault itself: a sample of 500 bodies is tokenised like the index does, and
"common" words are the most frequent content words by document frequency,
"rare" words those in at most 1% of the sampled bodies. Multi-word queries
take their words from one sampled body, so most of them have hits; phrase
queries are runs of adjacent words from a body. Names for lookup come from
the generator's plan (`Generator.plan()`, which the files were rendered
from), so every sampled name is known to exist.

`--read-only` opens the state database read-only (SQLite `mode=ro`) and times the
query functions on it directly: no reconcile, no text indexing, nothing written, so
a large state built by other code can be measured as it is (its schema must be one
this code reads). Types are not expanded through the ontology, lookup and the
freshness check are left out.

`--json` writes JSON to stdout (the table then goes to stderr). Progress goes
to stderr. Keep the work under `main()`: a reconcile of many changed files
uses a forkserver process pool, whose workers import this module.
"""

from __future__ import annotations

import argparse
import calendar
import collections
import json
import random
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import generate_vault  # noqa: E402
from scan import ensure_vault, machine  # noqa: E402

DEFAULT_VAULTS = BENCH / "vaults"

# Targets (set for the 100k vault): (metric, limit).
TARGETS = {
    "grep_p50_ms": 30.0,
    "grep_p95_ms": 100.0,
    "lookup_p50_ms": 5.0,
    "timeline_month_p50_ms": 30.0,
    "freshness_s": 1.5,
}

BODY_SAMPLE = 500
COMMON_WORDS = 40
RARE_SHARE = 0.01
QUERIES_PER_CELL = 12  # per (common/rare, 1-3 words, mode): 6 unfiltered + 6 filtered
LOOKUP_SAMPLE = 200
LOOKUP_MISSING = 20
MONTHS = 12
ENTITIES = 20
FRESHNESS_RUNS = 5

STOPWORDS = frozenset(
    {
        "the",
        "a",
        "an",
        "and",
        "or",
        "but",
        "in",
        "on",
        "at",
        "to",
        "for",
        "of",
        "by",
        "be",
        "is",
        "are",
        "was",
        "were",
        "it",
        "its",
        "as",
        "not",
        "than",
        "we",
        "our",
        "us",
        "they",
        "them",
        "this",
        "that",
        "with",
        "from",
        "up",
        "out",
        "if",
        "so",
        "should",
        "still",
        "whether",
        "need",
        "after",
        "before",
        "during",
        "about",
        "into",
        "over",
    }
)
FILTERS = ("kind", "type", "tag", "month", "type+month", "kind+tag")
KINDS = ("claim", "page", "relationship")
TYPES = ("decision", "person", "meeting", "commitment", "project", "fact")
TAG_CHOICES = ("customer", "priority", "engineering", "q3", "risk", "finance")


# -- statistics ---------------------------------------------------------------------
def pct(values: list[float], p: float) -> float | None:
    """Percentile with linear interpolation between closest ranks."""
    if not values:
        return None
    s = sorted(values)
    if len(s) == 1:
        return s[0]
    k = (len(s) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summary(values: list[float]) -> dict[str, Any]:
    return {
        "n": len(values),
        "p50": pct(values, 50),
        "p95": pct(values, 95),
        "max": max(values) if values else None,
        "mean": statistics.fmean(values) if values else None,
    }


def timed(fn: Any, *args: Any, **kwargs: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return (time.perf_counter() - t0) * 1000, out


# -- building the query set ------------------------------------------------------------
def months_in_range(gen: generate_vault.Generator, count: int) -> list[tuple[str, str]]:
    """`count` calendar months spread evenly over the generated date range."""
    first = datetime.fromtimestamp(gen.epoch, UTC)
    last = datetime.fromtimestamp(gen.epoch + gen.span - 1, UTC)
    all_months = []
    y, m = first.year, first.month
    while (y, m) <= (last.year, last.month):
        all_months.append((y, m))
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    inner = all_months[1:-1] or all_months  # skip the partial first and last months
    step = len(inner) / count
    picked = [inner[int(i * step)] for i in range(min(count, len(inner)))]
    return [(f"{y:04d}-{m:02d}-01", f"{y:04d}-{m:02d}-{calendar.monthrange(y, m)[1]:02d}") for y, m in picked]


def body_of(path: Path) -> str | None:
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("---\n"):
        return None
    _, sep, body = text[4:].partition("\n---\n")
    return body if sep else None


def corpus(folder: Path, recs: list[generate_vault.Rec], rng: random.Random) -> dict[str, Any]:
    """Token streams of sampled bodies and the common/rare word classes."""
    from knowledge_desktop.engine.query import text as textmod

    docs: list[list[str]] = []
    df: collections.Counter[str] = collections.Counter()
    for rec in rng.sample(recs, min(BODY_SAMPLE, len(recs))):
        body = body_of(folder / generate_vault.SCOPE / rec.path)
        if body is None:
            continue
        toks = textmod.tokens(body)
        docs.append(toks)
        df.update(set(toks))

    def content(word: str) -> bool:
        return len(word) >= 3 and not word.isdigit() and word not in STOPWORDS

    ranked = [w for w, _ in sorted(df.items(), key=lambda kv: (-kv[1], kv[0])) if content(w)]
    common = ranked[:COMMON_WORDS]
    rare_max = max(1, int(len(docs) * RARE_SHARE))
    rare = sorted(w for w, c in df.items() if c <= rare_max and content(w) and w.isalpha())
    return {
        "docs": docs,
        "df": df,
        "common": common,
        "rare": rare,
        "rareMaxDf": rare_max,
    }


def _words_from(doc: list[str], wanted: set[str], n: int, rng: random.Random) -> list[str] | None:
    pool = sorted({t for t in doc if t in wanted})
    if len(pool) < n:
        return None
    return rng.sample(pool, n)


def _phrase_from(
    doc: list[str], cls: str, words: dict[str, set[str]], n: int, rng: random.Random
) -> list[str] | None:
    starts = list(range(len(doc) - n + 1))
    rng.shuffle(starts)
    for i in starts:
        gram = doc[i : i + n]
        if cls == "common" and all(t in words["common"] for t in gram):
            return gram
        if cls == "rare" and any(t in words["rare"] for t in gram) and all(not t.isdigit() for t in gram):
            return gram
    return None


def grep_queries(
    c: dict[str, Any], months: list[tuple[str, str]], rng: random.Random
) -> list[dict[str, Any]]:
    words = {"common": set(c["common"]), "rare": set(c["rare"])}
    docs: list[list[str]] = c["docs"]
    out: list[dict[str, Any]] = []
    cursor = 0
    used: collections.Counter[str] = collections.Counter()
    for cls in ("common", "rare"):
        for n in (1, 2, 3):
            for mode in ("all", "any", "phrase"):
                for k in range(QUERIES_PER_CELL):
                    terms = None
                    for _ in range(len(docs)):
                        doc = docs[cursor % len(docs)]
                        cursor += 1
                        if mode == "phrase":
                            terms = _phrase_from(doc, cls, words, n, rng)
                        else:
                            terms = _words_from(doc, words[cls], n, rng)
                        if terms:
                            break
                    if not terms:  # no body had enough such words: fall back to the class list
                        terms = rng.sample(sorted(words[cls]), n)
                    filt = None if k < QUERIES_PER_CELL // 2 else FILTERS[k % len(FILTERS)]
                    opts: dict[str, Any] = {}
                    if filt:  # each filter value cycles on its own counter
                        if "kind" in filt:
                            opts["kind"] = KINDS[used["kind"] % len(KINDS)]
                            used["kind"] += 1
                        if "type" in filt:
                            opts["types"] = [TYPES[used["type"] % len(TYPES)]]
                            used["type"] += 1
                        if "tag" in filt:
                            opts["tag"] = TAG_CHOICES[used["tag"] % len(TAG_CHOICES)]
                            used["tag"] += 1
                        if "month" in filt:
                            since, until = months[used["month"] % len(months)]
                            opts.update(time_field="occurred_at", since=since, until=until)
                            used["month"] += 1
                    out.append(
                        {
                            "class": cls,
                            "words": n,
                            "mode": mode,
                            "filter": filt or "none",
                            "query": " ".join(terms),
                            "options": opts,
                        }
                    )
    return out


def lookup_names(gen: generate_vault.Generator, rng: random.Random) -> list[dict[str, str]]:
    live = [r for r in (*gen.pages, *gen.claims, *gen.rels) if r.lifecycle == "active" and r.broken is None]
    with_alias = [r for r in gen.pages if r.lifecycle == "active" and r.aliases]
    third = LOOKUP_SAMPLE // 3
    names = [{"what": "title", "query": r.title, "id": r.id} for r in rng.sample(live, min(third, len(live)))]
    names += [
        {"what": "alias", "query": rng.choice(r.aliases), "id": r.id}
        for r in rng.sample(with_alias, min(third, len(with_alias)))
    ]
    names += [
        {"what": "id", "query": r.id, "id": r.id}
        for r in rng.sample(live, min(LOOKUP_SAMPLE - len(names), len(live)))
    ]
    missing = list(gen.missing_titles)[: LOOKUP_MISSING // 2]
    missing += [
        f"{p}_{rng.randrange(10**7, 10**8)}" for p in ("pg", "cl", "rl") for _ in range(LOOKUP_MISSING)
    ]
    names += [{"what": "missing", "query": q, "id": ""} for q in missing[:LOOKUP_MISSING]]
    return names


def entity_ids(gen: generate_vault.Generator, rng: random.Random) -> list[str]:
    pool = [
        r for t in ("person", "project", "company") for r in gen.by_type.get(t, []) if r.lifecycle == "active"
    ]
    return [r.id for r in rng.sample(pool, min(ENTITIES, len(pool)))]


# -- running --------------------------------------------------------------------------
def change_dict(change: Any) -> dict[str, Any]:
    return {
        "statChecked": change.stat_checked,
        "read": change.read,
        "parsed": change.parsed,
        "added": len(change.added),
        "changed": len(change.changed),
        "removed": len(change.removed),
        "elapsedMs": change.elapsed_ms,
    }


class ReadOnly:
    """A vault's state opened read-only, with the grep and timeline a `Vault` would answer
    from it (`--read-only`): nothing is reconciled, indexed or written."""

    def __init__(self, folder: Path) -> None:
        import sqlite3

        from knowledge_desktop.engine.store import packed

        state = (folder / ".knowledge" / "state.sqlite").resolve()
        self.conn = sqlite3.connect(
            f"file:{state}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
        )
        packed.register(self.conn)
        self.conn.execute("PRAGMA query_only=ON")
        self.scopes = [s for (s,) in self.conn.execute("SELECT scope FROM keyword_state_v1 ORDER BY scope")]

    def grep(self, q: Any) -> dict[str, Any]:
        from knowledge_desktop.engine.query import grep as grep_module

        return grep_module.grep(self.conn, q, self.scopes, lambda s: grep_module.scope_state(self.conn, s))

    def timeline(self, **options: Any) -> dict[str, Any]:
        from knowledge_desktop.engine.query import timeline as timeline_module

        return timeline_module.timeline(self.conn, **options)

    def close(self) -> None:
        self.conn.close()


def bench_size(
    n: int, seed: int, vaults: Path, repeat: int, log: Any, read_only: bool = False
) -> dict[str, Any]:
    from knowledge_desktop.engine.query.grep_query import GrepQuery
    from knowledge_desktop.engine.store.schema import PROJECTION_VERSION
    from knowledge_desktop.engine.vault import Vault

    folder = vaults / f"{n}-{seed}"
    log(f"[{n}] vault {folder}")
    marker = generate_vault.read_marker(folder)
    made = (marker or {}).get("generator") == generate_vault.GENERATOR_VERSION
    if read_only and not (made and marker and (marker["records"], marker["seed"]) == (n, seed)):
        # never generate (which would first delete the folder) a vault asked for read-only
        raise SystemExit(f"query: {folder} is not a generated vault of {n} records, seed {seed}")
    gen_info = ensure_vault(folder, n, seed, regenerate=False)
    if gen_info["generated"]:
        log(f"[{n}] generated in {gen_info['seconds']:.1f} s")

    t0 = time.perf_counter()
    gen = generate_vault.Generator(n, seed)
    gen.plan()
    plan_s = time.perf_counter() - t0
    log(f"[{n}] generator plan (names, dates) in {plan_s:.1f} s")

    # The targets are for a warm index: read the state database once so its pages
    # are in the OS cache (after a larger vault was benchmarked, or hours idle, the
    # kernel may have evicted them and the first queries would time the disk).
    warm_cache_s = read_through(folder / ".knowledge")
    log(f"[{n}] state database read into the OS cache in {warm_cache_s:.1f} s")

    t0 = time.perf_counter()
    vault: Any = ReadOnly(folder) if read_only else Vault.open(folder)
    open_s = time.perf_counter() - t0
    rebuilt = bool(getattr(getattr(vault, "store", None), "rebuilt", False))
    change: Any = None
    warm_s = 0.0
    if not read_only:
        log(f"[{n}] warm-up reconcile{' (projections rebuilt: full index)' if rebuilt else ''} …")
        t0 = time.perf_counter()
        change = vault.reconcile()
        vault.index_keywords()  # text is indexed lazily, by the first search: do it up front
        warm_s = time.perf_counter() - t0
        log(f"[{n}] warm-up reconcile + text index {warm_s:.1f} s, parsed {change.parsed}")

    try:
        rng = random.Random(f"query-bench:{n}:{seed}")
        live = [r for r in (*gen.pages, *gen.claims, *gen.rels) if r.broken is None]
        c = corpus(folder, live, rng)
        months = months_in_range(gen, MONTHS)
        queries = grep_queries(c, months, rng)
        names = lookup_names(gen, rng)
        entities = entity_ids(gen, rng)

        # A few untimed calls so the first measured one does not pay for
        # statement preparation and the first page reads.
        for text in ("team review", "pilot customer"):
            vault.grep(GrepQuery(text))
        if not read_only:
            vault.lookup(names[0]["query"])
        vault.timeline(time_field="occurred_at", since=months[0][0], until=months[0][1])

        log(f"[{n}] grep: {len(queries)} queries × {repeat} …")
        grep_rows: list[dict[str, Any]] = []
        cpu = time.process_time()  # this process's CPU: on a shared machine, wall times wander
        for q in queries:
            opts = dict(q["options"])
            if "types" in opts:
                opts["types"] = frozenset(opts["types"])
            gq = GrepQuery(q["query"], mode=q["mode"], **opts)
            times = []
            for _ in range(repeat):
                ms, res = timed(vault.grep, gq)
                times.append(ms)
            grep_rows.append(
                {
                    **q,
                    "ms": times,
                    "total": res.get("total"),
                    "hits": len(res.get("hits") or []),
                    "indexState": (res.get("index") or {}).get("state"),
                }
            )
        grep_cpu_s = time.process_time() - cpu

        if not read_only:  # (read-only runs no lookup)
            read_through(folder / ".knowledge")  # see `read_through`
        log(f"[{n}] lookup: {len(names)} names × {repeat} …")
        lookup_rows: list[dict[str, Any]] = []
        for item in [] if read_only else names:
            times = []
            for _ in range(repeat):
                ms, res = timed(vault.lookup, item["query"])
                times.append(ms)
            want = "missing" if item["what"] == "missing" else "found"
            got = res["status"]
            right = got == want and (want == "missing" or res["record"]["id"] == item["id"])
            lookup_rows.append({**item, "ms": times, "status": got, "expected": want, "ok": right})

        read_through(folder / ".knowledge")  # see `read_through`
        log(f"[{n}] timeline: {len(months)} months + {len(entities)} entities × {repeat} …")
        month_rows: list[dict[str, Any]] = []
        cpu = time.process_time()
        for since, until in months:
            times = []
            for _ in range(repeat):
                ms, res = timed(vault.timeline, time_field="occurred_at", since=since, until=until)
                times.append(ms)
            month_rows.append(
                {
                    "since": since,
                    "until": until,
                    "ms": times,
                    "total": res["total"],
                    "items": len(res["items"]),
                }
            )
        month_cpu_s = time.process_time() - cpu
        entity_rows: list[dict[str, Any]] = []
        for eid in entities:
            times = []
            for _ in range(repeat):
                ms, res = timed(vault.timeline, entity=eid)
                times.append(ms)
            entity_rows.append(
                {"entity": eid, "ms": times, "total": res["total"], "items": len(res["items"])}
            )

        if not read_only:  # (nor the freshness check)
            read_through(folder / ".knowledge")  # see `read_through`
        log(f"[{n}] freshness check: reconcile() × {FRESHNESS_RUNS} …")
        fresh: list[dict[str, Any]] = []
        for _ in range(0 if read_only else FRESHNESS_RUNS):
            t0 = time.perf_counter()
            ch = vault.reconcile()
            fresh.append({"s": time.perf_counter() - t0, **change_dict(ch)})
    finally:
        vault.close()

    def flat(rows: list[dict[str, Any]], pred: Any = None) -> list[float]:
        return [ms for r in rows if pred is None or pred(r) for ms in r["ms"]]

    grep_groups: dict[str, dict[str, Any]] = {"all": summary(flat(grep_rows))}
    for cls in ("common", "rare"):
        grep_groups[cls] = summary(flat(grep_rows, lambda r, v=cls: r["class"] == v))
    for mode in ("all", "any", "phrase"):
        grep_groups[f"mode={mode}"] = summary(flat(grep_rows, lambda r, v=mode: r["mode"] == v))
    grep_groups["unfiltered"] = summary(flat(grep_rows, lambda r: r["filter"] == "none"))
    grep_groups["filtered"] = summary(flat(grep_rows, lambda r: r["filter"] != "none"))
    for filt in FILTERS:
        grep_groups[f"filter={filt}"] = summary(flat(grep_rows, lambda r, v=filt: r["filter"] == v))
    for words in (1, 2, 3):
        grep_groups[f"words={words}"] = summary(flat(grep_rows, lambda r, v=words: r["words"] == v))
    for cls in ("common", "rare"):
        for mode in ("all", "any", "phrase"):
            grep_groups[f"{cls}/{mode}"] = summary(
                flat(grep_rows, lambda r, a=cls, b=mode: r["class"] == a and r["mode"] == b)
            )

    lookup_groups = {"all": summary(flat(lookup_rows))}
    for what in ("title", "alias", "id", "missing"):
        lookup_groups[what] = summary(flat(lookup_rows, lambda r, v=what: r["what"] == v))

    fresh_s = [f["s"] for f in fresh]
    slowest = sorted(grep_rows, key=lambda r: -max(r["ms"]))[:8]
    return {
        "records": n,
        "seed": seed,
        "vault": str(folder),
        "generated": gen_info["generated"],
        "planS": plan_s,
        "readOnly": read_only,
        "projectionVersion": PROJECTION_VERSION,
        "warmup": {
            "openS": open_s,
            "reconcileS": warm_s,
            "projectionsRebuilt": rebuilt,
            "change": change_dict(change) if change is not None else None,
        },
        "corpus": {
            "sampledBodies": len(c["docs"]),
            "common": c["common"],
            "rareWords": len(c["rare"]),
            "rareMaxDf": c["rareMaxDf"],
            "rareExamples": c["rare"][:: max(1, len(c["rare"]) // 20)][:20],
        },
        "repeat": repeat,
        "grep": {
            "queries": len(grep_rows),
            "cpuS": grep_cpu_s,
            "zeroHit": sum(1 for r in grep_rows if not r["total"]),
            "unavailable": sum(1 for r in grep_rows if r["indexState"] != "ready"),
            "ms": grep_groups,
            "slowest": [
                {k: r[k] for k in ("class", "words", "mode", "filter", "query", "options", "total")}
                | {"maxMs": max(r["ms"])}
                for r in slowest
            ],
            "rows": grep_rows,
        },
        "lookup": {
            "names": len(lookup_rows),
            "wrong": [
                {k: r[k] for k in ("what", "query", "id", "status", "expected")}
                for r in lookup_rows
                if not r["ok"]
            ],
            "ms": lookup_groups,
        },
        "timeline": {
            "month": {"ms": summary(flat(month_rows)), "cpuS": month_cpu_s, "rows": month_rows},
            "entity": {"ms": summary(flat(entity_rows)), "rows": entity_rows},
        },
        "freshness": {
            "runs": fresh,
            "p50S": pct(fresh_s, 50),
            "maxS": max(fresh_s, default=None),
            "parsedAllZero": all(f["parsed"] == 0 for f in fresh),
        },
    }


# -- reporting -------------------------------------------------------------------------
def verdicts(r: dict[str, Any]) -> dict[str, dict[str, Any]]:
    g, lk, tl, fr = r["grep"]["ms"]["all"], r["lookup"]["ms"]["all"], r["timeline"], r["freshness"]
    checks = {
        "grep_p50_ms": g["p50"],
        "grep_p95_ms": g["p95"],
        "lookup_p50_ms": lk["p50"],
        "timeline_month_p50_ms": tl["month"]["ms"]["p50"],
        "freshness_s": fr["p50S"],
    }
    return {
        k: {"value": v, "limit": TARGETS[k], "met": v is not None and v <= TARGETS[k]}
        for k, v in checks.items()
    }


def _f(v: float | None, digits: int = 1) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def table(results: list[dict[str, Any]], info: dict[str, Any]) -> str:
    lines = [
        f"machine: {info['nproc']} CPUs ({info['cpuModel']}), {info['memGiB']} GiB, "
        f"Python {info['python']}, SQLite {info['sqlite']}, {info['platform']}",
        "targets are set for 100k records; 'ok'/'MISS' is shown for every size",
    ]
    for r in results:
        w, ch = r["warmup"], r["warmup"]["change"]
        v = verdicts(r)

        def mark(key: str, v: dict[str, dict[str, Any]] = v) -> str:
            t = v[key]
            unit = " s" if key.endswith("_s") else " ms"
            return f"≤{t['limit']:g}{unit} {'ok' if t['met'] else 'MISS'}"

        lines += [
            "",
            f"== {r['records']:,} records (seed {r['seed']}, {r['vault']}) ==",
            "read-only: state opened with mode=ro, nothing reconciled or indexed"
            if ch is None
            else f"warm-up reconcile: {w['reconcileS']:.2f} s, parsed {ch['parsed']}, read {ch['read']},"
            f" stat-checked {ch['statChecked']}"
            + (
                " — projections rebuilt (engine changed): this was a full cold index"
                if w["projectionsRebuilt"]
                else ""
            ),
            f"corpus: {r['corpus']['sampledBodies']} bodies sampled; common = top "
            f"{len(r['corpus']['common'])} words by df; rare = {r['corpus']['rareWords']} words in"
            f" ≤{r['corpus']['rareMaxDf']} sampled bodies. grep: {r['grep']['queries']} queries"
            f" × {r['repeat']}, {r['grep']['zeroHit']} with no hit; CPU {r['grep']['cpuS']:.2f} s for every"
            f" grep, {r['timeline']['month']['cpuS']:.3f} s for every month's timeline",
        ]
        rows = [["", "n", "p50 ms", "p95 ms", "max ms", "target"]]
        gm = r["grep"]["ms"]
        for key, label in [("all", "grep (every query)")] + [(k, f"  grep {k}") for k in gm if k != "all"]:
            s = gm[key]
            target = ""
            if key == "all":
                target = f"p50 {mark('grep_p50_ms')}, p95 {mark('grep_p95_ms')}"
            rows.append([label, str(s["n"]), _f(s["p50"]), _f(s["p95"]), _f(s["max"]), target])
        lm = r["lookup"]["ms"]
        for key in lm:
            s = lm[key]
            rows.append(
                [
                    "lookup (every name)" if key == "all" else f"  lookup {key}",
                    str(s["n"]),
                    _f(s["p50"], 2),
                    _f(s["p95"], 2),
                    _f(s["max"], 2),
                    f"p50 {mark('lookup_p50_ms')}" if key == "all" else "",
                ]
            )
        s = r["timeline"]["month"]["ms"]
        rows.append(
            [
                "timeline one month",
                str(s["n"]),
                _f(s["p50"]),
                _f(s["p95"]),
                _f(s["max"]),
                f"p50 {mark('timeline_month_p50_ms')}",
            ]
        )
        s = r["timeline"]["entity"]["ms"]
        rows.append(["timeline of an entity", str(s["n"]), _f(s["p50"]), _f(s["p95"]), _f(s["max"]), ""])
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for i, row in enumerate(rows):
            cells = [row[0].ljust(widths[0])] + [row[j].rjust(widths[j]) for j in range(1, 5)] + [row[5]]
            lines.append("  ".join(cells).rstrip())
            if i == 0:
                lines.append("  ".join("-" * wd for wd in widths))
        fr = r["freshness"]
        lines.append(
            "freshness check: not run (read-only)"
            if not fr["runs"]
            else f"freshness check (reconcile() on the unchanged vault, {len(fr['runs'])} runs):"
            f" p50 {fr['p50S']:.3f} s, max {fr['maxS']:.3f} s, target {mark('freshness_s')}"
            f" (p50); parsed {'0 every run' if fr['parsedAllZero'] else [f['parsed'] for f in fr['runs']]}"
        )
        if r["lookup"]["wrong"]:
            lines.append(
                f"lookup: {len(r['lookup']['wrong'])} names gave an unexpected status, e.g. "
                + json.dumps(r["lookup"]["wrong"][:3], ensure_ascii=False)
            )
        if r["grep"]["unavailable"]:
            lines.append(f"grep: {r['grep']['unavailable']} queries reported the index unavailable")
        lines.append("slowest grep queries (max ms):")
        for q in r["grep"]["slowest"][:5]:
            lines.append(
                f"  {q['maxMs']:8.1f}  {q['class']}/{q['mode']}/{q['filter']}"
                f" {q['query']!r} {json.dumps(q['options'])} total={q['total']}"
            )
    return "\n".join(lines)


READ_THROUGH = [True]
"""Off with `--no-read-through`: a state larger than the memory (a million records: 22 GB
on a 23 GB machine) cannot be held warm, and reading it all only churns the cache."""


def read_through(folder: Path) -> float:
    """Read the state database once, in 1 MiB chunks; seconds taken.

    Run before each timed section: the targets are for a warm index, and the
    VMs this runs on page out memory left untouched for a few seconds (DAMON
    `pageout`), page cache included — so tables one section did not touch
    (the timeline's, after 216 searches) would otherwise be read from disk.
    """
    if not READ_THROUGH[0]:
        return 0.0
    t0 = time.perf_counter()
    for path in sorted(folder.glob("state.sqlite*")):
        with path.open("rb") as handle:
            while handle.read(1 << 20):
                pass
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1, help="timed runs of every query")
    parser.add_argument(
        "--vaults", type=Path, default=DEFAULT_VAULTS, help="folder of cached vaults (default bench/vaults/)"
    )
    parser.add_argument(
        "--read-only", action="store_true", help="time grep and timeline on the state opened read-only"
    )
    parser.add_argument(
        "--no-read-through", action="store_true", help="do not read the state through before each section"
    )
    parser.add_argument("--json", action="store_true", help="JSON on stdout, table on stderr")
    args = parser.parse_args(argv)
    if any(n < 100 for n in args.sizes):
        parser.error("sizes must be at least 100")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    READ_THROUGH[0] = not args.no_read_through
    info = machine()
    args.vaults.mkdir(parents=True, exist_ok=True)
    results = [bench_size(n, args.seed, args.vaults, args.repeat, log, args.read_only) for n in args.sizes]
    for r in results:
        r["targets"] = verdicts(r)
    text = table(results, info)
    if args.json:
        print(text, file=sys.stderr)
        print(
            json.dumps(
                {"machine": info, "targets": TARGETS, "results": results}, indent=2, ensure_ascii=False
            )
        )
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
