"""Colours shared by every view (the same domain colours as the graph page) and a light QSS."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QColor, QIcon
from PySide6.QtWidgets import QLabel

ICON_DIR = Path(__file__).resolve().parent.parent / "resources" / "icons"

# Same as resources/viewer/viewer.js, so a domain looks the same in the graph and in Qt.
DOMAIN_COLORS = {"real": "#3b7dd8", "fiction_content": "#e0674a", "fiction_meta": "#8b62c9",
                 "meta_authorial": "#23a37f"}
DOMAIN_NAMES = {"real": "Real life", "fiction_content": "Fiction · content",
                "fiction_meta": "Fiction · meta", "meta_authorial": "Authorial"}
CLASS_COLORS = {"axiom": "#b03a48", "self_model": "#7a5bd0", "user_model": "#3b7dd8",
                "operational": "#5f6b7a", "hypothesis": "#c98a1b"}
CLASS_NAMES = {"axiom": "Axiom", "self_model": "Self model", "user_model": "User model",
               "operational": "Operational", "hypothesis": "Hypothesis"}
# Plutchik's wheel colours, plus shame and guilt.
EMOTION_COLORS = {"joy": "#f2c12e", "trust": "#7cb342", "fear": "#2e8b6a", "surprise": "#2fa3c4",
                  "sadness": "#4a6fc2", "disgust": "#8e5bb5", "anger": "#e0493b",
                  "anticipation": "#f08c2e", "shame": "#c2577f", "guilt": "#8d6e63"}
NEUTRAL = "#9aa4b1"
ACCENT = "#4f6fe0"


def color(hex_code: str, alpha: int = 255) -> QColor:
    c = QColor(hex_code)
    c.setAlpha(alpha)
    return c


def app_icon() -> QIcon:
    icon = QIcon()
    for name in ("pulse.svg", "pulse.png"):
        path = ICON_DIR / name
        if path.exists():
            icon.addFile(str(path))
    return icon


QSS = """
QMainWindow, QDialog { background: #f6f7fb; }
QWidget { font-size: 10pt; }
QTabWidget::pane { border: 1px solid #dfe3ec; border-radius: 6px; background: #ffffff; top: -1px; }
QTabBar::tab { background: transparent; color: #4a5566; padding: 7px 10px; margin-right: 1px;
               border: 1px solid transparent; border-top-left-radius: 6px;
               border-top-right-radius: 6px; }
QTabBar::tab:selected { background: #ffffff; color: #1f2733; border-color: #dfe3ec;
                        border-bottom-color: #ffffff; font-weight: 600; }
QTabBar::tab:hover:!selected { color: #1f2733; background: #eceff6; }
QLineEdit, QComboBox, QDoubleSpinBox, QSpinBox {
    background: #ffffff; border: 1px solid #d3d9e4; border-radius: 5px; padding: 4px 6px; }
QLineEdit:focus, QComboBox:focus, QDoubleSpinBox:focus { border-color: #4f6fe0; }
QPushButton, QToolButton { background: #ffffff; border: 1px solid #cfd6e2; border-radius: 5px;
                           padding: 5px 11px; color: #1f2733; }
QPushButton:hover, QToolButton:hover { background: #eef2fb; border-color: #a9b6d6; }
QPushButton:pressed, QToolButton:pressed, QToolButton:checked { background: #dfe6f8; }
QPushButton:disabled, QToolButton:disabled { color: #9aa4b1; background: #f3f4f7; }
QPushButton#primary { background: #4f6fe0; color: #ffffff; border-color: #4f6fe0; font-weight: 600; }
QPushButton#primary:hover { background: #3f5fd4; }
QListView, QTreeView, QTableView, QTextBrowser {
    background: #ffffff; border: 1px solid #dfe3ec; border-radius: 6px;
    selection-background-color: #dbe4ff; selection-color: #1f2733; }
QTableView { gridline-color: #eef0f5; alternate-background-color: #fafbfd; }
QHeaderView::section { background: #f3f5fa; color: #4a5566; border: none;
                       border-bottom: 1px solid #dfe3ec; padding: 5px 6px; font-weight: 600; }
QLabel#sectionTitle { color: #4a5566; font-weight: 600; font-size: 9pt;
                      text-transform: uppercase; letter-spacing: 1px; }
QLabel#banner { background: #fff4e0; color: #7a4a00; border: 1px solid #f0c36d;
                border-radius: 6px; padding: 7px 10px; }
QLabel#brushChip { background: #e8edff; color: #2c3e8c; border-radius: 9px; padding: 2px 8px; }
QLabel#invariant { background: #eef2fb; color: #2c3e8c; border: 1px solid #cdd7f3;
                   border-radius: 6px; padding: 6px 9px; }
QLabel#dialogError { color: #b3261e; }
QLabel#danger { background: #fdecea; color: #8c1d18; border: 1px solid #f1b5ae;
                border-radius: 6px; padding: 7px 10px; }
QPushButton#destructive { background: #c62828; color: #ffffff; border-color: #c62828;
                          font-weight: 600; }
QPushButton#destructive:disabled { background: #f0c9c6; color: #ffffff; border-color: #f0c9c6; }
QStatusBar { background: #eef0f6; color: #4a5566; }
QSplitter::handle { background: #f6f7fb; }
QMenu { background: #ffffff; border: 1px solid #dfe3ec; }
QMenu::item { padding: 5px 22px; }
QMenu::item:selected { background: #e8edff; color: #1f2733; }
"""


def notice_banner() -> QLabel:
    """A hidden, word-wrapped yellow strip a tab shows when part of it cannot work."""
    from PySide6.QtWidgets import QLabel

    banner = QLabel()
    banner.setWordWrap(True)
    banner.setStyleSheet("QLabel { background: #fff3cd; padding: 6px; }")
    banner.setVisible(False)
    return banner
