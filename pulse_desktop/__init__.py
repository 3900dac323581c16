"""Pulse desktop: PySide6 views and Qt models over the core engine's commands."""
