"""Search by meaning: the embedding model behind one small interface (`model`) and how a
record's text is cut into the passages it embeds (`chunks`). Nothing here touches SQLite:
the projection (`store/projections/semantic.py`) and the ranking (`query/hybrid.py`) do."""
