"""A dialog that grows when a line appears in it (an error, a warning, a result).

Qt does not grow a shown window when its layout needs more height, and QWidget.adjustSize()
stops a window at 2/3 of the screen's height (533 px on a 1280×800 screen): the layout then
squeezes the word-wrapped labels and the fields, and their text is cut."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget


def grow_to_fit(window: QWidget) -> None:
    """Make the window as tall as its layout needs at its width, within the screen."""
    layout = window.layout()
    if layout is not None:
        layout.activate()
    needed = max(window.heightForWidth(window.width()), window.sizeHint().height())
    screen = window.screen()
    room = screen.availableGeometry().height() if screen is not None else needed
    if window.height() < needed:
        window.resize(window.width(), min(needed, room))
