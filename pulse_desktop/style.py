"""Colours shared by every view (the same domain colours as the graph page) and a light QSS."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QColor, QIcon
from PySide6.QtWidgets import QLabel

ICON_DIR = Path(__file__).resolve().parent.parent / "resources" / "icons"

# Same as resources/viewer/viewer.js, so a domain looks the same in the graph and in Qt.
# Colour-blind safe (pulse_desktop/colour_vision.py): every pair stays ≥ 12 ΔE2000 apart for
# normal vision, protanopia and deuteranopia; a letter or a label goes with each anyway.
DOMAIN_COLORS = {"real": "#3b7dd8", "fiction_content": "#e0674a", "fiction_meta": "#cc79a7",
                 "meta_authorial": "#23a37f"}
DOMAIN_NAMES = {"real": "Real life", "fiction_content": "Fiction · content",
                "fiction_meta": "Fiction · meta", "meta_authorial": "Authorial"}
DOMAIN_LETTERS = {"real": "R", "fiction_content": "F", "fiction_meta": "M",
                  "meta_authorial": "A"}
CLASS_COLORS = {"axiom": "#b03a48", "self_model": "#7a5bd0", "user_model": "#1f9e89",
                "operational": "#5f6b7a", "hypothesis": "#c98a1b"}
# A pinned axiom is what a person calls a core wound: the UI says that, with the class beside.
CLASS_NAMES = {"axiom": "Core wound · axiom", "self_model": "Self model",
               "user_model": "User model", "operational": "Operational",
               "hypothesis": "Hypothesis"}
CLASS_LETTERS = {"axiom": "C", "self_model": "S", "user_model": "U", "operational": "O",
                 "hypothesis": "H"}
# Plutchik's eight plus shame and guilt, chosen to stay apart for colour-blind eyes too:
# every pair ≥ 15 ΔE2000 under a protanopia and a deuteranopia simulation (docs/desktop.md).
# Each emotion also has a letter, drawn in its timeline dot and in every legend.
EMOTION_COLORS = {"joy": "#f6b906", "trust": "#778f6a", "fear": "#63b1b1",
                  "surprise": "#759fff", "sadness": "#3e398e", "disgust": "#7b31ff",
                  "anger": "#e34800", "anticipation": "#e3c0a0", "shame": "#945b76",
                  "guilt": "#68382d"}
EMOTION_LETTERS = {"joy": "J", "trust": "T", "fear": "F", "surprise": "U", "sadness": "S",
                   "disgust": "D", "anger": "A", "anticipation": "N", "shame": "H",
                   "guilt": "G"}
NEUTRAL = "#9aa4b1"


def class_name(cls: str | None) -> str:
    """The belief class as the UI says it ("Core wound · axiom", "Self model", …)."""
    return CLASS_NAMES.get(cls or "", (cls or "").replace("_", " "))


def ink_on(hex_code: str) -> QColor:
    """Black or white, whichever reads better on this colour."""
    c = QColor(hex_code)
    luminance = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF()
    return QColor("#1f2733") if luminance > 0.55 else QColor("#ffffff")


def letter_icon(letter: str, hex_code: str, size: int = 16) -> QIcon:
    """A rounded square of the colour with its letter in it (sharp at 200 % too)."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QFont, QPainter, QPixmap

    scale = 2
    pix = QPixmap(size * scale, size * scale)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QColor(hex_code))
    p.drawRoundedRect(QRectF(0, 0, size * scale, size * scale), 3 * scale, 3 * scale)
    font = QFont()
    font.setBold(True)
    font.setPixelSize(round(size * scale * 0.7))
    p.setFont(font)
    p.setPen(ink_on(hex_code))
    p.drawText(QRectF(0, 0, size * scale, size * scale), Qt.AlignmentFlag.AlignCenter, letter)
    p.end()
    pix.setDevicePixelRatio(scale)
    return QIcon(pix)
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
QTabBar::tab { background: transparent; color: #4a5566; padding: 7px 8px; margin-right: 1px;
               border: 1px solid transparent; border-top-left-radius: 6px;
               border-top-right-radius: 6px; }
