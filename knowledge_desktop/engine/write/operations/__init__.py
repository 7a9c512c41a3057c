"""Lifecycle operations: correct, withdraw, supersede (and its undo), merge, unmerge, annotate.

Each is a planner: given the `WriteContext` the publish path hands it, it
reads the records its fences name, checks the rules of its spec section
(corrections-and-merges) and returns a `Plan` — the exact new bytes of every
file, the durable guards to add or lift, and what the receipt lists — or
raises `WriteRejected`. None of them writes a file.
"""
