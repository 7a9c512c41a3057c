"""Entry point of the frozen app: `multiprocessing.freeze_support()` first, so the
scan's worker processes start inside the bundle instead of re-running the window."""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from knowledge_desktop.ui.app import main

    sys.exit(main())
