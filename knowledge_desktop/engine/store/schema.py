"""The tables of `state.sqlite`, in two families kept strictly apart.

*Projections* are rebuildable from the Markdown: they carry
`PROJECTION_VERSION`, and a database whose version differs has all of them
dropped and rebuilt (Zim's disposable index). *Durable* tables hold what the
Markdown cannot tell — store identity, the operation journal and receipts,
lifecycle guards, the Git outbox, history — and no rebuild ever drops them
(spec: retrieval-and-dates, "Do not drop state.sqlite").
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

# 8: notes (issue 25); 9: the catalog label index (issue 26); 10: the graph snapshot a rowid table;
# 11: records' search text stored once, packed (issue 26)
_SCHEMA_GENERATION = "catalog-11"

# Code whose output the projections store: when any of it changes (an
# upgrade, a fix in a validator), every projection is rebuilt from the
# Markdown instead of trusting rows the old code wrote.
_PROJECTION_SOURCES = (
    "reading.py",
    "fs/walk.py",
    "fs/read.py",
    "records",
    "links",
    "ontology",
    "graph",
    "diagnostics.py",
    "store/projections",
    "store/schema.py",
    "store/codec.py",
    "semantic/chunks.py",
)


STAMPED_FINGERPRINT = "code_fingerprint.txt"
"""Written beside this module by the bundle's build (packaging/knowledge-desktop.spec): a
frozen app has no engine sources to hash, and its version number alone would let an index
built by an older bundle of the same version pass as current."""


def _code_fingerprint() -> str:
    stamped = Path(__file__).with_name(STAMPED_FINGERPRINT)
    if stamped.is_file():
        return stamped.read_text("ascii").strip()
    engine = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    files: list[Path] = []
    for name in _PROJECTION_SOURCES:
        target = engine / name
        files.extend(sorted(target.rglob("*.py")) if target.is_dir() else [target])
    for path in files:
        try:
            digest.update(path.read_bytes())
        except OSError:  # sources gone and no stamp (a bundle built some other way)
            from importlib.metadata import PackageNotFoundError, version

            try:
                return "release-" + version("knowledge-desktop")
            except PackageNotFoundError:
                return "release-unknown"
    default = engine.parent.parent / "resources" / "ontology" / "knowledge-default.yaml"
    if default.is_file():
        digest.update(default.read_bytes())
    return digest.hexdigest()[:16]


PROJECTION_VERSION = f"{_SCHEMA_GENERATION}:{_code_fingerprint()}"

PROJECTION_TABLES = (
    "files",
    "graph_snapshot_v1",
    "catalog",
    "catalog_counts",
    "catalog_names",
    "links",
    "refs",
    "evidence",
    "diagnostics",
    "ontology_state",
    "keyword_state_v1",
    "keyword_pending_v1",
    "temporal_v1",
    "associations_v1",
    "facts_v1",
    "note_text_fts_v1",
    "note_text_store_v1",
    "note_text_rows_v1",
    "note_text_pending_v1",
    "note_names_v1",
    "semantic_pending_v1",
    "semantic_chunks_v1",
    "semantic_records_v1",
    "semantic_state_v1",
    "semantic_changes_v1",
    "projection_meta",
)


def keyword_suffix(scope: str) -> str:
    """A table-name suffix for a scope: SQLite names are case-insensitive, so only
    lowercase names are used as they are; anything else is hashed."""
    if re.match(r"^[a-z0-9_]{1,40}$", scope):
        return scope
    return "x" + hashlib.sha256(scope.encode("utf-8")).hexdigest()[:16]


def keyword_tables(scope: str) -> list[str]:
    s = keyword_suffix(scope)
    return [
        f"keyword_fts_v1_{s}",
        f"keyword_rows_v1_{s}",
        f"keyword_history_fts_v1_{s}",
        f"keyword_history_rows_v1_{s}",
        f"keyword_weights_v1_{s}",
        f"keyword_lengths_v1_{s}",
        f"keyword_tags_v1_{s}",
        f"keyword_text_v1_{s}",
        f"keyword_history_text_v1_{s}",
    ]


PROJECTION_VIEWS = ("note_text_view_v1",)
"""Views over projection tables, dropped with them."""

DYNAMIC_PROJECTION_PREFIXES = (
    "keyword_fts_v1_",
    "keyword_rows_v1_",
    "keyword_history_fts_v1_",
    "keyword_history_rows_v1_",
    "keyword_weights_v1_",
    "keyword_lengths_v1_",
    "keyword_tags_v1_",
    "keyword_text_v1_",
    "keyword_history_text_v1_",
    "keyword_textview_v1_",
    "keyword_history_textview_v1_",
)
"""Per-scope tables (and the views over their text), created as partitions appear; dropped
with the projections."""

CATALOG_LABEL = (
    "coalesce(title, substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)) COLLATE NOCASE"
)
"""The label a catalog row shows (its title, else what follows the path's last '/'), as
the catalog pane sorts by it. The index `catalog_label` below is on this very expression:
SQLite uses an expression index only for a query that spells the expression the same way,
so `query.catalog_tree` sorts by this constant."""

PROJECTIONS_SQL = """
CREATE TABLE IF NOT EXISTS projection_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

-- parse cache: what each file looked like when last read, and what parse made of it
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY,
    scope TEXT,
    entry_kind TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    node TEXT
);

