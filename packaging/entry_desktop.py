"""PyInstaller entry for `pulse-desktop` (the bundle's desktop executable)."""

import sys

from pulse_desktop.app import main

if __name__ == "__main__":
    sys.exit(main())
