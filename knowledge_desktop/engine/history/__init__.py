"""The checkpoint engine (issue 15, §1): the app's own bare Git repository, trees changed
path by path, an index of every checkpointed version in `state.sqlite`, observed outside
edits and the first checkpoint's baseline.

Below `write`, which commits publications through it; it never imports `write`.
"""
