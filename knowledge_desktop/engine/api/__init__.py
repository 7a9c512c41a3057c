"""The knowledge API's foundation for extensions and agents (issue 16; spec:
facts-entities-collections-api.md, where an extension is called a "gem").

What is here decides *who may do what* and stays independent of how facts and
documents are written: permission strings (`permissions`), extension
manifests (`manifest`), the predicate vocabulary (`predicates`,
`vocabulary_file`), installed extensions and their grants (`grants`),
opaque refs (`refs`), daily write quotas (`quotas`), and the one rule that
joins a predicate hint to a permission check (`access`). It never imports
`vault`: the facade above builds on it, not the other way round.
"""
