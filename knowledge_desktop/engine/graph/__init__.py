"""The vault graph: what each record means in the context of its vault, kept up to date.

Parsing judges a file on its own; everything that needs the other files of a
partition is worked out here — the ontology's types, fields and filing,
duplicate ids, links, typed references and merge chains, evidence, and
eligibility (a record is shown by default only when it is valid, unique,
active, and so is everything it depends on). `vault_graph.VaultGraph` holds
one `node.RecordNode` and one `derived.Derived` per file; `rules` derives a
record through the lookups of `resolve.Resolver`, and `eligibility` settles
what depends on whom.

It is incremental. Deriving a record notes each *key* it read (a partition
path, a normalised title or alias, an id; see `keys`). A changed file touches
the keys it provides before and after the change, and exactly the records
that watched those keys are derived again, after which eligibility spreads
to dependents until it is stable. A full scan is the same step with every
file changed.

It is also small, because it stays in memory while the vault is open: at
100,000 files every hundred bytes per file is ten megabytes. A node keeps
compact values (tuples, interned names, no frontmatter mapping) and leaves
the full parse in the `files.node` column. What only a file's own derivation
and projection rows read — its `detail.Detail` and its derived findings — is
dropped once the rows are written and read back from that column when the
file is derived again. Indexes store an entry with a single member as the
bare path (see `indexes`).
"""