QTabBar::tab:selected { background: #ffffff; color: #1f2733; border-color: #dfe3ec;
                        border-bottom-color: #ffffff; font-weight: 600; }
QTabBar::tab:hover:!selected { color: #1f2733; background: #eceff6; }
QLineEdit, QComboBox, QDoubleSpinBox, QSpinBox {
    background: #ffffff; border: 1px solid #d3d9e4; border-radius: 5px; padding: 4px 6px; }
QLineEdit:focus, QComboBox:focus, QDoubleSpinBox:focus, QSpinBox:focus,
QDateTimeEdit:focus, QPlainTextEdit:focus, QTextEdit:focus {
    border: 2px solid #4f6fe0; padding: 3px 5px; }
QPushButton, QToolButton { background: #ffffff; border: 1px solid #cfd6e2; border-radius: 5px;
                           padding: 5px 11px; color: #1f2733; }
QPushButton:hover, QToolButton:hover { background: #eef2fb; border-color: #a9b6d6; }
QPushButton:pressed, QToolButton:pressed, QToolButton:checked { background: #dfe6f8; }
QPushButton:disabled, QToolButton:disabled { color: #9aa4b1; background: #f3f4f7; }
QPushButton:focus, QToolButton:focus { border: 2px solid #4f6fe0; padding: 4px 10px; }
QPushButton#primary { background: #4f6fe0; color: #ffffff; border-color: #4f6fe0; font-weight: 600; }
QPushButton#primary:hover { background: #3f5fd4; }
QPushButton#primary:focus { border: 2px solid #1f2f7a; }
QCheckBox:focus, QRadioButton:focus, QGroupBox:focus { background: #e4e9fb; border-radius: 3px; }
QSlider:focus { background: #e4e9fb; border-radius: 3px; }
QTabBar:focus { background: #e4e9fb; }
QTabBar::tab:selected:focus { border: 2px solid #4f6fe0; border-bottom-color: #ffffff; }
QListView, QTreeView, QTableView, QTextBrowser {
    background: #ffffff; border: 1px solid #dfe3ec; border-radius: 6px;
    selection-background-color: #dbe4ff; selection-color: #1f2733; }
QListView:focus, QTreeView:focus, QTableView:focus, QTextBrowser:focus {
    border: 2px solid #4f6fe0; }
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
QAbstractSpinBox { padding-right: 20px; }
QAbstractSpinBox::up-button, QAbstractSpinBox::down-button {
    subcontrol-origin: border; width: 18px; border-left: 1px solid #d3d9e4; background: #f6f7fb; }
QAbstractSpinBox::up-button { subcontrol-position: top right; border-top-right-radius: 5px; }
QAbstractSpinBox::down-button { subcontrol-position: bottom right;
                                border-bottom-right-radius: 5px; }
QAbstractSpinBox::up-button:hover, QAbstractSpinBox::down-button:hover { background: #e4e9fb; }
QAbstractSpinBox::up-arrow { image: url(@@icons@@/arrow-up.svg); width: 9px; height: 6px; }
QAbstractSpinBox::down-arrow { image: url(@@icons@@/arrow-down.svg); width: 9px; height: 6px; }
QStatusBar { background: #eef0f6; color: #4a5566; }
QSplitter::handle { background: #f6f7fb; }
QMenu { background: #ffffff; border: 1px solid #dfe3ec; }
QMenu::item { padding: 5px 22px; }
QMenu::item:selected { background: #e8edff; color: #1f2733; }
""".replace("@@icons@@", ICON_DIR.as_posix())


def notice_banner() -> QLabel:
    """A hidden, word-wrapped yellow strip a tab shows when part of it cannot work."""
    from PySide6.QtWidgets import QLabel

    banner = QLabel()
    banner.setWordWrap(True)
    banner.setStyleSheet("QLabel { background: #fff3cd; padding: 6px; }")
    banner.setVisible(False)
    return banner
