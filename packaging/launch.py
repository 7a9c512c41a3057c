"""Entry point of the frozen window, `knowledge-desktop`.

`multiprocessing.freeze_support()` comes first: the scan's forkserver and its
resource tracker start this same executable with `-c …` arguments, and
freeze_support runs that code and exits instead of opening another window.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from knowledge_desktop.ui.app import main

    sys.exit(main())
