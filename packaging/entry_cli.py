"""PyInstaller entry for `pulse` (the bundle's command line)."""

from core.cli import run

if __name__ == "__main__":
    run()
