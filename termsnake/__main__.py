"""Run termsnake as ``python -m termsnake``."""

import sys

from termsnake.cli import main

sys.exit(main())
