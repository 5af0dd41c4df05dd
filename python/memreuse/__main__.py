"""``python -m memreuse ARGS...`` runs the ``memreuse`` command line with ARGS.

The command line is its own program (it owns the cache, the daemon and the terminal), so
this hands over to it: ``$MEMREUSE_BIN`` if set, else ``memreuse`` on ``PATH``
(``cargo install --path cli`` in the repository puts it there). The process is replaced,
so the exit code is the command's.
"""

from __future__ import annotations

import os
import shutil
import sys


def main() -> int:
    binary = os.environ.get("MEMREUSE_BIN") or shutil.which("memreuse")
    if binary is None:
        print(
            "error: the memreuse command line is not installed: set MEMREUSE_BIN to its path, "
            "or run `cargo install --path cli` in the memreuse repository",
            file=sys.stderr,
        )
        return 2
    os.execv(binary, [binary, *sys.argv[1:]])
    return 0  # not reached: execv replaces the process


if __name__ == "__main__":
    sys.exit(main())
