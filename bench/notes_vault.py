"""Deterministic generator of Obsidian-style note vaults, for benchmarks (issue 25, §8).

    python bench/generate_vault.py OUT_DIR --notes N [--seed 1] [--force]

Writes N plain Markdown notes — no knowledge-record-v1 frontmatter — laid out
as people keep an Obsidian vault (with a Logseq corner):

* ~10% at the vault root, the rest in folders of any name (`People/`,
  `Projects/Active/`, `Areas/Reading/`, `Resources/Topics/`, `Archive/2023/`,
  Logseq's `pages/`), ~15% daily notes `Daily/YYYY-MM-DD.md` and ~3% Logseq
  journals `journals/YYYY_MM_DD.md`;
* ~2% share a file name with a note in another folder (duplicate names);
* ~45% with YAML frontmatter (`aliases` as a list or one string, `tags` as a
  list or a string, `created`, Obsidian's `cssclass`), Logseq pages with
  `key:: value` property lines instead;
* bodies of 0.3–4 KB: headings, paragraphs ending in a block id (`^b12`),
  bullet lists, inline `#tag` / `#nested/tag`, a fenced code block whose
  `#not-a-tag` and `[[not a link]]` must be ignored, and 3–10 links in every
  Obsidian form — `[[Name]]`, `[[Name|shown]]`, `[[Folder/Name]]`,
  `[[Name#Heading]]`, `[[Name#^block]]`, `![[Name]]`, `![[Name#Heading]]`,
  `![[image.png]]`, `![alt](../attachments/x.png)`, `[text](Some%20Note.md)`,
  `[[paper.pdf]]`, `[[Name|its alias]]` — ~1% of them to names that exist
  nowhere;
* a few attachments (`attachments/`, tiny PNG and PDF files), and what
  Obsidian keeps beside the notes (`.obsidian/app.json`, `.trash/`), which
  is never indexed.

Output depends only on (N, seed). A hidden `.bench-vault.json` records what was
generated (`"mode": "notes"`).
"""

from __future__ import annotations

import os
import random
import time
import zlib
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from generate_vault import clear_output, mark_output  # bench/generate_vault.py, beside this one

GENERATOR_VERSION = 1

FOLDERS: list[tuple[str, float]] = [
    # folder ("" is the vault root), share of the notes that are not daily or journal notes
    ("", 0.12),
    ("People/", 0.18),
    ("Projects/Active/", 0.10),
    ("Projects/Done/", 0.06),
    ("Areas/Reading/", 0.12),
    ("Resources/Topics/", 0.20),
    ("Archive/2023/", 0.10),
    ("pages/", 0.12),  # Logseq: `key:: value` properties
]
DAILY_SHARE, JOURNAL_SHARE = 0.15, 0.03
DUPLICATE_SHARE = 0.02
FRONTMATTER_SHARE = 0.45
MISSING_SHARE = 0.01
BODY_MIN, BODY_MAX = 300, 4000

WORDS = [
    "garden",
    "lantern",
    "harbour",
    "orbit",
    "meadow",
    "signal",
    "copper",
    "willow",
    "ember",
    "quartz",
    "delta",
    "atlas",
    "compass",
    "ledger",
    "prism",
    "canyon",
    "summit",
    "beacon",
    "harvest",
    "tundra",
    "falcon",
    "cipher",
    "mosaic",
    "ripple",
    "anchor",
    "cobalt",
    "fable",
    "glacier",
    "horizon",
    "island",
    "juniper",
    "kernel",
    "lattice",
    "marble",
    "nebula",
    "oasis",
]
PEOPLE = [
    "Ada",
    "Grace",
    "Alan",
    "Barbara",
    "Claude",
    "Donald",
    "Edsger",
    "Frances",
    "Hedy",
    "Joan",
    "Linus",
    "Margaret",
    "Radia",
    "Sophie",
    "Ursula",
    "Vint",
    "Wendy",
    "Amara",
    "Chen",
    "Elena",
    "Farah",
    "Hiro",
    "Ingrid",
    "Keiko",
    "Maya",
    "Nadia",
    "Omar",
    "Priya",
    "Rosa",
    "Wei",
]
SURNAMES = [
    "Lovelace",
    "Hopper",
    "Turing",
    "Liskov",
    "Shannon",
    "Knuth",
    "Dijkstra",
    "Allen",
    "Hamilton",
    "Wirth",
    "Perlman",
]
TAGS = ["idea", "todo", "reading", "project/active", "area/health", "people", "meeting", "draft", "ref"]
SENTENCES = [
    "The {w} review moved to next week after the {v} numbers came in.",
    "Notes from the call: {w} first, then the {v} backlog.",
    "Worth reading again before the {w} workshop.",
    "A quick thought about {w} and why the {v} approach keeps failing.",
    "Open question: does the {w} model still hold once {v} is in place?",
    "Followed up on the {w} thread; waiting on the {v} draft.",
]
CODE = "```python\n# #not-a-tag and [[not a link]] inside code\nprint('{w}')\n```"
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


