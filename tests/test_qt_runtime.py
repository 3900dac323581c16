"""The pinned Qt binding must not leak references to None or True.

PySide6 6.12.0 on Python 3.11 returns None from every void method without taking a reference
(and True from Signal.emit), so a few thousand calls — one timeline repaint — abort the
interpreter with "deallocating None". The lock pins 6.11.3; this test stops an upgrade back
into the bug."""

from __future__ import annotations

import sys


def test_void_calls_and_emits_keep_singleton_refcounts() -> None:
    from PySide6.QtCore import QObject, Signal
    from PySide6.QtGui import QColor

    class Emitter(QObject):
        fired = Signal(int)

    emitter = Emitter()
    colour = QColor(0, 0, 0)
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(500):
        colour.setAlpha(1)
        emitter.fired.emit(1)
    assert abs(sys.getrefcount(None) - none_before) < 50
    assert abs(sys.getrefcount(True) - true_before) < 50
