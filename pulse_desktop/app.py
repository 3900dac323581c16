"""Entry point of the desktop app (a placeholder window until the app issue lands)."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pulse-desktop")
    parser.add_argument("--db", help="memory file to open")
    args = parser.parse_args(argv)
    from PySide6.QtWidgets import QApplication, QLabel

    app = QApplication.instance() or QApplication(sys.argv[:1])
    label = QLabel(f"Pulse — {args.db or 'no memory open'}")
    label.resize(480, 120)
    label.show()
    return app.exec()
