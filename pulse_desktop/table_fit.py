"""Tables that fit their view: every column as wide as its header and its values need, one
column (a title, a note) taking what is left, optional columns stepping aside when the view is
narrow, and — only if that is still not enough — the widest columns squeezed (their cells
elide; the tooltip holds the whole text). No table scrolls sideways."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QHeaderView, QTableView

SAMPLE_ROWS = 60
SQUEEZE_MIN = 48


def natural_width(table: QTableView, col: int, sample: str | None = None) -> int:
    model = table.model()
    header = table.horizontalHeader()
    bold = QFont(header.font())
    bold.setBold(True)
    text = model.headerData(col, Qt.Orientation.Horizontal) if model is not None else ""
    need = QFontMetrics(bold).horizontalAdvance(str(text or "")) + 18
    metrics = QFontMetrics(table.font())
    values = [sample] if sample else []
    if model is not None and not sample:
        for row in range(min(model.rowCount(), SAMPLE_ROWS)):
            value = model.index(row, col).data(Qt.ItemDataRole.DisplayRole)
            if value is not None:
                values.append(str(value))
    for value in values:
        need = max(need, metrics.horizontalAdvance(value) + 14)
    return need


def header_width(table: QTableView, col: int) -> int:
    """What a column's header needs (its longest line, bold)."""
    model = table.model()
    text = str(model.headerData(col, Qt.Orientation.Horizontal) or "") if model else ""
    bold = QFont(table.horizontalHeader().font())
    bold.setBold(True)
    metrics = QFontMetrics(bold)
    return max((metrics.horizontalAdvance(line) for line in text.split("\n")), default=0) + 18


def fit_columns(table: QTableView, stretch: int, *, minimum: int = 120,
                optional: Iterable[int] = (), samples: dict[int, str] | None = None,
                caps: dict[int, int] | None = None, fixed: dict[int, int] | None = None,
                hidden: Iterable[int] = ()) -> None:
    """Lay the columns out in the view's width (see the module docstring). `optional`
    columns step aside one by one, the first first; `hidden` ones never show; `fixed` gives a
    column's width outright."""
    model = table.model()
    available = table.viewport().width()
    if model is None or available <= 0:
        return
    samples, caps, fixed = samples or {}, caps or {}, fixed or {}
    optional = list(optional)
    off = set(hidden)
    cols = [c for c in range(model.columnCount()) if c != stretch and c not in off]
    widths = {c: fixed.get(c) or min(caps.get(c, 10_000), natural_width(table, c, samples.get(c)))
              for c in cols}
    for c in optional:
        if sum(w for k, w in widths.items() if k not in off) + minimum <= available:
            break
        off.add(c)
    for c in range(model.columnCount()):
        table.setColumnHidden(c, c in off)
    widths = {c: w for c, w in widths.items() if c not in off}
    rest = available - sum(widths.values())
    floors = {c: min(widths[c], max(SQUEEZE_MIN, header_width(table, c))) for c in widths}
    # the view never gets narrower than the headers need: the layout gives it the room;
    # optional columns are not counted, they step aside on a narrow window (1024 px)
    frame = 2 * table.frameWidth() + table.verticalScrollBar().sizeHint().width()
    if table.verticalHeader().isVisible():
        frame += table.verticalHeader().width()
    stretch_floor = min(minimum, header_width(table, stretch) + 40)
    least = sum(w for c, w in floors.items() if c not in optional) + stretch_floor + frame + 2
    if table.minimumWidth() != least:
        table.setMinimumWidth(least)
    if rest < minimum:
        for c in sorted(widths, key=lambda c: -widths[c]):
            cut = min(minimum - rest, max(0, widths[c] - floors[c]))
            widths[c] -= cut
            rest += cut
            if rest >= minimum:
                break
    header = table.horizontalHeader()
    header.setStretchLastSection(False)
    for c, w in widths.items():
        header.setSectionResizeMode(c, QHeaderView.ResizeMode.Interactive)
        table.setColumnWidth(c, w)
    header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Interactive)
    table.setColumnWidth(stretch, max(stretch_floor, rest))


class FitOnResize(QObject):
    """Refit a table whenever its view is resized or its rows change."""

    def __init__(self, table: QTableView, stretch: int, **options) -> None:
        super().__init__(table)
        self.table, self.stretch, self.options = table, stretch, options
        table.viewport().installEventFilter(self)
        model = table.model()
        if model is not None:
            model.modelReset.connect(self.fit)
            model.rowsInserted.connect(self.fit)

    paused = False      # e.g. while a table shows every column and may scroll sideways
    _stale = False      # rows changed while the table was out of sight: fit when shown

    def fit(self, *_args) -> None:
        if self.paused:
            return
        try:
            if not self.table.isVisible() and self.table.window().isVisible():
                # in a tab not shown: measuring its cells now is UI-thread time nobody sees
                # (the Playground re-ranks after every pin); it fits when its tab is shown
                self._stale = True
                return
            self._stale = False
            options = {k: (v() if callable(v) else v) for k, v in self.options.items()}
            fit_columns(self.table, self.stretch, **options)
        except RuntimeError:      # the table is being torn down (its model resets last)
            pass

    def eventFilter(self, obj, event) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Resize or (kind == QEvent.Type.Show and self._stale):
            self.fit()
        return False
