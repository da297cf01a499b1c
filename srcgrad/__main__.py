"""`python -m srcgrad ...`: the command line (see srcgrad/cli.py)."""

from .cli import main

raise SystemExit(main())
