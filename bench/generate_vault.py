"""Deterministic generator of realistic Knowledge vaults, for benchmarks.

    python bench/generate_vault.py OUT_DIR --records N [--seed 1] [--force]
    python bench/generate_vault.py OUT_DIR --notes N [--seed 1] [--force]   # bench/notes_vault.py

Writes one partition, `private/` (scope `private`), of N knowledge-record-v1
files filed by the default ontology's directories:

* ~35% pages (person, company, project, meeting, note, source, concept,
  event), ~30% with aliases and ~50% with tags, a few merged pairs
  (`merged_into` / `merged_from`);
* ~45% claims (every claim kind, assertion origins, attribution text,
  non-empty evidence pointing at source pages or page paths, `entities`,
  `occurred_at` on ~60%, owner/due_at on commitments), ~2% superseded by a
  later claim (`superseded_by` / `supersedes` / `lifecycle_change`), ~1%
  withdrawn;
* ~20% relationships with ontology labels (`leads` person→project and
  `supports` company→project respected);
* ~0.5% deliberately broken files (bad YAML, missing required field, unclosed
  frontmatter).

Bodies are 0.5–8 KB of sentences from word lists, headings, bullet lists, an
occasional fenced code block, and 3–8 links per body in every form the spec
allows (`[[Title]]`, `[[Alias]]`, `[[dir/page|Label]]`, relative `.md` links),
~2% of them to titles that do not exist.

Output depends only on (N, seed): every timestamp is derived from the seed,
never from the clock. A hidden `.bench-vault.json` at the vault root (hidden
entries are never scanned) records what was generated, so callers can reuse a
vault they generated before.

Importable: `generate(out_dir, n, seed)` returns the same summary dict.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

GENERATOR_VERSION = 1
MARKER = ".bench-vault.json"
PROGRESS_EVERY = 50_000
SCOPE = "private"

PAGE_SHARE = 0.35
CLAIM_SHARE = 0.45
BROKEN_SHARE = 0.005
ALIAS_SHARE = 0.30
TAG_SHARE = 0.50
SUPERSEDED_SHARE = 0.02
WITHDRAWN_SHARE = 0.01
MERGED_SHARE = 0.003
MISSING_LINK_SHARE = 0.02
BODY_MIN, BODY_MAX = 500, 8000

PAGE_TYPES: list[tuple[str, str, float]] = [
    # type, directory, share of pages
    ("person", "people", 0.24),
    ("company", "companies", 0.11),
    ("project", "projects", 0.11),
    ("meeting", "meetings", 0.13),
    ("note", "notes", 0.15),
    ("source", "sources", 0.13),
    ("concept", "concepts", 0.08),
    ("event", "events", 0.05),
]
DIRECTORY = {t: d for t, d, _ in PAGE_TYPES}

CLAIM_KINDS = [
    ("fact", 34),
    ("preference", 12),
    ("decision", 16),
    ("commitment", 15),
    ("event", 13),
    ("belief", 10),
]
ORIGINS = [("source", 60), ("user_belief", 20), ("agent_inference", 20)]

ANY = ("person", "company", "project", "meeting", "note", "source", "concept", "event")
# label, from types, to types, weight (leads/supports follow the ontology's constraints)
LABELS: list[tuple[str, tuple[str, ...], tuple[str, ...], int]] = [
    ("leads", ("person",), ("project",), 10),
    ("supports", ("company",), ("project",), 7),
    ("works_at", ("person",), ("company",), 14),
    ("attended", ("person",), ("meeting", "event"), 12),
    ("authored", ("person",), ("source", "note"), 8),
    ("mentions", ("note", "meeting", "source"), ANY, 8),
    ("discusses", ("meeting", "note"), ("project", "concept"), 8),
    ("relates_to", ANY, ANY, 6),
    ("partner_of", ("company",), ("company",), 4),
    ("founded", ("person",), ("company",), 3),
    ("invested_in", ("company", "person"), ("company",), 3),
    ("advises", ("person",), ("company", "project"), 4),
    ("sourced_from", ("note", "concept"), ("source",), 4),
    ("derived_from", ("note",), ("note", "source"), 2),
    ("owes_to", ("person", "company"), ("person", "company"), 1),
    ("awaiting_reply_from", ("project", "person"), ("person",), 2),
    ("attributed_to", ("source", "note"), ("person",), 2),
    ("supersedes", ("note",), ("note",), 1),
    ("redirects_to", ("concept",), ("concept",), 1),
]
LABEL_WORDS = {name: name.replace("_", " ") for name, *_ in LABELS}

# --- word lists ----------------------------------------------------------------


def _words(text: str) -> list[str]:
    return text.split()


FIRST = _words(
    "Ada Grace Alan Barbara Claude Donald Edsger Frances Guido Hedy Ivan Joan Ken Linus "
    "Margaret Niklaus Ole Radia Sophie Tim Ursula Vint Wendy Xavier Yukihiro Zoe Amara "
    "Bjarne Chen Dmitri Elena Farah Gustav Hiro Ingrid Jamal Keiko Lars Maya Nadia Omar "
    "Priya Quentin Rosa Sanjay Tamsin Uma Viktor Wei Yara Aisha Bruno Carmen Diego Emil "
    "Fatima Giulia Hassan Isla Jonas Kofi Leila Mateo Noor"
)
FIRST_ACCENTED = ["José", "Zoë", "Søren", "Chloé", "Łukasz", "Inès", "Björn", "Renée"]
LAST = _words(
    "Lovelace Hopper Turing Liskov Shannon Knuth Dijkstra Allen Rossum Lamarr Sutherland "
    "Clarke Thompson Torvalds Hamilton Wirth Dahl Perlman Wilson Berners Franklin Cerf "
    "Hall Leroy Matsumoto Okafor Stroustrup Zhang Petrov Garcia Haddad Lindqvist Tanaka "
    "Berg Nakamura Eriksen Mensah Rahman Moreau Oyelaran Patel Quispe Romano Schmidt "
    "Tremblay Ueda Varga Whitfield Yilmaz Acheson Brennan Castillo Dubois Esposito "
    "Fischer Gallo Horvat Iversen Jovanovic Kowalski Larsen Moretti Novak"
)
LAST_ACCENTED = ["Núñez", "Müller", "Ødegaard", "Çelik", "Šimić", "Ångström"]
ROLES = [
    "Staff engineer",
    "Product manager",
    "Head of research",
    "Designer",
    "CTO",
    "CEO",
    "Data scientist",
    "Account executive",
    "Investor",
    "Advisor",
    "Support lead",
    "Engineering manager",
    "Security engineer",
    "Recruiter",
    "Analyst",
    "Founder",
    "Operations lead",
    "Technical writer",
]
CO_PREFIX = _words(
    "North Blue Bright Iron Silver Green Red Stone Clear Swift Cedar Harbor Summit "
    "River Maple Quantum Polar Lumen Vector Orbit Atlas Nova Echo Pine Coral Amber "
    "Falcon Granite Meadow Tidal"
)
CO_ROOT = _words(
    "wind stone field path forge works point line bridge gate light wave leaf peak "
    "ridge bay grove spring mark craft"
)
CO_KIND = _words(
    "Labs Analytics Systems Logistics Health Partners Capital Robotics Foods Energy "
    "Software Networks Media Bio Materials Studio Ventures Consulting"
)
CO_LEGAL = ["", "", "", " Ltd", " GmbH", " Inc.", " AB", " SAS"]
CODENAMES = _words(
    "Apollo Borealis Cassini Daedalus Electra Fenrix Gemini Helios Icarus Juno "
    "Kepler Lyra Meridian Nimbus Orion Perseus Quasar Rigel Sirius Tethys Umbra "
    "Vega Zephyr Aurora Basalt Cobalt Drift Ember Flint Garnet Halcyon Indigo "
    "Jasper Kestrel Lantern Mosaic Nectar Onyx Prism"
)
PROJECT_SUFFIX = [
    "",
    "",
    "",
    " II",
    " Next",
    " Mobile",
    " Core",
    " Lite",
    " Cloud",
    " 2.0",
    " Europe",
    " Pilot",
]
CONCEPT_DOMAIN = [
    "pricing",
    "hiring",
    "support",
    "infrastructure",
    "research",
    "sales",
    "design",
    "security",
    "finance",
    "operations",
    "onboarding",
    "analytics",
    "product",
    "partnerships",
    "documentation",
    "testing",
    "compliance",
    "procurement",
    "marketing",
    "logistics",
]
PROJECT_VERBS = [
    "Migrate",
    "Rebuild",
    "Launch",
    "Redesign",
    "Automate",
    "Consolidate",
    "Harden",
    "Simplify",
    "Scale",
    "Localize",
    "Instrument",
    "Retire",
]
NOUN_PHRASES = [
    "billing pipeline",
    "onboarding flow",
    "search index",
    "data warehouse",
    "mobile app",
    "pricing page",
    "support queue",
    "release process",
    "audit log",
    "payment gateway",
    "recommendation engine",
    "analytics dashboard",
    "partner portal",
    "sync service",
    "access control",
    "design system",
    "inventory model",
    "demand forecast",
    "quarterly report",
    "build farm",
    "feature flags",
    "customer survey",
    "churn model",
    "product roadmap",
    "hiring plan",
    "office move",
    "vendor contract",
    "backup policy",
    "incident review",
    "travel budget",
    "API gateway",
    "offline mode",
    "export format",
    "permission model",
    "sales playbook",
    "security review",
    "data retention policy",
    "pilot programme",
    "launch checklist",
    "migration plan",
    "cost model",
    "grant application",
    "user interviews",
]
MEETING_KINDS = [
    "weekly sync",
    "design review",
    "planning",
    "retrospective",
    "kickoff",
    "board meeting",
    "customer call",
    "stand-up",
    "steering group",
    "all-hands",
    "interview",
    "quarterly review",
]
SOURCE_KINDS = [
    "Interview transcript",
    "Board deck",
    "Research paper",
    "Blog post",
    "Email thread",
    "Contract",
    "Call recording",
    "Survey results",
    "Press release",
    "Internal memo",
    "Podcast episode",
    "Slide deck",
    "Meeting minutes",
    "RFC",
]
CONCEPT_MOD = _words(
    "Adaptive Eventual Progressive Incremental Zero-based Continuous Distributed "
    "Lean Outcome-driven Asynchronous Deliberate Layered Bounded Federated "
    "Reversible Opportunistic Structured Emergent Shared"
)
CONCEPT_NOUN = _words(
    "consistency backpressure discovery budgeting delivery ownership review "
    "planning caching governance estimation alignment onboarding pricing "
    "documentation tracing retention experimentation sampling versioning "
    "partitioning prioritisation"
)
EVENT_KINDS = [
    "product launch",
    "funding round",
    "outage",
    "conference talk",
    "office opening",
    "acquisition",
    "reorganisation",
    "hackathon",
    "security incident",
    "offsite",
    "partnership announcement",
    "price change",
]
TAGS = [
    "customer",
    "internal",
    "research",
    "q1",
    "q2",
    "q3",
    "q4",
    "priority",
    "follow-up",
    "finance",
    "hiring",
    "engineering",
    "design",
    "legal",
    "sales",
    "ops",
    "strategy",
    "risk",
    "idea",
    "archive",
    "travel",
    "security",
    "data",
    "partner",
    "2025",
    "2026",
]
STATUS = [("active", 55), ("paused", 15), ("completed", 20), ("cancelled", 10)]

SUBJECTS = [
    "The team",
    "The customer",
    "Our partner",
    "The vendor",
    "Finance",
    "The board",
    "Engineering",
    "Design",
    "Legal",
    "Support",
    "The pilot group",
    "Leadership",
    "The working group",
    "Research",
    "Sales",
    "Operations",
    "The new hire",
    "The reviewer",
    "Everyone on the call",
    "The steering group",
]
VERBS = [
    "reviewed",
    "questioned",
    "approved",
    "postponed",
    "rewrote",
    "simplified",
    "measured",
    "documented",
    "shipped",
    "rejected",
    "estimated",
    "prototyped",
    "benchmarked",
    "escalated",
    "summarised",
    "revisited",
    "split up",
    "handed over",
    "tested",
    "budgeted for",
    "prioritised",
    "deferred",
    "audited",
    "replaced",
]
PARTICIPLES = [
    "reviewed",
    "approved",
    "postponed",
    "rewritten",
    "simplified",
    "measured",
    "documented",
    "shipped",
    "rejected",
    "estimated",
    "prototyped",
    "split up",
    "handed over",
    "tested",
    "prioritised",
    "deferred",
    "audited",
    "replaced",
]
ADJS = [
    "current",
    "new",
    "legacy",
    "shared",
    "draft",
    "revised",
    "quarterly",
    "internal",
    "public",
    "experimental",
    "proposed",
    "final",
    "outdated",
    "temporary",
    "critical",
    "manual",
    "automated",
    "regional",
    "annual",
    "simplified",
]
ADVERBS = [
    "last week",
    "on Tuesday",
    "before the deadline",
    "after the outage",
    "during the offsite",
    "in the last sprint",
    "ahead of the launch",
    "yesterday",
    "at the end of the quarter",
    "without much discussion",
    "after two rounds of review",
    "for the second time",
    "earlier than planned",
    "in the kickoff",
]
REASONS = [
    "because the numbers did not add up",
    "so that support load goes down",
    "since the contract renews in March",
    "to unblock the mobile release",
    "as the pilot customers asked for it",
    "because nobody owned it",
    "to cut hosting costs",
    "after the security review flagged it",
    "so onboarding takes less than a day",
    "because the old approach does not scale",
]
OPENERS = [
    "In short,",
    "Importantly,",
    "As a result,",
    "For context,",
    "Notably,",
    "On balance,",
    "To be clear,",
    "In practice,",
    "Meanwhile,",
    "Still,",
]
HEADINGS = [
    "Summary",
    "Background",
    "Context",
    "Open questions",
    "Decisions",
    "Next steps",
    "Notes",
    "Risks",
    "Timeline",
    "Details",
    "Action items",
    "Discussion",
    "What we know",
    "Follow-ups",
    "Key points",
    "History",
]
LINK_TEMPLATES = [
    "See {link} for the background.",
    "This came up with {link} again.",
    "The latest numbers are in {link}.",
    "{link} has the full context.",
    "Compare with {link}.",
    "We should check with {link} before deciding.",
    "As discussed in {link}, the scope stays fixed.",
    "Related: {link}.",
    "Follow-up owner is tracked in {link}.",
    "Most of this was first written down in {link}.",
]
CODE_BLOCKS = [
    ("bash", "make migrate ENV=staging\n./scripts/backfill --since 2025-01-01 --dry-run"),
    ("python", "def churn_rate(lost, total):\n    return lost / total if total else 0.0"),
    ("sql", "SELECT account_id, sum(amount)\nFROM invoices\nWHERE status = 'open'\nGROUP BY account_id;"),
    ("yaml", "retention:\n  days: 90\n  exclude: [audit, legal-hold]"),
    ("json", '{"feature": "offline-mode", "rollout": 0.25, "owner": "mobile"}'),
    ("text", "ERROR 503 upstream timed out after 30s (request id 7f3a9c)"),
]
INLINE_CODE = [
    "`--dry-run`",
    "`config.yaml`",
    "`SELECT 1`",
    "`v2.3.1`",
    "`make test`",
    "`retry_after`",
    "`feature_flags`",
]
ATTRIBUTION_TEMPLATES = [
    "{person} in the {date} {meeting}",
    "{person}, by email on {date}",
    "{person} during the {meeting} on {date}",
    "Notes from the {date} {meeting}",
    "{source}",
    "The owner, in a voice memo on {date}",
    "Inferred by the assistant from {source}",
    "An unnamed customer on the {date} support call",
]
LIFECYCLE_REASONS = {
    "superseded": [
        "corrected by a later statement",
        "the date moved",
        "figures were revised",
        "replaced after the follow-up call",
    ],
    "withdrawn": [
        "retracted by the speaker",
        "recorded by mistake",
        "could not be verified",
        "duplicate of an existing claim",
    ],
}

_SAFE_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 _.'()/-]*[A-Za-z0-9.)]|[A-Za-z]")
_YAML_WORDS = {"true", "false", "null", "yes", "no", "on", "off", "~"}


_DATE_LIKE = re.compile(r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))?")


def yq(text: str) -> str:
    """A YAML scalar for `text`: plain when unambiguous in block and flow context.

    Dates and timestamps stay plain, as people write them; the engine reads
    YAML 1.2 core schema, where they are strings.
    """
    if _DATE_LIKE.fullmatch(text):
        return text
    if (
        _SAFE_PLAIN.fullmatch(text)
        and text.lower() not in _YAML_WORDS
        and " #" not in text
        and "  " not in text
    ):
        return text
    return json.dumps(text, ensure_ascii=False)


def yflow(items: list[str]) -> str:
    return "[" + ", ".join(yq(i) for i in items) + "]"


def slugify(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:80].rstrip("-") or "untitled"


def norm(text: str) -> str:
    """The engine's name key (NFKC, lowercase, collapsed whitespace)."""
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


