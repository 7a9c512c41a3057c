"""The write operations: each reads the current state through a `WriteContext` and returns a
`Plan` for the one publish path (`write/publish.py`). One module per concern: `create` (new
pages, claims and relationships), `pages` (saving a page, editing its body); the lifecycle
operations (correct, withdraw, supersede, merge, unmerge, annotate) sit beside them."""
