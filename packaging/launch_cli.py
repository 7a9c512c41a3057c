"""Entry point of the frozen command, `knowledge` (beside `knowledge-desktop` in the bundle).

`multiprocessing.freeze_support()` comes first for the same reason as in
launch.py: a scan big enough for worker processes restarts this executable
as its forkserver, which must run the forkserver, not the command line.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from knowledge_desktop.cli import main

    sys.exit(main())
