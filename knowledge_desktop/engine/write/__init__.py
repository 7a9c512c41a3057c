"""The write side: every change to the vault's Markdown goes through one publish path.

An operation (save a page, withdraw a claim, merge two pages…) never writes
files itself. It reads the current state and returns a `Plan`: the exact
bytes each file will hold, the fence each file must still match, and the
durable guard rows to add or lift. `publish` (the one path) journals the
intent, checks every fence again, writes the files atomically, reconciles
the projections, records the guards and marks the journal entry published,
then returns a `Receipt`. See `docs/writing.md`.
"""