_CUMULATIVE: dict[int, tuple[list[str], list[int]]] = {}


def weighted(rng: random.Random, pairs: list[tuple[str, int]]) -> str:
    table = _CUMULATIVE.get(id(pairs))
    if table is None:
        names, cum, total = [], [], 0
        for name, weight in pairs:
            total += weight
            names.append(name)
            cum.append(total)
        table = _CUMULATIVE[id(pairs)] = (names, cum)
    return rng.choices(table[0], cum_weights=table[1])[0]


# --- planned records -------------------------------------------------------------


@dataclass(slots=True)  # a million of them are planned at once: no per-record __dict__
class Rec:
    id: str
    kind: str  # page | claim | relationship
    title: str
    path: str = ""  # partition-relative
    type: str | None = None  # page type
    aliases: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    fields: dict[str, str] = field(default_factory=dict)
    recorded: int = 0  # seconds since epoch
    updated: int = 0
    revision: int = 1
    lifecycle: str = "active"
    extra: dict[str, Any] = field(default_factory=dict)
    broken: str | None = None


class _Namer:
    """Unique titles and aliases (by the engine's normalised name) and filenames."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.paths: set[str] = set()
        self.next_suffix: dict[str, int] = {}

    def title(self, text: str) -> str:
        candidate = text
        n = self.next_suffix.get(text, 2)
        while norm(candidate) in self.names:
            candidate = f"{text} ({n})"
            n += 1
        self.next_suffix[text] = n
        self.names.add(norm(candidate))
        return candidate

    def alias(self, text: str) -> str | None:
        if norm(text) in self.names:
            return None
        self.names.add(norm(text))
        return text

    def path(self, directory: str, title: str, record_id: str) -> str:
        slug = slugify(title)
        candidate = f"{directory}/{slug}.md"
        if candidate in self.paths:  # spec: collisions receive a short ID suffix
            candidate = f"{directory}/{slug}-{record_id.rsplit('_', 1)[-1][-6:]}.md"
        n = 2
        while candidate in self.paths:
            candidate = f"{directory}/{slug}-{record_id.rsplit('_', 1)[-1][-6:]}-{n}.md"
            n += 1
        self.paths.add(candidate)
        return candidate


class Generator:
    def __init__(self, n: int, seed: int) -> None:
        self.n = n
        self.seed = seed
        self.rng = random.Random(seed)
        self.namer = _Namer()
        # Fixed clock derived from the seed: records span two years from `epoch`.
        base = datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=seed % 365)
        self.epoch = int(base.timestamp())
        self.span = 730 * 86400
        width = max(6, len(str(n)))
        self.idfmt = "{}_{:0" + str(width) + "d}"
        self.pages: list[Rec] = []
        self.by_type: dict[str, list[Rec]] = {}
        self.claims: list[Rec] = []
        self.rels: list[Rec] = []
        self.sentences: list[str] = []
        self.paragraphs: list[str] = []
        self.lists: list[str] = []
        self.headings: list[str] = []
        self.codes: list[str] = []
        self.pool_dates: list[str] = []
        self.missing_titles: list[str] = []
        self._days: dict[int, tuple[str, str]] = {}
        self._lifecycle_used: set[int] = set()

    # -- helpers -------------------------------------------------------------
    def ts(self, seconds: int) -> str:
        dt = datetime.fromtimestamp(seconds, UTC)
        return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{(seconds * 7919) % 1000:03d}Z"

    def month(self, seconds: int) -> str:
        return self._calendar(seconds)[1]

    def day(self, seconds: int) -> str:
        return self._calendar(seconds)[0]

    def _calendar(self, seconds: int) -> tuple[str, str]:
        key = seconds // 86400
        hit = self._days.get(key)
        if hit is None:
            dt = datetime.fromtimestamp(key * 86400, UTC)
            hit = self._days[key] = (dt.strftime("%Y-%m-%d"), dt.strftime("%B %Y"))
        return hit

    def rand_time(self) -> int:
        return self.epoch + self.rng.randrange(self.span)

    def person_name(self) -> str:
        rng = self.rng
        first = rng.choice(FIRST_ACCENTED) if rng.random() < 0.05 else rng.choice(FIRST)
        last = rng.choice(LAST_ACCENTED) if rng.random() < 0.04 else rng.choice(LAST)
        name = f"{first} {last}"
        if norm(name) in self.namer.names:
            name = f"{first} {rng.choice('ABCDEFGHJKLMNPRSTVW')}. {last}"
        return name

    def company_name(self) -> str:
        rng = self.rng
        return f"{rng.choice(CO_PREFIX)}{rng.choice(CO_ROOT)} {rng.choice(CO_KIND)}{rng.choice(CO_LEGAL)}"

    # -- planning --------------------------------------------------------------
    def plan(self) -> None:
        rng = self.rng
        n = self.n
        n_pages = max(1, round(n * PAGE_SHARE)) if n >= 3 else n
        n_claims = round(n * CLAIM_SHARE) if n >= 3 else 0
        n_rels = max(0, n - n_pages - n_claims)
        self._sentence_pool()
        self._block_pools()
        self._plan_pages(n_pages)
        self._plan_merges()
        for i in range(n_claims):
            self.claims.append(self._plan_claim(i + 1))
        for i in range(n_rels):
            self.rels.append(self._plan_relationship(i + 1))
        self._plan_lifecycle()
        self._plan_broken()
        self.missing_titles = []
        for _ in range(50):
            title = (
                f"{rng.choice(ADJS).capitalize()} {rng.choice(NOUN_PHRASES)} "
                f"{rng.choice(['plan', 'draft', 'ideas', 'notes', 'memo'])}"
            )
            if norm(title) not in self.namer.names:
                self.missing_titles.append(title)
        if not self.missing_titles:
            self.missing_titles.append("A page nobody wrote")

    def _sentence_pool(self) -> None:
        rng = self.rng
        out = []
        for _ in range(3000):
            shape = rng.random()
            subject = rng.choice(SUBJECTS)
            obj = f"the {rng.choice(ADJS)} {rng.choice(NOUN_PHRASES)}"
            if shape < 0.35:
                s = f"{subject} {rng.choice(VERBS)} {obj} {rng.choice(ADVERBS)}."
            elif shape < 0.6:
                s = f"{subject} {rng.choice(VERBS)} {obj} {rng.choice(REASONS)}."
            elif shape < 0.75:
                s = (
                    f"{rng.choice(OPENERS)} {subject.lower()} {rng.choice(VERBS)} {obj}, "
                    f"and {rng.choice(SUBJECTS).lower()} {rng.choice(VERBS)} "
                    f"the {rng.choice(NOUN_PHRASES)}."
                )
            elif shape < 0.88:
                s = (
                    f"We still need to decide whether the {rng.choice(NOUN_PHRASES)} "
                    f"should be {rng.choice(PARTICIPLES)} {rng.choice(ADVERBS)}."
                )
            else:
                pct = rng.randint(2, 95)
                s = (
                    f"The {rng.choice(ADJS)} {rng.choice(NOUN_PHRASES)} changed by {pct}% "
                    f"{rng.choice(ADVERBS)}."
                )
            out.append(s)
        self.sentences = out

    def _plan_pages(self, count: int) -> None:
        rng = self.rng
        # Exact counts per type (largest remainder), then shuffled order.
        quotas = [(t, count * share) for t, _, share in PAGE_TYPES]
        counts = {t: int(q) for t, q in quotas}
        left = count - sum(counts.values())
        for t, _ in sorted(quotas, key=lambda tq: tq[1] - int(tq[1]), reverse=True)[:left]:
            counts[t] += 1
        # Small vaults still get at least one page of the types others refer to.
        for needed in ("source", "person", "project", "company"):
            if count >= 8 and counts[needed] == 0:
                biggest = max(counts, key=lambda k: counts[k])
                counts[biggest] -= 1
                counts[needed] += 1
        types = [t for t, c in counts.items() for _ in range(c)]
        rng.shuffle(types)
        for t in ("person", "company", "project", "source"):  # referents get titles first
            self.by_type[t] = []
        for i, page_type in enumerate(types, start=1):
            rec = Rec(self.idfmt.format("pg", i), "page", "", type=page_type)
            self._page_details(rec)
            self.pages.append(rec)
            self.by_type.setdefault(page_type, []).append(rec)

    def _page_details(self, rec: Rec) -> None:
        rng, namer = self.rng, self.namer
        t = rec.type or "note"
        rec.recorded = self.rand_time()
        when = rec.recorded - rng.randrange(0, 20 * 86400)
        aliases: list[str] = []
        if t == "person":
            rec.title = namer.title(self.person_name())
            first, _, last = rec.title.partition(" ")
            aliases = [f"{first[0]}. {last.split(' (')[0]}", f"{first} {last[0]}."]
            if rng.random() < 0.7:
                rec.fields["role"] = rng.choice(ROLES)
        elif t == "company":
            rec.title = namer.title(self.company_name())
            words = rec.title.split()
            aliases = ["".join(w[0] for w in words if w[0].isalpha()).upper(), words[0]]
        elif t == "project":
            if rng.random() < 0.3:
                base = f"Project {rng.choice(CODENAMES)}{rng.choice(PROJECT_SUFFIX)}"
            else:
                base = (
                    f"{rng.choice(PROJECT_VERBS)} the {rng.choice(ADJS)} "
                    f"{rng.choice(NOUN_PHRASES)}"
                    f"{rng.choice(['', '', ' ' + str(rng.randint(2024, 2027))])}"
                )
            rec.title = namer.title(base)
            aliases = [rec.title.replace("Project ", "") + " project"]
            rec.fields["status"] = weighted(rng, STATUS)
        elif t == "meeting":
            team = (
                rng.choice(CODENAMES)
                if rng.random() < 0.6
                else rng.choice(SUBJECTS[1:9]).replace("The ", "").replace("Our ", "").capitalize()
            )
            kind = rng.choice(MEETING_KINDS)
            rec.title = namer.title(f"{team} {kind} {self.day(when)}")
            if rng.random() < 0.7:
                rec.fields["occurred_at"] = self.day(when) if rng.random() < 0.5 else self.ts(when)[:19] + "Z"
        elif t == "note":
            topic = f"{rng.choice(ADJS)} {rng.choice(NOUN_PHRASES)}"
            form = rng.choice(
                [
                    "Notes on the {}",
                    "Thoughts about the {}",
                    "{} reading notes",
                    "Open questions on the {}",
                    "Checklist for the {}",
                    "Idea: rethink the {}",
                ]
            )
            title = form.format(topic)
            if rng.random() < 0.6:
                title += f", {self.month(when)}"
            rec.title = namer.title(title[0].upper() + title[1:])
        elif t == "source":
            kind = rng.choice(SOURCE_KINDS)
            if kind == "RFC":
                rec.title = namer.title(f"RFC {rng.randint(1, 400)}: {rng.choice(NOUN_PHRASES)}")
            else:
                rec.title = namer.title(f"{kind}: {rng.choice(NOUN_PHRASES)} ({self.day(when)})")
            rec.fields["occurred_at"] = self.day(when)
            if rng.random() < 0.5:
                rec.fields["canonical_url"] = f"https://docs.example.com/{slugify(rec.title)}"
        elif t == "concept":
            concept = f"{rng.choice(CONCEPT_MOD)} {rng.choice(CONCEPT_NOUN)}"
            if rng.random() < 0.75:
                concept += f" in {rng.choice(CONCEPT_DOMAIN)}"
            rec.title = namer.title(concept)
            aliases = [rec.title.lower().replace(" ", "-")]
        elif t == "event":
            co = self.by_type.get("company") or []
            who = rng.choice(co).title if co and rng.random() < 0.7 else rng.choice(CODENAMES)
            rec.title = namer.title(f"{who} {rng.choice(EVENT_KINDS)} {self.day(when)}")
            rec.fields["occurred_at"] = self.day(when)
        rec.path = namer.path(DIRECTORY[t], rec.title, rec.id)
        if aliases and rng.random() < ALIAS_SHARE:
            k = 1 if rng.random() < 0.7 else len(aliases)
            rec.aliases = [a for a in (namer.alias(x) for x in aliases[:k]) if a]
        self._common(rec)

    def _common(self, rec: Rec) -> None:
        rng = self.rng
        if not rec.recorded:
            rec.recorded = self.rand_time()
        rec.updated = rec.recorded
        if rng.random() < 0.35:
            rec.revision = rng.randint(2, 6)
            rec.updated = rec.recorded + rng.randrange(3600, 90 * 86400)
        if rng.random() < TAG_SHARE:
            rec.tags = rng.sample(TAGS, rng.randint(1, 3))

    def _plan_merges(self) -> None:
        rng = self.rng
        wanted = round(len(self.pages) * MERGED_SHARE)
        if len(self.pages) >= 30:
            wanted = max(wanted, 1)
        candidates = [
            t for t in ("person", "company", "concept", "note") if len(self.by_type.get(t, [])) >= 4
        ]
        absorbed: set[str] = set()
        for _ in range(wanted):
            if not candidates:
                break
            group = self.by_type[rng.choice(candidates)]
            loser, survivor = rng.sample(group, 2)
            if loser.id in absorbed or survivor.id in absorbed or loser.extra or survivor.extra:
                continue
            absorbed.add(loser.id)
            loser.lifecycle = "merged"
            loser.extra["merged_into"] = survivor.id
            survivor.extra["merged_from"] = [loser.id]
            at = max(loser.updated, survivor.updated) + rng.randrange(3600, 86400 * 30)
            loser.updated = survivor.updated = at
            loser.revision += 1
            survivor.revision += 1

    def _pick(self, types: tuple[str, ...]) -> Rec | None:
        pool = [t for t in types if self.by_type.get(t)]
        if not pool:
            return None
        return self.rng.choice(self.by_type[self.rng.choice(pool)])

    def _any_page(self) -> Rec:
        return self.rng.choice(self.pages)

    def _evidence(self) -> list[dict[str, Any]]:
        rng = self.rng
        out: list[dict[str, Any]] = []
        for _ in range(1 if rng.random() < 0.7 else rng.randint(2, 3)):
            item: dict[str, Any] = {}
            source = self._pick(("source",))
            if source is not None and rng.random() < 0.65:
                item["source"] = source.id
            else:
                page = self._pick(("meeting", "source", "note")) or self._any_page()
                item["path"] = page.path
            if rng.random() < 0.4:
                start = rng.randint(1, 120)
                item["lines"] = [start, start + rng.randint(0, 12)]
            if rng.random() < 0.3:
                item["quote"] = rng.choice(self.sentences)
            out.append(item)
        return out

    def _attribution(self) -> str:
        rng = self.rng
        person = self._pick(("person",))
        source = self._pick(("source",))
        return rng.choice(ATTRIBUTION_TEMPLATES).format(
            person=person.title if person else "The owner",
            date=self.day(self.rand_time()),
            meeting=rng.choice(MEETING_KINDS),
            source=source.title if source else "an imported document",
        )

    def _plan_claim(self, i: int) -> Rec:
        rng = self.rng
        rec = Rec(self.idfmt.format("cl", i), "claim", "")
        kind = weighted(rng, CLAIM_KINDS)
        rec.extra["claim_kind"] = kind
        rec.extra["assertion_origin"] = weighted(rng, ORIGINS)
        rec.extra["attribution"] = self._attribution()
        rec.extra["evidence"] = self._evidence()
        entities = []
        for _ in range(rng.choice([1, 1, 2, 2, 3])):
            page = self._any_page() if self.pages else None
            if page is not None and page.id not in entities:
                entities.append(page.id)
        person = self._pick(("person",))
        project = self._pick(("project",))
        company = self._pick(("company",))
        subject = (person or company or self._any_page()).title
        thing = rng.choice(NOUN_PHRASES)
        rec.recorded = self.rand_time()
        when = rec.recorded - rng.randrange(0, 30 * 86400)
        if kind == "fact":
            title = (
                f"{(company or person or self._any_page()).title} uses the "
                f"{rng.choice(ADJS)} {thing} as of {self.month(when)}"
            )
        elif kind == "preference":
            title = f"{subject} prefers the {rng.choice(ADJS)} {thing}"
            if rng.random() < 0.5:
                title += f" {rng.choice(ADVERBS)}"
        elif kind == "decision":
            title = (
                f"{(project or self._any_page()).title} will "
                f"{rng.choice(PROJECT_VERBS).lower()} the {thing} in {self.month(when)}"
            )
        elif kind == "commitment":
            title = f"{subject} will deliver the {rng.choice(ADJS)} {thing}"
            if person is not None and rng.random() < 0.8:
                rec.extra["owner"] = person.id
                if person.id not in entities:
                    entities.append(person.id)
            if rng.random() < 0.7:
                due = when + rng.randrange(2, 120) * 86400
                rec.extra["due_at"] = self.day(due) if rng.random() < 0.8 else self.ts(due)[:19] + "Z"
                title += f" by {self.day(due)}"
        elif kind == "event":
            title = (
                f"{(company or self._any_page()).title} {rng.choice(VERBS)} the {thing} on {self.day(when)}"
            )
        else:
            title = f"{subject} believes the {thing} is {rng.choice(ADJS)} {rng.choice(ADVERBS)}"
        if entities:
            rec.extra["entities"] = entities
        if rng.random() < 0.6 or kind == "event":
            r = rng.random()
            if r < 0.7:
                rec.extra["occurred_at"] = self.day(when)
            elif r < 0.9:
                rec.extra["occurred_at"] = self.ts(when)[:19] + "Z"
            else:
                offset = rng.choice(["+02:00", "-05:00", "+05:30", "+09:00"])
                rec.extra["occurred_at"] = self.ts(when)[:19] + offset
        if kind == "preference" and rng.random() < 0.1:
            rec.extra["recall"] = {
                "summary": f"{subject} prefers the {thing}.",
                "triggers": [thing, rng.choice(ADJS) + " " + thing],
                "importance": rng.randint(3, 9),
                "approved_by": "owner-private",
                "approved_at": self.ts(rec.recorded + 600),
            }
        rec.title = self.namer.title(title)
        rec.path = self.namer.path("claims", rec.title, rec.id)
        self._common(rec)
        rec.extra["statement"] = title + "."
        return rec

    def _plan_relationship(self, i: int) -> Rec:
        rng = self.rng
        rec = Rec(self.idfmt.format("rl", i), "relationship", "")
        label = weighted(rng, [(name, w) for name, _, _, w in LABELS])
        spec = next(s for s in LABELS if s[0] == label)
        src, dst = self._pick(spec[1]), self._pick(spec[2])
        if src is None or dst is None or src is dst:
            label = "relates_to"
            src, dst = self._any_page(), self._any_page()
        rec.extra.update(
            {
                "from": src.id,
                "to": dst.id,
                "label": label,
                "attribution": self._attribution(),
                "evidence": self._evidence(),
            }
        )
        rec.title = self.namer.title(f"{src.title} {LABEL_WORDS[label]} {dst.title}")
        rec.path = self.namer.path("relationships", rec.title, rec.id)
        self._common(rec)
        return rec

    def _plan_lifecycle(self) -> None:
        rng = self.rng
        claims = self.claims
        if len(claims) < 4:
            return
        order = list(range(len(claims)))
        rng.shuffle(order)
        n_sup = round(len(claims) * SUPERSEDED_SHARE)
        n_wd = round(len(claims) * WITHDRAWN_SHARE)
        used: set[int] = set()
        cursor = 0
        for _ in range(n_sup):
            while cursor < len(order) and order[cursor] in used:
                cursor += 1
            if cursor + 1 >= len(order):
                break
            old_i = order[cursor]
            new_i = order[cursor + 1]
            cursor += 2
            if new_i in used:
                continue
            used |= {old_i, new_i}
            old, new = claims[old_i], claims[new_i]
            new.recorded = max(new.recorded, old.updated + 3600)
            new.updated = max(new.updated, new.recorded)
            old.lifecycle = "superseded"
            old.revision += 1
            old.updated = new.recorded
            old.extra["superseded_by"] = new.id
            old.extra["lifecycle_change"] = self._change("superseded", new.recorded)
            new.extra["supersedes"] = old.id
        for idx in order[cursor : cursor + n_wd]:
            rec = claims[idx]
            used.add(idx)
            rec.lifecycle = "withdrawn"
            rec.revision += 1
            rec.updated = rec.updated + rng.randrange(3600, 30 * 86400)
            rec.extra["lifecycle_change"] = self._change("withdrawn", rec.updated)
        self._lifecycle_used = used

    def _change(self, what: str, at: int) -> dict[str, str]:
        rng = self.rng
        return {
            "reason": rng.choice(LIFECYCLE_REASONS[what]),
            "at": self.ts(at),
            "actor": rng.choice(["owner-private", "agent-assistant"]),
            "request_id": f"req_{rng.getrandbits(64):016x}",
        }

    def _plan_broken(self) -> None:
        rng = self.rng
        want = round(self.n * BROKEN_SHARE)
        used = self._lifecycle_used
        pool = [c for i, c in enumerate(self.claims) if i not in used] + self.rels
        ways = [
            "yaml-flow",
            "yaml-quote",
            "yaml-indent",
            "missing-recorded_at",
            "missing-evidence",
            "unclosed",
        ]
        rng.shuffle(ways)
        for i, rec in enumerate(rng.sample(pool, min(want, len(pool)))):
            rec.broken = ways[i % len(ways)]  # round robin: every kind of damage appears

    # -- rendering --------------------------------------------------------------
    def link(self, source: Rec) -> str:
        rng = self.rng
        if rng.random() < MISSING_LINK_SHARE:
            return f"[[{rng.choice(self.missing_titles)}]]"
        target = self._any_page()
        tries = 0
        while target is source and tries < 3:
            target = self._any_page()
            tries += 1
        r = rng.random()
        if r < 0.33:
            return f"[[{target.title}]]"
        if r < 0.48:
            return f"[[{target.aliases[0] if target.aliases else target.title}]]"
        path_no_ext = target.path[:-3]
        if r < 0.73:
            label = target.title.split(" (")[0] if rng.random() < 0.8 else "this"
            shown = target.path if rng.random() < 0.1 else path_no_ext
            return f"[[{shown}|{label}]]"
        src_dir = source.path.split("/", 1)[0]
        tdir, tfile = target.path.split("/", 1)
        href = (tfile if rng.random() < 0.5 else "./" + tfile) if tdir == src_dir else f"../{target.path}"
        return f"[{target.title}]({href})"

    def _block_pools(self) -> None:
        """Paragraphs and bullet lists built once and reused (generation speed)."""
        rng, sentences = self.rng, self.sentences
        self.paragraphs = [" ".join(rng.choices(sentences, k=rng.randint(2, 6))) for _ in range(2500)]
        self.lists = [
            "\n".join("- " + s for s in rng.choices(sentences, k=rng.randint(3, 6))) for _ in range(800)
        ]
        self.headings = [f"## {h}" for h in HEADINGS]
        self.codes = [f"```{lang}\n{code}\n```" for lang, code in CODE_BLOCKS]

    def body(self, rec: Rec) -> str:
        rng = self.rng
        rand = rng.random
        paragraphs, lists, headings = self.paragraphs, self.lists, self.headings
        target = rng.randint(BODY_MIN, BODY_MAX)
        links = [self.link(rec) for _ in range(rng.randint(3, 8))]
        with_code = rand() < 0.08
        with_inline = rand() < 0.06
        parts: list[str] = []
        first = rng.choice(paragraphs)
        if rec.kind == "claim":
            first = f"{rec.extra['statement']} {first}"
        parts.append(first)
        size = len(first)
        link_at = 0
        while size < target:
            r = rand()
            if r < 0.14:
                block = rng.choice(headings)
            elif r < 0.32:
                block = rng.choice(lists)
                if link_at < len(links) and rand() < 0.5:
                    link_line = rng.choice(LINK_TEMPLATES).format(link=links[link_at])
                    block = f"{block}\n- {link_line}"
                    link_at += 1
            elif r < 0.36 and with_code:
                block = rng.choice(self.codes)
                with_code = False
            else:
                block = rng.choice(paragraphs)
                if link_at < len(links) and rand() < 0.45:
                    link_line = rng.choice(LINK_TEMPLATES).format(link=links[link_at])
                    block = f"{block} {link_line}" if rand() < 0.6 else f"{link_line} {block}"
                    link_at += 1
                if with_inline:
                    block = f"{block} Run {rng.choice(INLINE_CODE)} to check."
                    with_inline = False
            parts.append(block)
            size += len(block) + 2
        if link_at < len(links):
            parts.append("## Related")
            parts.append("\n".join("- " + link for link in links[link_at:]))
        return "\n\n".join(parts) + "\n"

    def frontmatter(self, rec: Rec) -> list[str]:
        x = rec.extra
        lines = [
            "---",
            "format: knowledge-record-v1",
            f"id: {rec.id}",
            f"revision: {rec.revision}",
            f"kind: {rec.kind}",
            f"title: {yq(rec.title)}",
            f"recorded_at: {self.ts(rec.recorded)}",
            f"updated_at: {self.ts(rec.updated)}",
            f"scope: {SCOPE}",
            f"lifecycle: {rec.lifecycle}",
        ]
        if rec.aliases:
            lines.append(f"aliases: {yflow(rec.aliases)}")
        if rec.tags:
            lines.append(f"tags: {yflow(rec.tags)}")
        if rec.kind == "page":
            lines.append(f"type: {rec.type}")
            if rec.fields:
                lines.append("fields:")
                lines.extend(f"  {k}: {yq(v)}" for k, v in rec.fields.items())
            if "merged_into" in x:
                lines.append(f"merged_into: {x['merged_into']}")
            if "merged_from" in x:
                lines.append(f"merged_from: {yflow(x['merged_from'])}")
        elif rec.kind == "claim":
            lines.append(f"claim_kind: {x['claim_kind']}")
            lines.append(f"assertion_origin: {x['assertion_origin']}")
            lines.append(f"attribution: {yq(x['attribution'])}")
            lines.extend(_evidence_lines(x["evidence"]))
            if "entities" in x:
                lines.append(f"entities: {yflow(x['entities'])}")
            for key in ("occurred_at", "owner", "due_at", "supersedes", "superseded_by"):
                if key in x:
                    lines.append(f"{key}: {yq(x[key])}")
        else:
            lines.append(f"from: {x['from']}")
            lines.append(f"to: {x['to']}")
            lines.append(f"label: {x['label']}")
            lines.append(f"attribution: {yq(x['attribution'])}")
            lines.extend(_evidence_lines(x["evidence"]))
        if "lifecycle_change" in x:
            lines.append("lifecycle_change:")
            lines.extend(f"  {k}: {yq(v)}" for k, v in x["lifecycle_change"].items())
        if "recall" in x:
            r = x["recall"]
            lines += [
                "recall:",
                f"  summary: {yq(r['summary'])}",
                f"  triggers: {yflow(r['triggers'])}",
                f"  importance: {r['importance']}",
                f"  approved_by: {r['approved_by']}",
                f"  approved_at: {r['approved_at']}",
            ]
        lines.append("---")
        return lines

    def render(self, rec: Rec) -> str:
        lines = self.frontmatter(rec)
        if rec.broken:
            lines = _break(rec.broken, lines)
        return "\n".join(lines) + "\n" + self.body(rec)


def _evidence_lines(evidence: list[dict[str, Any]]) -> list[str]:
    out = ["evidence:"]
    for item in evidence:
        first = True
        for key, value in item.items():
            text = f"[{value[0]}, {value[1]}]" if key == "lines" else yq(value)
            out.append(f"  {'- ' if first else '  '}{key}: {text}")
            first = False
    return out


def _break(how: str, lines: list[str]) -> list[str]:
    """Damage a frontmatter the ways hand edits and bad merges do."""
    lines = list(lines)
    if how == "yaml-flow":  # unclosed flow sequence
        lines.insert(5, "tags: [draft, needs-review")
        lines = [ln for i, ln in enumerate(lines) if i == 5 or not ln.startswith("tags:")]
    elif how == "yaml-quote":  # unbalanced quotes
        lines = [
            ln if not ln.startswith("attribution:") else 'attribution: "said "maybe" on the call'
            for ln in lines
        ]
    elif how == "yaml-indent":  # a mis-indented mapping key
        index = next(i for i, ln in enumerate(lines) if ln.startswith("evidence:"))
        lines.insert(index + 1, "    nested: [oops")
        lines.insert(index + 2, " bad-indent: true")
    elif how == "missing-recorded_at":
        lines = [ln for ln in lines if not ln.startswith("recorded_at:")]
    elif how == "missing-evidence":
        index = next(i for i, ln in enumerate(lines) if ln.startswith("evidence:"))
        end = index + 1
        while end < len(lines) and lines[end].startswith("  "):
            end += 1
        lines = lines[:index] + lines[end:]
    elif how == "unclosed":
        lines = lines[:-1]  # no closing ---
    return lines


def generate(
    out_dir: str | os.PathLike[str],
    n: int,
    seed: int = 1,
    force: bool = False,
    progress: Callable[[int, int, int], None] | None = None,
) -> dict[str, Any]:
    """Write the vault; return a summary (counts, bytes, seconds).

    `progress(done, total, bytes)` is called every 5% (at least every 50,000
    records) so that a million-record run shows it is moving.
    """
    started = time.perf_counter()
    out = clear_output(out_dir, force)
    gen = Generator(n, seed)
    gen.plan()
    partition = out / SCOPE
    for directory in {rec.path.split("/", 1)[0] for rec in (*gen.pages, *gen.claims, *gen.rels)}:
        (partition / directory).mkdir(parents=True, exist_ok=True)
    total_bytes = 0
    every = max(PROGRESS_EVERY, n // 20)
    for done, rec in enumerate((*gen.pages, *gen.claims, *gen.rels), start=1):
        # Rendered one at a time and written straight away: memory holds the plan
        # (titles, paths, ids, about 1.5 KB a record), never the vault's text.
        data = gen.render(rec).encode("utf-8")
        total_bytes += len(data)
        if progress is not None and done % every == 0:
            progress(done, n, total_bytes)
        fd = os.open(partition / rec.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    summary: dict[str, Any] = {
        "generator": GENERATOR_VERSION,
        "records": n,
        "seed": seed,
        "pages": len(gen.pages),
        "claims": len(gen.claims),
        "relationships": len(gen.rels),
        "pageTypes": {t: len(v) for t, v in sorted(gen.by_type.items())},
        "superseded": sum(c.lifecycle == "superseded" for c in gen.claims),
        "withdrawn": sum(c.lifecycle == "withdrawn" for c in gen.claims),
        "merged": sum(p.lifecycle == "merged" for p in gen.pages),
        "broken": sum(r.broken is not None for r in (*gen.claims, *gen.rels)),
        "bytes": total_bytes,
    }
    return mark_output(out, summary, started)


def clear_output(out_dir: str | os.PathLike[str], force: bool) -> Path:
    """The output folder, emptied if `force` and a generator of ours made it (its marker is
    there); never someone's folder that merely has the same name."""
    out = Path(out_dir)
    if out.exists() and any(out.iterdir()):
        if not force:
            raise FileExistsError(f"{out} is not empty (use force=True / --force)")
        if not (out / MARKER).is_file():
            raise FileExistsError(f"{out} was not made by this generator; refusing to delete it")
        shutil.rmtree(out)
    return out


