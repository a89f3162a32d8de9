"""`python -m mpcc ...` is the `mpcc` command."""

import sys

from .cli import main

sys.exit(main())