-- what the graph keeps of each Markdown file once written (graph/snapshot.py),
-- so a reopened vault restores its graph instead of deriving it again. A rowid table:
-- WITHOUT ROWID keeps at most ~1,000 bytes of a row on its page, and the longer rows
-- (the JSON is 740 bytes on average) spilled to overflow pages, half of the table unused
CREATE TABLE IF NOT EXISTS graph_snapshot_v1 (
    path TEXT PRIMARY KEY,
    state TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS catalog (
    path TEXT PRIMARY KEY,
    scope TEXT,
    status TEXT NOT NULL,          -- record | unrecognized
    id TEXT,
    kind TEXT,
    type TEXT,
    title TEXT,
    revision INTEGER,
    lifecycle TEXT,
    valid INTEGER NOT NULL,
    duplicate INTEGER NOT NULL,
    deps_ok INTEGER NOT NULL,
    eligible INTEGER NOT NULL,     -- valid, unique, active, dependencies available
    active_from TEXT,              -- current only from here (inclusive), own or a dependency's
    active_until TEXT,             -- current only before this (exclusive)
    recorded_at TEXT,
    updated_at TEXT,
    aliases TEXT NOT NULL,         -- JSON list
    tags TEXT NOT NULL,            -- JSON list
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    warnings INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS catalog_id ON catalog(scope, id);
CREATE INDEX IF NOT EXISTS catalog_bare_id ON catalog(id);
CREATE INDEX IF NOT EXISTS catalog_problems ON catalog(scope) WHERE status='unrecognized' OR valid=0;
CREATE INDEX IF NOT EXISTS catalog_kind ON catalog(kind, type);
-- covers the catalog pane's counts tree and its per-type pages (GROUP BY without a sort)
CREATE INDEX IF NOT EXISTS catalog_tree ON catalog(scope, kind, type, status, valid);
-- a type branch's pages in title order, read from the index at any depth (issue 26 §3).
-- The expression is CATALOG_LABEL, which the query must spell the same way
CREATE INDEX IF NOT EXISTS catalog_label ON catalog(
    scope, kind, type, status,
    coalesce(title, substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)) COLLATE NOCASE,
    path
);

-- normalised titles and aliases, for exact lookup
CREATE TABLE IF NOT EXISTS catalog_names (
    path TEXT NOT NULL,
    name TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS catalog_names_name ON catalog_names(name);
CREATE INDEX IF NOT EXISTS catalog_names_path ON catalog_names(path);

CREATE TABLE IF NOT EXISTS links (
    src_path TEXT NOT NULL,
    scope TEXT,
    line INTEGER NOT NULL,
    link_kind TEXT NOT NULL,       -- wiki | markdown, and a note's embed | image
    target_text TEXT NOT NULL,
    label TEXT,
    status TEXT NOT NULL,          -- resolved | missing | ambiguous | outside | broken-merge
    target_id TEXT,
    target_path TEXT
);
CREATE INDEX IF NOT EXISTS links_src ON links(src_path);
CREATE INDEX IF NOT EXISTS links_target ON links(scope, target_id);
CREATE INDEX IF NOT EXISTS links_target_path ON links(target_path);
-- the few links an extension's record view re-resolves (api/link_view.py, extra_backlinks)
CREATE INDEX IF NOT EXISTS links_unsure ON links(scope) WHERE status IN ('ambiguous', 'broken-merge');

CREATE TABLE IF NOT EXISTS refs (
    src_path TEXT NOT NULL,
    scope TEXT,
    field TEXT NOT NULL,
    target_id TEXT NOT NULL,
    resolved_id TEXT,
    status TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS refs_src ON refs(src_path);
CREATE INDEX IF NOT EXISTS refs_target ON refs(scope, resolved_id);

CREATE TABLE IF NOT EXISTS evidence (
    src_path TEXT NOT NULL,
    idx INTEGER NOT NULL,
    source TEXT,
    path TEXT,
    url TEXT,
    line_start INTEGER,
    line_end INTEGER,
    status TEXT NOT NULL,          -- verified | unverified | offline
    reason TEXT
);
CREATE INDEX IF NOT EXISTS evidence_src ON evidence(src_path);

CREATE TABLE IF NOT EXISTS diagnostics (
    path TEXT NOT NULL,
    code TEXT NOT NULL,
    severity TEXT NOT NULL,
    line INTEGER,
    record_id TEXT,
    message TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS diagnostics_path ON diagnostics(path);

-- dated facts of records and who/what they are about (spec: Dates and Chronicle)
CREATE TABLE IF NOT EXISTS temporal_v1 (
    path TEXT NOT NULL,
    scope TEXT,
    field TEXT NOT NULL,           -- occurred_at | recorded_at | updated_at | due_at
    value TEXT NOT NULL,           -- as written
    start TEXT NOT NULL,           -- UTC, inclusive
    end TEXT NOT NULL,             -- UTC, exclusive (a date covers its whole UTC day)
    date_only INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS temporal_field_start ON temporal_v1(field, start);
CREATE INDEX IF NOT EXISTS temporal_path ON temporal_v1(path);

CREATE TABLE IF NOT EXISTS associations_v1 (
    path TEXT NOT NULL,
    scope TEXT,
    entity_id TEXT NOT NULL,       -- resolved through merges
    via TEXT NOT NULL              -- entities | owner | from | to | source | source_event
);
CREATE INDEX IF NOT EXISTS associations_entity ON associations_v1(entity_id, via);
CREATE INDEX IF NOT EXISTS associations_path ON associations_v1(path);

-- facts of the knowledge API: claims with a `fact:` mapping (issue 16)
CREATE TABLE IF NOT EXISTS facts_v1 (
    path TEXT NOT NULL,
    scope TEXT,
    claim_id TEXT NOT NULL,
    subject_id TEXT NOT NULL,      -- entities[0], resolved through merges
    predicate TEXT NOT NULL,
    value TEXT NOT NULL,           -- JSON
    object_id TEXT,                -- resolved through merges
    origin TEXT,
    valid_from TEXT,
    lifecycle TEXT NOT NULL,
    eligible INTEGER NOT NULL,     -- as the catalog's
    active_from TEXT,
    active_until TEXT
);
CREATE INDEX IF NOT EXISTS facts_subject ON facts_v1(scope, subject_id, predicate);
CREATE INDEX IF NOT EXISTS facts_claim ON facts_v1(scope, claim_id);
CREATE INDEX IF NOT EXISTS facts_path ON facts_v1(path);

-- files whose search text the next search must (re)index or drop
CREATE TABLE IF NOT EXISTS keyword_pending_v1 (
    path TEXT PRIMARY KEY,
    scope TEXT NOT NULL
);

-- the search text of notes, vault-wide (store/projections/note_text.py, keyword tokenizer)
-- the body stored once, packed (store/packed.py): FTS5 reads the text through the view
CREATE TABLE IF NOT EXISTS note_text_store_v1 (
    id INTEGER PRIMARY KEY, title TEXT, aliases TEXT, tags TEXT, body);
CREATE VIEW IF NOT EXISTS note_text_view_v1 AS
    SELECT id, title, aliases, tags, kd_unpack(body) AS body FROM note_text_store_v1;
CREATE VIRTUAL TABLE IF NOT EXISTS note_text_fts_v1 USING fts5(
    title, aliases, tags, body, content='note_text_view_v1', content_rowid='id',
    tokenize='unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS note_text_rows_v1 (
    rowid INTEGER PRIMARY KEY,
    path TEXT UNIQUE NOT NULL,
    scope TEXT,                    -- NULL for a note outside every partition
    title TEXT,
    tags TEXT NOT NULL,            -- JSON list, as the catalog's
    body_line INTEGER NOT NULL,    -- 1-based file line where the body starts
    sha256 TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS note_text_pending_v1 (path TEXT PRIMARY KEY);
-- the names a note answers to (file name, title, aliases), normalised as catalog_names
CREATE TABLE IF NOT EXISTS note_names_v1 (
    name TEXT NOT NULL,
    path TEXT NOT NULL,
    PRIMARY KEY (name, path)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS note_names_v1_path ON note_names_v1(path);

CREATE TABLE IF NOT EXISTS keyword_state_v1 (
    scope TEXT PRIMARY KEY,
    generation INTEGER NOT NULL,   -- bumped on every change: the search snapshot
    indexed_at TEXT,
    scanned_at TEXT
);

-- search by meaning (store/projections/semantic.py): files whose passages the next search
-- by meaning must (re)embed or drop, each passage's place and start, each file's float16
-- vectors, per scope a generation (bumped when its vectors change) and, under scope '', the
-- model that made them
CREATE TABLE IF NOT EXISTS semantic_pending_v1 (
    path TEXT PRIMARY KEY,
    scope TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS semantic_chunks_v1 (
    rowid INTEGER PRIMARY KEY,
    scope TEXT NOT NULL,
    path TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    chunk INTEGER NOT NULL,        -- 0-based, as documents.get counts chunks
    line_start INTEGER NOT NULL,   -- 1-based file lines of the passage
    line_end INTEGER NOT NULL,
    text TEXT NOT NULL             -- the passage's start, for a snippet
);
CREATE INDEX IF NOT EXISTS semantic_chunks_path ON semantic_chunks_v1(path);
CREATE INDEX IF NOT EXISTS semantic_chunks_scope ON semantic_chunks_v1(scope, path, chunk);
-- per embedded file, the first stage of a search by meaning (query/hybrid.py) reads
-- `vector`, the second `passages`
CREATE TABLE IF NOT EXISTS semantic_records_v1 (
    path TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    vector BLOB NOT NULL,          -- float16 x dim, unit length: its passages' mean
    passages BLOB NOT NULL         -- float16 x dim per passage, unit length, in chunk order
);
CREATE INDEX IF NOT EXISTS semantic_records_scope ON semantic_records_v1(scope, path);
CREATE TABLE IF NOT EXISTS semantic_state_v1 (
    scope TEXT PRIMARY KEY,
    generation INTEGER NOT NULL,
    model TEXT,
    logged INTEGER                 -- semantic_changes_v1 lists every change after this generation
);
-- per scope, the files whose vectors each generation changed, so the copy a search holds
-- in memory is patched rather than read again (query/semantic_held.py); the newest only
CREATE TABLE IF NOT EXISTS semantic_changes_v1 (
    scope TEXT NOT NULL,
    generation INTEGER NOT NULL,
    path TEXT NOT NULL,
    PRIMARY KEY (scope, generation, path)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS ontology_state (
    scope TEXT PRIMARY KEY,
    name TEXT,
    version TEXT,
    fingerprint TEXT,
    chain TEXT NOT NULL,           -- JSON [[name, path], ...]
    failure TEXT,                  -- JSON {path, line, message} or NULL
    sources TEXT NOT NULL          -- JSON {path: sha256} of the manifests read
);
"""

DURABLE_SQL = """
CREATE TABLE IF NOT EXISTS store_identity (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    request_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    scope TEXT,
    payload TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS receipts (
    request_id TEXT PRIMARY KEY,
    payload_sha256 TEXT NOT NULL,
    receipt TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS provenance (
    scope TEXT NOT NULL,
    record_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    agent_id TEXT NOT NULL,
    journal_seq INTEGER,
    PRIMARY KEY (scope, record_id, revision)
);

CREATE TABLE IF NOT EXISTS keyword_withdrawals_v1 (
    scope TEXT NOT NULL,
    record_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    withdrawn_at TEXT NOT NULL,
    PRIMARY KEY (scope, record_id)
);

CREATE TABLE IF NOT EXISTS lifecycle_guards_v1 (
    scope TEXT NOT NULL,
    record_id TEXT NOT NULL,
    guard TEXT NOT NULL,            -- superseded | withdrawn
    by_id TEXT,
    request_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (scope, record_id, guard)
);

-- every change to a guard bumps store_identity.guards_version, whoever writes it, so a
-- reconciler tells with one row whether the guards it applied still hold (store/guards.py)
CREATE TRIGGER IF NOT EXISTS lifecycle_guards_v1_ins AFTER INSERT ON lifecycle_guards_v1
BEGIN
    INSERT INTO store_identity(key, value) VALUES ('guards_version', '1')
    ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER IF NOT EXISTS lifecycle_guards_v1_del AFTER DELETE ON lifecycle_guards_v1
BEGIN
    INSERT INTO store_identity(key, value) VALUES ('guards_version', '1')
    ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER IF NOT EXISTS lifecycle_guards_v1_upd AFTER UPDATE ON lifecycle_guards_v1
BEGIN
    INSERT INTO store_identity(key, value) VALUES ('guards_version', '1')
    ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER IF NOT EXISTS keyword_withdrawals_v1_ins AFTER INSERT ON keyword_withdrawals_v1
BEGIN
    INSERT INTO store_identity(key, value) VALUES ('guards_version', '1')
    ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER IF NOT EXISTS keyword_withdrawals_v1_del AFTER DELETE ON keyword_withdrawals_v1
BEGIN
    INSERT INTO store_identity(key, value) VALUES ('guards_version', '1')
    ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;

CREATE TABLE IF NOT EXISTS git_outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    journal_seq INTEGER NOT NULL,
    state TEXT NOT NULL,            -- pending | committed | failed
    commit_id TEXT,
    created_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS history (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    scope TEXT,
    record_id TEXT NOT NULL,
    revision INTEGER,
    sha256 TEXT,
    event TEXT NOT NULL,
    journal_seq INTEGER,
    at TEXT NOT NULL
);
"""


def _catalog_counts_sql() -> str:
    """The catalog counted by what the status bar shows (`catalog_counts`), kept by triggers
    as rows come and go, so that counting a million files reads a few dozen rows, not a
    million (issue 26 §3: a full count took 3-5 s after every edit). A windowed row's
    eligibility depends on the time of asking: those are counted live, through
    `catalog_windowed`. A REPLACE deletes the row it replaces without firing delete
    triggers (recursive triggers are off), so a BEFORE INSERT trigger takes the replaced
    row off the count. A count that falls to 0 goes: the table is what a fresh build makes."""
    key = "scope, status, kind, valid, duplicate, eligible, windowed"

    def of(row: str) -> str:
        return (
            f"coalesce({row}.scope, ''), {row}.status, coalesce({row}.kind, ''), {row}.valid,"
            f" {row}.duplicate, {row}.eligible,"
            f" {row}.active_from IS NOT NULL OR {row}.active_until IS NOT NULL"
        )

    def less(values: str) -> str:
        return (
            f"UPDATE catalog_counts SET n = n - 1 WHERE ({key}) = ({values});"
            " DELETE FROM catalog_counts WHERE n = 0;"
        )

    more = f"INSERT INTO catalog_counts VALUES ({of('NEW')}, 1) ON CONFLICT DO UPDATE SET n = n + 1;"
    replaced = f"SELECT {of('catalog')} FROM catalog WHERE path = NEW.path"
    return f"""
CREATE TABLE IF NOT EXISTS catalog_counts (
    scope TEXT NOT NULL,
    status TEXT NOT NULL,
    kind TEXT NOT NULL,
    valid INTEGER NOT NULL,
    duplicate INTEGER NOT NULL,
    eligible INTEGER NOT NULL,
    windowed INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY ({key})
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS catalog_windowed ON catalog(active_from, active_until)
    WHERE eligible AND (active_from IS NOT NULL OR active_until IS NOT NULL);
CREATE TRIGGER IF NOT EXISTS catalog_counts_replaced BEFORE INSERT ON catalog
WHEN EXISTS (SELECT 1 FROM catalog WHERE path = NEW.path)
BEGIN {less(replaced)} END;
CREATE TRIGGER IF NOT EXISTS catalog_counts_ins AFTER INSERT ON catalog BEGIN {more} END;
CREATE TRIGGER IF NOT EXISTS catalog_counts_del AFTER DELETE ON catalog BEGIN {less(of("OLD"))} END;
CREATE TRIGGER IF NOT EXISTS catalog_counts_upd
AFTER UPDATE OF scope, status, kind, valid, duplicate, eligible, active_from, active_until ON catalog
BEGIN {less(of("OLD"))} {more} END;
"""


PROJECTIONS_SQL += _catalog_counts_sql()


def _logged_trigger(table: str, event: str, *rows: str) -> tuple[str, str]:
    """Migration 8's guard trigger on `table` for `event`: it bumps `guards_version` and, in
    the same trigger (so the order SQLite fires triggers in cannot matter), logs the record of
    each of `rows` (`NEW`, `OLD`) under the version it just wrote. It replaces the trigger of
    the same name `DURABLE_SQL` made, so that one is never made again."""
    name = f"{table}_{event[:3].lower()}"
    logs = "".join(
        f"""
                INSERT INTO guard_changes_v1(version, scope, record_id)
                SELECT CAST(value AS INTEGER), {row}.scope, {row}.record_id FROM store_identity
                WHERE key = 'guards_version';"""
        for row in rows
    )
    return (
        f"DROP TRIGGER IF EXISTS {name}",
        f"""CREATE TRIGGER {name} AFTER {event} ON {table}
            BEGIN
                INSERT INTO store_identity(key, value) VALUES ('guards_version', '1')
                ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;{logs}
            END""",
    )


DURABLE_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1 (the write side, docs/writing.md): a journal entry's state, actor, plan and outcome;
    # the bytes before and after of every file it writes, so `resume` can roll forward or
    # back after a crash; and the hash a provenance row was written for.
    (
        "ALTER TABLE journal ADD COLUMN payload_sha256 TEXT",
        "ALTER TABLE journal ADD COLUMN actor TEXT",
        "ALTER TABLE journal ADD COLUMN target_id TEXT",
        "ALTER TABLE journal ADD COLUMN state TEXT NOT NULL DEFAULT 'pending'",
        "ALTER TABLE journal ADD COLUMN plan TEXT",
        "ALTER TABLE journal ADD COLUMN outcome TEXT",
        "ALTER TABLE journal ADD COLUMN finished_at TEXT",
        "ALTER TABLE journal ADD COLUMN reviewed_at TEXT",
        "CREATE INDEX IF NOT EXISTS journal_request ON journal(request_id)",
        "CREATE INDEX IF NOT EXISTS journal_state ON journal(state)",
        """CREATE TABLE IF NOT EXISTS journal_files (
            seq INTEGER NOT NULL,
            idx INTEGER NOT NULL,
            path TEXT NOT NULL,
            record_id TEXT,
            revision INTEGER,
            old_sha256 TEXT,
            old_data BLOB,
            new_sha256 TEXT NOT NULL,
            new_data BLOB NOT NULL,
            PRIMARY KEY (seq, idx)
        )""",
        "ALTER TABLE provenance ADD COLUMN sha256 TEXT",
    ),
    # 2 (history, issue 15): why a queued checkpoint is still pending.
    ("ALTER TABLE git_outbox ADD COLUMN reason TEXT",),
    # 3 (history, issue 15): the index of every checkpointed version (disposable: rebuilt
    # from the repository, engine/history/index.py), the history settings and indexed
    # head, and the paths outside edits changed, waiting for an observed checkpoint.
    (
        """CREATE TABLE IF NOT EXISTS checkpoint_paths (
            commit_id TEXT NOT NULL,
            ord INTEGER NOT NULL,
            at TEXT NOT NULL,
            author TEXT,
            operation TEXT,
            source TEXT NOT NULL,
            path TEXT NOT NULL,
            record_id TEXT,
            blob TEXT,
            sha256 TEXT,
            revision INTEGER,
            reason TEXT,
            PRIMARY KEY (ord, path)
        )""",
        "CREATE INDEX IF NOT EXISTS checkpoint_paths_record ON checkpoint_paths(record_id, ord)",
        "CREATE INDEX IF NOT EXISTS checkpoint_paths_path ON checkpoint_paths(path, ord)",
        "CREATE TABLE IF NOT EXISTS history_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """CREATE TABLE IF NOT EXISTS observed_outbox (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            path TEXT NOT NULL,
            noted_at TEXT NOT NULL
        )""",
    ),
    # 4 (knowledge API, issue 16): installed extensions (their manifest, partition and ref
    # key), the permissions a person turned on, and each extension's writes per local day
    # (engine/api/grants.py, quotas.py; docs/decisions.md).
    (
        """CREATE TABLE IF NOT EXISTS extensions_v1 (
            name TEXT PRIMARY KEY,
            scope TEXT NOT NULL,
            manifest TEXT NOT NULL,
            secret BLOB NOT NULL,
            installed_at TEXT NOT NULL
        )""",
        """CREATE TABLE IF NOT EXISTS extension_grants_v1 (
            name TEXT NOT NULL,
            permission TEXT NOT NULL,
            granted_at TEXT NOT NULL,
            PRIMARY KEY (name, permission)
        )""",
        """CREATE TABLE IF NOT EXISTS extension_quota_v1 (
            name TEXT NOT NULL,
            day TEXT NOT NULL,
            writes INTEGER NOT NULL,
            chars INTEGER NOT NULL,
            PRIMARY KEY (name, day)
        )""",
    ),
    # 5 (knowledge API, issue 16): the refs handed to each extension, so resolving one is an
    # index lookup (engine/api/refs.py RefBook); derivable from the key, kept to save the scan.
    (
        """CREATE TABLE IF NOT EXISTS extension_refs_v1 (
            name TEXT NOT NULL,
            ref TEXT NOT NULL,
            kind TEXT NOT NULL,
            record_id TEXT NOT NULL,
            PRIMARY KEY (name, ref)
        ) WITHOUT ROWID""",
    ),
    # 6 (knowledge API, issue 16): the run a journal entry belongs to, so that a change list
    # groups by run and `changes.revert` undoes a run's entries together.
    (
        "ALTER TABLE journal ADD COLUMN run_id TEXT",
        "CREATE INDEX IF NOT EXISTS journal_run ON journal(run_id)",
    ),
    # 7 (knowledge API, issue 16): the folders a person ticked for an extension
    # (`collections.*:user-selected`), by the id of the collection marker the folder holds, so a
    # tick follows the folder wherever it is moved (engine/api/collections.py).
    (
        """CREATE TABLE IF NOT EXISTS extension_selected_v1 (
            name TEXT NOT NULL,
            collection_id TEXT NOT NULL,
            PRIMARY KEY (name, collection_id)
        ) WITHOUT ROWID""",
    ),
    # 8 (issue 16): the log of guard changes, so a reconciler reads only the guards that changed
    # since the version it follows rather than every guard (store/guards.py `changed_paths`). Each
    # guard trigger is replaced by one that bumps `guards_version` and then logs the changed record
    # with the version it bumped to (one trigger doing both, so the order triggers fire in cannot
    # matter; same names, so DURABLE_SQL's `IF NOT EXISTS` leaves them be). `guard_changes_floor`:
    # the log holds every change of a version above it (here: the version now; pruning raises it).
    (
        """CREATE TABLE IF NOT EXISTS guard_changes_v1 (
            version INTEGER NOT NULL,
            scope TEXT NOT NULL,
            record_id TEXT NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS guard_changes_version ON guard_changes_v1(version)",
        """INSERT OR REPLACE INTO store_identity(key, value) SELECT 'guard_changes_floor',
            COALESCE((SELECT value FROM store_identity WHERE key = 'guards_version'), '0')""",
        *_logged_trigger("lifecycle_guards_v1", "INSERT", "NEW"),
        *_logged_trigger("lifecycle_guards_v1", "DELETE", "OLD"),
        *_logged_trigger("lifecycle_guards_v1", "UPDATE", "OLD", "NEW"),
        *_logged_trigger("keyword_withdrawals_v1", "INSERT", "NEW"),
        *_logged_trigger("keyword_withdrawals_v1", "DELETE", "OLD"),
    ),
)
"""Changes to the durable tables, applied in order, each once (`store_identity`
'durable_schema' counts those applied). Durable tables are altered, never dropped:
append a migration, never edit one that shipped."""

DURABLE_TABLES = (
    "store_identity",
    "journal",
    "journal_files",
    "receipts",
    "provenance",
    "keyword_withdrawals_v1",
    "lifecycle_guards_v1",
    "git_outbox",
    "history",
    "history_meta",
    "observed_outbox",
    "extensions_v1",
    "extension_grants_v1",
    "extension_quota_v1",
    "extension_refs_v1",
    "extension_selected_v1",
    "guard_changes_v1",
)
