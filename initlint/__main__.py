import sys

from initlint.safety import clean_sys_path

# `python -m` puts the working directory first on sys.path: in a checked repository a file
# named like a standard module (signal.py, pickle.py, ...) would be imported instead of it.
sys.path[:] = clean_sys_path(sys.path)

from initlint.cli import main  # noqa: E402 -- only once the path is clean

raise SystemExit(main())
