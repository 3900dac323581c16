"""Qt's item roles, alignments and check states as plain values, looked up once.

A PySide6 enum member is found through two attribute lookups on the enum type each time it is
written (`Qt.ItemDataRole.DisplayRole`): 1–3 µs on this machine. A model's `data()` runs for
every role of every painted cell — a 1280×800 table asks ~1,600 times per repaint — so a data()
that compared its role with ten such names cost ~80 ms of the UI thread per repaint at 100k
events (bench/desktop_responsiveness.py). Models compare the role (an int) with these instead.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor

_R = Qt.ItemDataRole
DISPLAY = int(_R.DisplayRole.value)
DECORATION = int(_R.DecorationRole.value)
EDIT = int(_R.EditRole.value)
TOOLTIP = int(_R.ToolTipRole.value)
FONT = int(_R.FontRole.value)
ALIGNMENT = int(_R.TextAlignmentRole.value)
BACKGROUND = int(_R.BackgroundRole.value)
FOREGROUND = int(_R.ForegroundRole.value)
CHECK_STATE = int(_R.CheckStateRole.value)
ACCESSIBLE = int(_R.AccessibleTextRole.value)
USER = int(_R.UserRole.value)

_A = Qt.AlignmentFlag
ALIGN_LEFT = int((_A.AlignLeft | _A.AlignVCenter).value)
ALIGN_RIGHT = int((_A.AlignRight | _A.AlignVCenter).value)
ALIGN_CENTER = int(_A.AlignCenter.value)

CHECKED = Qt.CheckState.Checked
UNCHECKED = Qt.CheckState.Unchecked


_BRUSHES: dict[str, QBrush] = {}


def brush(colour: str) -> QBrush:
    """The brush of a colour, made once: a model's data() answers ForegroundRole per cell."""
    out = _BRUSHES.get(colour)
    if out is None:
        out = _BRUSHES[colour] = QBrush(QColor(colour))
    return out
