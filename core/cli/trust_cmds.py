"""Trust commands (filled in by the trust work)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    pass