@dataclass(slots=True)
class Note:
    folder: str
    name: str
    daily: bool = False
    logseq: bool = False
    aliases: list[str] = field(default_factory=list)
    headings: list[str] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)

    @property
    def path(self) -> str:
        return f"{self.folder}{self.name}.md"


class NotesGenerator:
    def __init__(self, n: int, seed: int) -> None:
        self.n = n
        self.rng = random.Random(zlib.crc32(f"notes:{n}:{seed}".encode()))
        self.notes: list[Note] = []
        self.attachments: list[str] = []
        self.counts = {"links": 0, "embeds": 0, "missing": 0, "duplicates": 0}

    def plan(self) -> None:
        rng = self.rng
        daily = int(self.n * DAILY_SHARE)
        journal = int(self.n * JOURNAL_SHARE)
        start = date(2022, 1, 1)
        for i in range(daily):
            self.notes.append(Note("Daily/", (start + timedelta(days=i)).isoformat(), daily=True))
        for i in range(journal):
            day = start + timedelta(days=i * 3)
            self.notes.append(Note("journals/", day.strftime("%Y_%m_%d"), daily=True, logseq=True))
        folders, weights = zip(*FOLDERS, strict=True)
        seen: set[str] = set()
        while len(self.notes) < self.n:
            folder = rng.choices(folders, weights)[0]
            if self.notes and rng.random() < DUPLICATE_SHARE:
                other = rng.choice([n for n in self.notes[-200:] if not n.daily] or self.notes)
                if other.folder != folder and not other.daily:
                    self.notes.append(Note(folder, other.name, logseq=folder == "pages/"))
                    self.counts["duplicates"] += 1
                    continue
            name = self._name(folder, len(self.notes))
            if name.lower() in seen:
                name = f"{name} {len(self.notes)}"
            seen.add(name.lower())
            self.notes.append(Note(folder, name, logseq=folder == "pages/"))
        for note in self.notes:
            note.headings = [f"{rng.choice(WORDS).title()} {k}" for k in range(rng.randint(1, 3))]
            note.blocks = [f"b{rng.randrange(36**4):x}" for _ in range(rng.randint(0, 2))]
            if not note.daily and not note.logseq and rng.random() < 0.2:
                note.aliases = [f"{note.name.split()[0]} {rng.choice(WORDS)}"]
        count = max(3, self.n // 200)
        self.attachments = [
            f"attachments/{rng.choice(WORDS)}-{i}.{'pdf' if i % 4 == 3 or i == count - 1 else 'png'}"
            for i in range(count)
        ]

    def _name(self, folder: str, i: int) -> str:
        rng = self.rng
        if folder == "People/":
            return f"{rng.choice(PEOPLE)} {rng.choice(SURNAMES)}"
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 3))]
        name = " ".join(words).capitalize()
        return f"{name} ({i % 7})" if i % 11 == 0 else name  # punctuation in names

    # -- rendering ------------------------------------------------------------------------
    def link(self, source: Note) -> str:
        rng = self.rng
        self.counts["links"] += 1
        if rng.random() < MISSING_SHARE:
            self.counts["missing"] += 1
            return f"[[Nowhere {rng.randrange(10**6)}]]"
        target = rng.choice(self.notes)
        form = rng.randrange(13)
        if form in (5, 6, 7, 8):
            self.counts["embeds"] += 1
        if form == 0:
            return f"[[{target.name}]]"
        if form == 1:
            return f"[[{target.name}|{rng.choice(WORDS)}]]"
        if form == 2:
            return f"[[{target.path[:-3]}]]"
        if form == 3:
            return f"[[{target.name}#{target.headings[0]}]]"
        if form == 4 and target.blocks:
            return f"[[{target.name}#^{target.blocks[0]}]]"
        if form == 5:
            return f"![[{target.name}]]"
        if form == 6:
            return f"![[{target.name}#{target.headings[-1]}]]"
        if form == 7:
            return f"![[{rng.choice(self.attachments).rsplit('/', 1)[1]}]]"
        if form == 8:
            up = "../" * source.folder.count("/")
            return f"![{rng.choice(WORDS)}]({up}{self.attachments[0]})"
        if form == 9:
            up = "../" * source.folder.count("/")
            return f"[{target.name}]({up}{target.path.replace(' ', '%20')})"
        if form == 10:
            return f"[[{next((a for a in self.attachments if a.endswith('.pdf')), self.attachments[0])}]]"
        if form == 11 and target.aliases:
            return f"[[{target.name}|{target.aliases[0]}]]"  # how Obsidian writes a link by alias
        return f"[[{target.name.lower()}]]"  # names ignore case

    def render(self, note: Note) -> str:
        rng = self.rng
        head: list[str] = []
        if note.logseq and not note.daily:
            head = [f"type:: {rng.choice(WORDS)}", f"tags:: {rng.choice(TAGS)}", ""]
        elif note.aliases or rng.random() < FRONTMATTER_SHARE:  # an alias is frontmatter's
            fm = []
            if note.aliases:
                fm.append(
                    f"aliases: [{note.aliases[0]}]" if rng.random() < 0.5 else f"aliases: {note.aliases[0]}"
                )
            if rng.random() < 0.6:
                tags = rng.sample(TAGS, 2)
                fm.append(f"tags: [{', '.join(tags)}]" if rng.random() < 0.5 else f"tags: {tags[0]}")
            if rng.random() < 0.5:
                fm.append(f"created: 2023-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
            if rng.random() < 0.1:
                fm.append("cssclass: wide")
            head = ["---", *fm, "---"] if fm else []
        body: list[str] = []
        size = rng.randint(BODY_MIN, BODY_MAX)
        links = rng.randint(3, 10)
        headings = list(note.headings)
        blocks = list(note.blocks)
        while sum(len(line) + 1 for line in body) < size or links > 0:
            if headings and (not body or rng.random() < 0.15):
                body += [f"## {headings.pop(0)}", ""]
            sentence = rng.choice(SENTENCES).format(w=rng.choice(WORDS), v=rng.choice(WORDS))
            if links > 0:
                sentence += " See " + self.link(note) + "."
                links -= 1
            if rng.random() < 0.2:
                sentence += f" #{rng.choice(TAGS)}"
            if blocks and rng.random() < 0.3:
                sentence += f" ^{blocks.pop(0)}"
            if rng.random() < 0.1:
                body += [f"- {sentence}", f"- {rng.choice(WORDS)} {rng.choice(WORDS)}", ""]
            else:
                body += [sentence, ""]
            if rng.random() < 0.03:
                body += [CODE.format(w=rng.choice(WORDS)), ""]
        body += [f"## {h}\n" for h in headings]
        body += [f"Last thing. ^{b}\n" for b in blocks]
        return "\n".join([*head, *body]).rstrip("\n") + "\n"


def generate_notes(
    out_dir: str | os.PathLike[str], n: int, seed: int = 1, force: bool = False
) -> dict[str, Any]:
    """Write the notes vault; return a summary (counts, bytes, seconds)."""
    started = time.perf_counter()
    out = clear_output(out_dir, force)
    gen = NotesGenerator(n, seed)
    gen.plan()
    total = 0
    for note in gen.notes:
        path = out / note.path
        path.parent.mkdir(parents=True, exist_ok=True)
        data = gen.render(note).encode("utf-8")
        path.write_bytes(data)
        total += len(data)
    for rel in gen.attachments:
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(PDF if rel.endswith(".pdf") else PNG)
    (out / ".obsidian").mkdir(exist_ok=True)
    (out / ".obsidian" / "app.json").write_text('{"attachmentFolderPath": "attachments"}\n')
    (out / ".trash").mkdir(exist_ok=True)
    (out / ".trash" / "Deleted note.md").write_text("# Deleted\n\n[[Nowhere]]\n")
    summary: dict[str, Any] = {
        "generator": GENERATOR_VERSION,
        "mode": "notes",
        "notes": n,
        "seed": seed,
        "root": sum(note.folder == "" for note in gen.notes),
        "daily": sum(note.daily for note in gen.notes),
        "logseq": sum(note.logseq for note in gen.notes),
        "attachments": len(gen.attachments),
        **gen.counts,
        "bytes": total,
    }
    return mark_output(out, summary, started)
