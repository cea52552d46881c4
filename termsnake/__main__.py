"""Run termsnake as ``python -m termsnake``."""

import sys

from termsnake.commands.cli import main

sys.exit(main())
