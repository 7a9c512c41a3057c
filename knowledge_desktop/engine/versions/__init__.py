"""A record's past read back: the user's own Git beside the app's checkpoints, a version's
bytes, the record as it was at a commit or date, and diffs (issue 15, §1 last bullet and §2).

`when` turns a commit id or a date into a commit of one of the two repositories,
`user_git` walks the user's repository (read-only) for a file's commits, and
`record_at` parses a past version into the shape `Vault.show` gives. `VaultHistory`
(`engine/vault_history.py`) is the one entry callers use.
"""
