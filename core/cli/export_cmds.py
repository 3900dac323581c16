"""Export commands (filled in by the export work)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    pass