def mark_output(out: Path, summary: dict[str, Any], started: float) -> dict[str, Any]:
    """Time the run into `summary` and leave the marker (the summary without its time) that
    `clear_output` and `read_marker` look for."""
    summary["seconds"] = round(time.perf_counter() - started, 3)
    marker = {k: v for k, v in summary.items() if k != "seconds"}
    (out / MARKER).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
    return summary


def read_marker(out_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    try:
        data = json.loads((Path(out_dir) / MARKER).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _print_progress(done: int, total: int, written: int) -> None:
    print(f"generate_vault: {done:,}/{total:,} records, {written / 1e9:.2f} GB", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    count = parser.add_mutually_exclusive_group(required=True)
    count.add_argument("--records", "-n", type=int, help="knowledge-record-v1 records in private/")
    count.add_argument("--notes", type=int, help="Obsidian-style plain notes (bench/notes_vault.py)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--force", action="store_true", help="replace OUT_DIR if this generator made it before"
    )
    args = parser.parse_args(argv)
    if (args.records if args.notes is None else args.notes) < 1:
        parser.error("--records / --notes must be at least 1")
    try:
        if args.notes is not None:
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from notes_vault import generate_notes

            summary = generate_notes(args.out_dir, args.notes, args.seed, force=args.force)
        else:
            summary = generate(
                args.out_dir, args.records, args.seed, force=args.force, progress=_print_progress
            )
    except FileExistsError as exc:
        print(f"generate_vault: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
