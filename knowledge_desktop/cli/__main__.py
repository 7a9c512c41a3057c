"""`python -m knowledge_desktop.cli ARGS`: the `knowledge` command."""

from knowledge_desktop.cli.dispatch import main

raise SystemExit(main())
