"""Code-symbol discovery (issue 31): the snapshot of a repository's modules and exports,
and the links documentation entities make to it (`defines-symbol`, `affected-fact`)."""
