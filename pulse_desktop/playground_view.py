"""Playground: test what the companion would recall for a query, in a given mood and body state.

Every query runs off the UI thread (the first call loads the embedder and the vector index; on a
shared machine a v3 query on the demo measured 0.2–0.6 s, far over the 50 ms a synchronous call
could afford). Queries run in a `workers.Job` on a private one-thread pool whose thread keeps
its own read-only Memory on `session.path` (SQLite connections never cross threads), so the
index stays warm between queries. The table shows exactly what `Memory.retrieve` returned:
`RAW_ROLE` gives the untouched value of every cell, "Copy as JSON" copies the output verbatim.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QDateTime,
    QModelIndex,
    QObject,
    QRectF,
    Qt,
    QTimeZone,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QKeySequence, QPainter, QPen, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSlider,
    QSpinBox,
    QSplitter,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from pulse_desktop import workers
from pulse_desktop.query_thread import run_job, run_query  # noqa: F401  (older imports)

try:  # written by the main-window engineer; the playground works without it
    from pulse_desktop.term_help import TERM_HELP
except Exception:  # noqa: BLE001 - missing or broken: no tooltips rather than no playground
    TERM_HELP: dict[str, str] = {}

EMOTIONS = ("joy", "sadness", "anger", "fear", "trust", "disgust", "anticipation", "surprise",
            "shame", "guilt")
DOMAINS = ("real", "fiction_content", "fiction_meta", "meta_authorial")
SCORERS = ("pulse", "dense", "v2", "cosine", "bm25")
# the scorer shown beside the chosen one when "compare" is on
COMPARE_WITH = {"pulse": "dense", "dense": "v2", "v2": "dense", "cosine": "pulse",
                "bm25": "pulse"}
HR_TRENDS = ("elevated_3d", "elevated_overnight", "normal", "lowered")
HRV_TRENDS = ("declining_3d", "stable", "rising")
UNSET = "unset"

# the breakdown in the order of CLI.md, then anything a scorer adds
TERM_ORDER = ("cosine", "relevance", "days_ago", "lambda", "recency", "confidence_floor",
              "recency_eff", "floor_applied", "alpha", "recency_factor", "emotion", "state",
              "anchor", "date", "base", "median_cosine", "max_cosine", "dense_relevance",
              "bm25", "bm25_norm", "fusion_dense_weight", "context_relevance", "context_weight",
              "via_chain")
FACTORS = ("relevance", "recency_factor", "emotion", "state", "anchor", "date")
FACTOR_COLOURS = {"relevance": "#4878b0", "recency_factor": "#c8ccd4", "emotion": "#d0603c",
                  "state": "#3e9a6a", "anchor": "#8a5cc0", "date": "#d9a520"}
RAW_ROLE = Qt.ItemDataRole.UserRole + 1      # the untouched value of a cell
TERMS_ROLE = Qt.ItemDataRole.UserRole + 2    # the whole result dict (for the bar delegate)

ADVANCED = (  # (settings field, label, kind, min, max, step/decimals)
    ("beta_emotion", "β emotion", float, 0.0, 5.0, 3),
    ("gamma_state", "γ state", float, 0.0, 5.0, 3),
    ("delta_anchor", "δ anchor", float, 0.0, 5.0, 3),
    ("delta_date", "δ date", float, 0.0, 5.0, 3),
    ("emotion_gate", "emotion gate", float, 0.0, 1.0, 3),
    ("hint_gate", "hint gate", float, 0.0, 1.0, 3),
    ("state_fit_entity", "state fit (life event)", float, 0.0, 1.0, 3),
    ("hybrid_dense_weight", "pulse dense weight", float, 0.0, 1.0, 3),
    ("context_weight", "pulse context weight", float, 0.0, 2.0, 3),
    ("anchor_top", "anchor top N", int, 0, 1000, 0),
    ("candidates_min", "candidates min", int, 0, 100000, 0),
    ("candidates_per_k", "candidates per k", int, 0, 1000, 0),
    ("chain_depth", "chain depth", int, 0, 50, 0),
)


def help_for(term: str) -> str:
    return TERM_HELP.get(term, "") if isinstance(TERM_HELP, dict) else ""


def iso_utc(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- the results table ---------------------------------------------------------------------

def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-3):
            return f"{value:.3e}"
        return f"{value:.4f}"
    return "" if value is None else str(value)


class ResultsModel(QAbstractTableModel):
    """One row per result; a column per term of the breakdown. RAW_ROLE = the value as returned."""

    FIXED = ("rank", "Δ", "id", "key", "title", "score", "factors")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.output: dict[str, Any] | None = None
        self.results: list[dict[str, Any]] = []
        self.terms: list[str] = []
        self.other_ranks: dict[int, int] | None = None   # id → rank in the compared list
        self.other_label = ""

    def set_output(self, output: dict[str, Any] | None, other: dict[str, Any] | None = None,
                   other_label: str = "") -> None:
        self.beginResetModel()
        self.output = output
        self.results = list(output["results"]) if output else []
        seen: list[str] = []
        for r in self.results:
            for name in r.get("terms", {}):
                if name not in seen:
                    seen.append(name)
        order = {name: i for i, name in enumerate(TERM_ORDER)}
        self.terms = sorted(seen, key=lambda n: (order.get(n, len(order)), n))
        self.other_ranks = ({int(r["id"]): i + 1 for i, r in enumerate(other["results"])}
                            if other is not None else None)
        self.other_label = other_label
        self.endResetModel()

    def columns(self) -> list[str]:
        return [*self.FIXED, *self.terms]

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.results)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.FIXED) + len(self.terms)

    def column_of(self, name: str) -> int:
        return self.columns().index(name)

    def rank_change(self, row: int) -> tuple[str, int | None]:
        """('▲2' | '▼1' | '=' | 'new', delta) against the compared list."""
        if self.other_ranks is None:
            return "", None
        rid = int(self.results[row]["id"])
        if rid not in self.other_ranks:
            return "new", None
        delta = self.other_ranks[rid] - (row + 1)
        return ("=" if delta == 0 else f"▲{delta}" if delta > 0 else f"▼{-delta}"), delta

    def raw(self, row: int, name: str) -> Any:
        r = self.results[row]
        if name == "rank":
            return row + 1
        if name == "Δ":
            return self.rank_change(row)[1]
        if name in ("id", "key", "title", "score"):
            return r.get(name)
        if name == "factors":
            return {f: r.get("terms", {}).get(f) for f in FACTORS}
        return r.get("terms", {}).get(name)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, name = index.row(), self.columns()[index.column()]
        r = self.results[row]
        if role == RAW_ROLE:
            return self.raw(row, name)
        if role == TERMS_ROLE:
            return r
        if role == Qt.ItemDataRole.DisplayRole:
            if name == "Δ":
                return self.rank_change(row)[0]
            if name == "factors":
                return None
            return _fmt(self.raw(row, name))
        if role == Qt.ItemDataRole.ToolTipRole:
            if name == "title":
                return f"{r.get('title')}\n\n{r.get('text') or ''}\n\n{r.get('ts')} · " \
                       f"{r.get('belief_class')} · {r.get('domain')}"
            if name == "factors":
                return factor_tooltip(r)
            if name == "Δ":
                text, delta = self.rank_change(row)
                if text == "new":
                    return f"not in the {self.other_label} top {len(self.other_ranks or {})}"
                if delta is not None:
                    return f"rank {row + 1} here, {self.other_ranks[int(r['id'])]} in " \
                           f"{self.other_label}"
                return None
            value = self.raw(row, name)
            return repr(value) if value is not None else None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if name in ("title", "key"):
                return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and name == "Δ":
            _, delta = self.rank_change(row)
            text = self.rank_change(row)[0]
            if text == "new" or (delta or 0) > 0:
                return QBrush(QColor("#2e7d32"))
            if (delta or 0) < 0:
                return QBrush(QColor("#c62828"))
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        cols = self.columns()
        if not 0 <= section < len(cols):
            return None
        name = cols[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"Δ {self.other_label}" if name == "Δ" and self.other_label else name
        if role == Qt.ItemDataRole.ToolTipRole:
            if name == "factors":
                return ("Each factor's share of the score: the base (relevance × recency_factor)"
                        " then what each boost (emotion, state, anchor, date) added; the pale "
                        "segment is what time took away.\n" + help_for("factors")).strip()
            if name == "Δ":
                return f"Rank change against {self.other_label or 'the other scorer'}: ▲ up, " \
                       "▼ down, new = not in its list"
            return help_for(name) or name
        return None


def factor_segments(result: dict[str, Any]) -> list[tuple[str, float]]:
    """Additive pieces of the score: base (relevance × recency_factor), then what each boost
    added in turn (score = base × emotion × state × anchor × date), then the share time took."""
    t = result.get("terms", {})
    if "relevance" not in t or "recency_factor" not in t:
        return [("relevance", float(result.get("score") or 0.0))]
    rel, rf = float(t["relevance"]), float(t["recency_factor"])
    running = rel * rf
    pieces = [("relevance", running)]
    for name in ("emotion", "state", "anchor", "date"):
        factor = float(t.get(name, 1.0))
        pieces.append((name, running * (factor - 1.0)))
        running *= factor
    pieces.append(("recency_factor", rel - rel * rf))   # lost to time (drawn pale, after)
    return pieces


def factor_tooltip(result: dict[str, Any]) -> str:
    t = result.get("terms", {})
    lines = [f"score {result.get('score')!r}"]
    for f in FACTORS:
        if f in t:
            lines.append(f"{f}: {t[f]!r}")
    if "relevance" in t:
        lines.append("score = relevance × recency_factor × emotion × state × anchor × date")
    return "\n".join(lines)


class FactorBarDelegate(QStyledItemDelegate):
    """A bar per result, its length the score relative to the best in the table, split into
    the factors' additive shares (FACTOR_COLOURS)."""

    def __init__(self, model: ResultsModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        super().paint(painter, option, index)
        result = index.data(TERMS_ROLE)
        if not result:
            return
        pieces = factor_segments(result)
        scale = max((float(r.get("terms", {}).get("relevance", r.get("score") or 0.0))
                     for r in self.model.results), default=0.0)
        scale = max(scale, max((float(r.get("score") or 0.0) for r in self.model.results),
                               default=0.0))
        if scale <= 0 or not math.isfinite(scale):
            return
        rect = QRectF(option.rect).adjusted(3, 4, -3, -4)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        x = rect.left()
        for name, value in pieces:
            if value <= 0:
                continue
            w = rect.width() * value / scale
            colour = QColor(FACTOR_COLOURS.get(name, "#999999"))
            painter.fillRect(QRectF(x, rect.top(), w, rect.height()), colour)
            x += w
        painter.setPen(QPen(QColor("#555555")))
        painter.drawRect(QRectF(rect.left(), rect.top(), rect.width() * float(result.get("score")
                                or 0.0) / scale, rect.height()))
        painter.restore()


def make_table(model: ResultsModel) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setItemDelegateForColumn(ResultsModel.FIXED.index("factors"), FactorBarDelegate(model, view))
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.verticalHeader().setVisible(False)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setStretchLastSection(False)
    return view


# -- the view ------------------------------------------------------------------------------

class _Level(QWidget):
    """A 0..1 slider that can be left unset (its checkbox off): unset values are not sent."""

    def __init__(self, name: str, tooltip: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.check = QCheckBox(name)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 100)
        self.slider.setEnabled(False)
        self.label = QLabel(UNSET)
        self.label.setMinimumWidth(34)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.check, 2)
        lay.addWidget(self.slider, 3)
        lay.addWidget(self.label)
        tip = tooltip or help_for(name)
        if tip:
            self.setToolTip(tip)
        self.check.toggled.connect(self._sync)
        self.slider.valueChanged.connect(self._sync)

    def _sync(self) -> None:
        self.slider.setEnabled(self.check.isChecked())
        self.label.setText(f"{self.slider.value() / 100:.2f}" if self.check.isChecked() else UNSET)

    def value(self) -> float | None:
        return self.slider.value() / 100 if self.check.isChecked() else None

    def set_value(self, value: float | None) -> None:
        self.check.setChecked(value is not None)
        if value is not None:
            self.slider.setValue(round(value * 100))
        self._sync()


def _unset_spin(minimum: float, maximum: float, decimals: int, step: float) -> QDoubleSpinBox:
    """A spin box whose lowest value reads "unset" (Qt's specialValueText)."""
    spin = QDoubleSpinBox()
    spin.setDecimals(decimals)
    spin.setRange(minimum - step, maximum)
    spin.setSingleStep(step)
    spin.setSpecialValueText(UNSET)
    spin.setValue(minimum - step)
    return spin


def _spin_value(spin: QDoubleSpinBox) -> float | None:
    return None if spin.value() <= spin.minimum() else spin.value()


class PlaygroundView(QWidget):
    """The Playground tab. Signals: resultsReady(dict) with the retrieve output of a finished
    query, explained(dict) with Memory.explain's output, failed(str) with a user message."""

    resultsReady = Signal(dict)
    explained = Signal(dict)
    failed = Signal(str)

    def __init__(self, session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.output: dict[str, Any] | None = None        # the last main retrieve output
        self.compare_output: dict[str, Any] | None = None
        self.last_explain: dict[str, Any] | None = None
        self._generation = 0
        self._running: workers.Job | None = None
        self._now_pinned = False
        self._build()
        session.opened.connect(self._memory_opened)
        session.changed.connect(self._memory_changed)
        self._memory_opened()

    # -- building ----------------------------------------------------------------------

    def _build(self) -> None:
        controls = QWidget()
        form = QVBoxLayout(controls)

        query_box = QGroupBox("Query")
        qf = QFormLayout(query_box)
        self.query_edit = QLineEdit()
        self.query_edit.setPlaceholderText("what would the companion recall for…")
        self.query_edit.returnPressed.connect(self.run_query)
        qf.addRow("Query", self.query_edit)
        self.top_k = QSpinBox()
        self.top_k.setRange(1, 200)
        self.top_k.setValue(10)
        qf.addRow("Top k", self.top_k)
        self.scorer_combo = QComboBox()
        self.scorer_combo.addItems(SCORERS)
        self.scorer_combo.setToolTip(help_for("scorer") or
                                     "pulse (default): dense + keyword relevance with recency "
                                     "and the mood, body, anchor and date factors; dense: the "
                                     "same on the embedding alone (was v3); v2: normalised "
                                     "relevance × recency; cosine and bm25: plain baselines")
        qf.addRow("Scorer", self.scorer_combo)
        now_row = QHBoxLayout()
        self.now_edit = QDateTimeEdit()
        self.now_edit.setDisplayFormat("yyyy-MM-dd HH:mm:ss 'UTC'")
        self.now_edit.setCalendarPopup(True)
        if hasattr(self.now_edit, "setTimeZone"):
            self.now_edit.setTimeZone(QTimeZone.utc())
        else:  # pragma: no cover - older Qt
            self.now_edit.setTimeSpec(Qt.TimeSpec.UTC)
        self.now_edit.setToolTip(help_for("now") or "the moment to score at (recency, dates)")
        self._set_now_widget(datetime.now(timezone.utc))
        self.now_edit.dateTimeChanged.connect(self._now_touched)
        now_button = QPushButton("Now")
        now_button.setToolTip("score at the current time (follows the clock)")
        now_button.clicked.connect(self.reset_now)
        now_row.addWidget(self.now_edit, 1)
        now_row.addWidget(now_button)
        qf.addRow("Now", now_row)
        self.chain_check = QCheckBox("Chain mode (follow event chains)")
        self.chain_check.setToolTip(help_for("chain") or "widen the list, then order it along "
                                    "the chains that link the ranked events, roots first")
        qf.addRow(self.chain_check)
        self.compare_check = QCheckBox("Compare with a second scorer")
        self.compare_check.setToolTip("pulse beside dense, dense beside v2, the baselines "
                                      "beside pulse")
        self.compare_check.setChecked(True)
        qf.addRow(self.compare_check)
        self.abstain_check = QCheckBox("Say when nothing is relevant")
        self.abstain_check.setChecked(True)
        self.abstain_check.setToolTip("unticked: always rank, even when nothing in the memory "
                                      "answers the query (pulse retrieve --no-abstain)")
        qf.addRow(self.abstain_check)
        form.addWidget(query_box)

        dom_box = QGroupBox("Allowed domains")
        dl = QVBoxLayout(dom_box)
        self.domain_checks: dict[str, QCheckBox] = {}
        for d in DOMAINS:
            box = QCheckBox(d)
            box.setChecked(True)
            box.setToolTip(help_for(d) or f"include events of the {d} domain")
            self.domain_checks[d] = box
            dl.addWidget(box)
        form.addWidget(dom_box)

        mood_box = QGroupBox("Mood (unchecked = unset, not sent)")
        ml = QVBoxLayout(mood_box)
        self.mood: dict[str, _Level] = {}
        for e in EMOTIONS:
            level = _Level(e)
            self.mood[e] = level
            ml.addWidget(level)
        form.addWidget(mood_box)

        body_box = QGroupBox("Body and life (unset = not sent; a value present opens gates)")
        bf = QFormLayout(body_box)
        self.stress = _Level("stress", help_for("stress_proxy") or "stress_proxy 0..1")
        bf.addRow(self.stress)
        self.sleep_quality = _Level("sleep quality", help_for("sleep_quality") or "0..1")
        bf.addRow(self.sleep_quality)
        self.sleep_hours = _unset_spin(0, 24, 1, 0.5)
        bf.addRow("Sleep hours", self.sleep_hours)
        self.hrv = _unset_spin(0, 300, 0, 1)
        self.hrv.setToolTip(help_for("hrv") or "heart-rate variability (ms); below 55 = stressed")
        bf.addRow("HRV", self.hrv)
        self.hr_trend = QComboBox()
        self.hr_trend.addItems([UNSET, *HR_TRENDS])
        bf.addRow("HR trend", self.hr_trend)
        self.hrv_trend = QComboBox()
        self.hrv_trend.addItems([UNSET, *HRV_TRENDS])
        bf.addRow("HRV trend", self.hrv_trend)
        self.snapshot_days = _unset_spin(0, 3650, 1, 1)
        self.snapshot_days.setToolTip(help_for("snapshot_days_ago") or
                                      "the date reference for the date factor")
        bf.addRow("Snapshot days ago", self.snapshot_days)
        self.life_events = QPlainTextEdit()
        self.life_events.setPlaceholderText("recent life events, one per line")
        self.life_events.setFixedHeight(70)
        bf.addRow("Recent life events", self.life_events)
        clear = QPushButton("Clear state")
        clear.clicked.connect(self.clear_state)
        bf.addRow(clear)
        form.addWidget(body_box)

        const_box = QGroupBox("Scorer constants")
        cf = QFormLayout(const_box)
        from core.memory import Memory

        defaults = Memory.scorer_defaults()
        self._defaults = defaults
        alpha_row = QHBoxLayout()
        self.alpha_slider = QSlider(Qt.Orientation.Horizontal)
        self.alpha_slider.setRange(0, 100)
        self.alpha_slider.setValue(round(defaults.alpha * 100))
        self.alpha_label = QLabel(f"{defaults.alpha:.2f}")
        self.alpha_slider.valueChanged.connect(
            lambda v: self.alpha_label.setText(f"{v / 100:.2f}"))
        self.alpha_slider.setToolTip(help_for("alpha") or "α: the share of relevance that time "
                                     "cannot take away (recency_factor = α + (1 − α)·recency_eff)")
        alpha_row.addWidget(self.alpha_slider, 1)
        alpha_row.addWidget(self.alpha_label)
        cf.addRow("α", alpha_row)
        self.advanced_box = QGroupBox("Advanced")
        self.advanced_box.setCheckable(True)
        self.advanced_box.setChecked(False)
        self.advanced_box.setToolTip("when checked, these constants override the defaults")
        af = QFormLayout(self.advanced_box)
        self.advanced: dict[str, QDoubleSpinBox | QSpinBox] = {}
        for name, label, kind, low, high, dec in ADVANCED:
            default = getattr(defaults, name)
            if kind is int:
                spin = QSpinBox()
                spin.setRange(int(low), int(high))
            else:
                spin = QDoubleSpinBox()
                spin.setDecimals(dec)
                spin.setRange(low, high)
                spin.setSingleStep(0.01)
            spin.setValue(default)
            spin.setToolTip(help_for(name) or f"{name} (default {default})")
            self.advanced[name] = spin
            af.addRow(label, spin)
        self.decay: dict[str, QDoubleSpinBox] = {}
        for cls, value in defaults.decay_per_day.items():
            spin = QDoubleSpinBox()
            spin.setDecimals(5)
            spin.setRange(0.0, 1.0)
            spin.setSingleStep(0.0005)
            spin.setValue(value)
            spin.setToolTip(help_for("lambda") or f"λ per day for {cls} (default {value})")
            self.decay[cls] = spin
            af.addRow(f"λ {cls}", spin)
        reset = QPushButton("Reset constants")
        reset.clicked.connect(self.reset_constants)
        af.addRow(reset)
        cf.addRow(self.advanced_box)
        form.addWidget(const_box)
        form.addStretch(1)

        scroll = QScrollArea()
        scroll.setWidget(controls)
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(330)

        # right side: actions, gates, tables, explain
        right = QWidget()
        rl = QVBoxLayout(right)
        actions = QHBoxLayout()
        self.run_button = QPushButton("Run query")
        self.run_button.setToolTip("Ctrl+Return")
        self.run_button.clicked.connect(self.run_query)
        self.copy_button = QPushButton("Copy as JSON")
        self.copy_button.setToolTip("copy exactly the retrieve output (Ctrl+Shift+C)")
        self.copy_button.clicked.connect(self.copy_json)
        self.copy_button.setEnabled(False)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        actions.addWidget(self.run_button)
        actions.addWidget(self.copy_button)
        actions.addWidget(self.status, 1)
        rl.addLayout(actions)
        self.gates_label = QLabel("Gates: —")
        self.gates_label.setWordWrap(True)
        self.gates_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.gates_label.setToolTip(help_for("gates") or "which conditional factors were open "
                                    "for this query, and the query actually embedded")
        rl.addWidget(self.gates_label)
        self.abstain_label = QLabel("")
        self.abstain_label.setObjectName("abstainNotice")
        self.abstain_label.setWordWrap(True)
        self.abstain_label.setStyleSheet("QLabel#abstainNotice { background: #fff4d6; "
                                         "border: 1px solid #d9a520; padding: 6px; }")
        self.abstain_label.setVisible(False)
        rl.addWidget(self.abstain_label)

        self.model = ResultsModel(self)
        self.table = make_table(self.model)
        self.compare_model = ResultsModel(self)
        self.compare_table = make_table(self.compare_model)
        self.main_caption = QLabel("Results")
        self.compare_caption = QLabel("Compared")
        left_pane, right_pane = QWidget(), QWidget()
        lp = QVBoxLayout(left_pane)
        lp.setContentsMargins(0, 0, 0, 0)
        lp.addWidget(self.main_caption)
        lp.addWidget(self.table)
        rp = QVBoxLayout(right_pane)
        rp.setContentsMargins(0, 0, 0, 0)
        rp.addWidget(self.compare_caption)
        rp.addWidget(self.compare_table)
        self.compare_pane = right_pane
        tables = QSplitter(Qt.Orientation.Horizontal)
        tables.addWidget(left_pane)
        tables.addWidget(right_pane)
        self.compare_check.toggled.connect(right_pane.setVisible)
        self.table.selectionModel().currentRowChanged.connect(
            lambda cur, _prev: self._row_selected(self.model, cur))
        self.compare_table.selectionModel().currentRowChanged.connect(
            lambda cur, _prev: self._row_selected(self.compare_model, cur))

        explain_box = QGroupBox("Explain an event (why it ranks where it does, or not at all)")
        el = QGridLayout(explain_box)
        self.explain_edit = QLineEdit()
        self.explain_edit.setPlaceholderText("event id or key, e.g. 17 or e001")
        self.explain_edit.returnPressed.connect(self.explain_event)
        explain_button = QPushButton("Explain")
        explain_button.setToolTip("Ctrl+Shift+E")
        explain_button.clicked.connect(self.explain_event)
        self.explain_text = QTextEdit()
        self.explain_text.setReadOnly(True)
        el.addWidget(self.explain_edit, 0, 0)
        el.addWidget(explain_button, 0, 1)
        el.addWidget(self.explain_text, 1, 0, 1, 2)

        vsplit = QSplitter(Qt.Orientation.Vertical)
        vsplit.addWidget(tables)
        vsplit.addWidget(explain_box)
        vsplit.setStretchFactor(0, 3)
        vsplit.setStretchFactor(1, 1)
        rl.addWidget(vsplit, 1)
        legend = QLabel(" ".join(f"<span style='color:{c}'>■</span> {n}"
                                 for n, c in FACTOR_COLOURS.items()))
        legend.setToolTip("colours of the factor bar; the pale part is what time took away")
        rl.addWidget(legend)

        outer = QSplitter(Qt.Orientation.Horizontal)
        outer.addWidget(scroll)
        outer.addWidget(right)
        outer.setStretchFactor(1, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(outer)

        ctx = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for keys, slot in (("Ctrl+Return", self.run_query), ("Ctrl+Enter", self.run_query),
                           ("Ctrl+Shift+C", self.copy_json), ("Ctrl+Shift+E", self.explain_event)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(ctx)
            shortcut.activated.connect(slot)

    # -- inputs ------------------------------------------------------------------------

    def _set_now_widget(self, moment: datetime) -> None:
        secs = int(moment.astimezone(timezone.utc).timestamp())
        self.now_edit.blockSignals(True)
        self.now_edit.setDateTime(QDateTime.fromSecsSinceEpoch(secs, QTimeZone.utc()))
        self.now_edit.blockSignals(False)

    def _now_touched(self) -> None:
        self._now_pinned = True

    def set_now(self, moment: datetime | str) -> None:
        """Score at this moment (tests and reproducible sessions)."""
        if isinstance(moment, str):
            moment = datetime.fromisoformat(moment.replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        self._set_now_widget(moment)
        self._now_pinned = True

    def reset_now(self) -> None:
        self._set_now_widget(datetime.now(timezone.utc))
        self._now_pinned = False

    def now_iso(self) -> str:
        if not self._now_pinned:
            self._set_now_widget(datetime.now(timezone.utc))
        secs = self.now_edit.dateTime().toSecsSinceEpoch()
        return iso_utc(datetime.fromtimestamp(secs, timezone.utc))

    def clear_state(self) -> None:
        for level in (*self.mood.values(), self.stress, self.sleep_quality):
            level.set_value(None)
        for spin in (self.sleep_hours, self.hrv, self.snapshot_days):
            spin.setValue(spin.minimum())
        self.hr_trend.setCurrentIndex(0)
        self.hrv_trend.setCurrentIndex(0)
        self.life_events.clear()

    def set_state(self, state: dict[str, Any]) -> None:
        """Fill the controls from a UserState dict (unknown keys are refused by parse_state)."""
        from core.memory import Memory

        Memory.parse_state(state)  # validate first: a bad dict changes nothing
        self.clear_state()
        for e, v in (state.get("mood_vector") or {}).items():
            self.mood[e].set_value(v)
        if state.get("stress_proxy") is not None:
            self.stress.set_value(state["stress_proxy"])
        if state.get("sleep_quality") is not None:
            self.sleep_quality.set_value(state["sleep_quality"])
        for key, spin in (("sleep_hours", self.sleep_hours), ("hrv", self.hrv),
                          ("snapshot_days_ago", self.snapshot_days)):
            if state.get(key) is not None:
                spin.setValue(state[key])
        if state.get("hr_trend"):
            self.hr_trend.setCurrentText(state["hr_trend"])
        if state.get("hrv_trend"):
            self.hrv_trend.setCurrentText(state["hrv_trend"])
        self.life_events.setPlainText("\n".join(state.get("recent_life_events_7d") or []))

    def state_dict(self) -> dict[str, Any] | None:
        """The UserState to send: only what was set (a present field opens gates)."""
        out: dict[str, Any] = {}
        mood = {e: level.value() for e, level in self.mood.items() if level.value() is not None}
        if mood:
            out["mood_vector"] = mood
        for key, level in (("stress_proxy", self.stress), ("sleep_quality", self.sleep_quality)):
            if level.value() is not None:
                out[key] = level.value()
        for key, spin in (("sleep_hours", self.sleep_hours), ("hrv", self.hrv),
                          ("snapshot_days_ago", self.snapshot_days)):
            value = _spin_value(spin)
            if value is not None:
                out[key] = value
        for key, combo in (("hr_trend", self.hr_trend), ("hrv_trend", self.hrv_trend)):
            if combo.currentText() != UNSET:
                out[key] = combo.currentText()
        events = [line.strip() for line in self.life_events.toPlainText().splitlines()
                  if line.strip()]
        if events:
            out["recent_life_events_7d"] = events
        return out or None

    def domains(self) -> list[str] | None:
        chosen = [d for d, box in self.domain_checks.items() if box.isChecked()]
        return None if len(chosen) == len(DOMAINS) else chosen

    def reset_constants(self) -> None:
        self.alpha_slider.setValue(round(self._defaults.alpha * 100))
        for name, spin in self.advanced.items():
            spin.setValue(getattr(self._defaults, name))
        for cls, spin in self.decay.items():
            spin.setValue(self._defaults.decay_per_day[cls])

    def settings_overrides(self) -> dict[str, Any] | None:
        """Only the constants that differ from the defaults."""
        out: dict[str, Any] = {}
        alpha = self.alpha_slider.value() / 100
        if abs(alpha - self._defaults.alpha) > 1e-12:
            out["alpha"] = alpha
        if self.advanced_box.isChecked():
            for name, spin in self.advanced.items():
                default = getattr(self._defaults, name)
                value = spin.value()
                if isinstance(spin, QSpinBox):
                    if value != default:
                        out[name] = int(value)
                elif abs(value - default) > 1e-12:
                    out[name] = float(value)
            decay = {cls: spin.value() for cls, spin in self.decay.items()
                     if abs(spin.value() - self._defaults.decay_per_day[cls]) > 1e-12}
            if decay:
                out["decay_per_day"] = decay
        return out or None

    def request_options(self, scorer: str | None = None) -> dict[str, Any]:
        """Exactly the keyword arguments given to Memory.retrieve (besides the query)."""
        options: dict[str, Any] = {"top_k": self.top_k.value(),
                                   "scorer": scorer or self.scorer_combo.currentText(),
                                   "now": self.now_iso(), "chain": self.chain_check.isChecked(),
                                   "domains": self.domains()}
        if not self.abstain_check.isChecked():
            options["abstain"] = False
        state = self.state_dict()
        if state is not None:
            options["state"] = state
        settings = self.settings_overrides()
        if settings is not None:
            options["settings"] = settings
        return options

    # -- running -----------------------------------------------------------------------

    def _say(self, text: str) -> None:
        self.status.setText(text)
        self.session.message.emit(text)

    def _fail(self, text: str) -> None:
        self.status.setText(f"⚠ {text}")
        self.session.message.emit(text)
        self.failed.emit(text)

    def _memory_opened(self) -> None:
        self.model.set_output(None)
        self.compare_model.set_output(None)
        self.output = self.compare_output = None
        self.copy_button.setEnabled(False)
        self.gates_label.setText("Gates: —")
        open_ = self.session.memory is not None
        self.run_button.setEnabled(open_)
        self.status.setText("" if open_ else "Open a memory to try queries.")

    def _memory_changed(self, what: str) -> None:
        if self.output is not None:
            self.status.setText("The memory changed: run the query again to refresh.")

    def run_query(self) -> None:
        query = self.query_edit.text().strip()
        path = self.session.path
        if path is None:
            self._fail("Open a memory first (File → Open or the demo memory).")
            return
        if not query:
            self._fail("Type a query first.")
            return
        if not any(box.isChecked() for box in self.domain_checks.values()):
            self._fail("Allow at least one domain.")
            return
        options = self.request_options()
        scorer = options["scorer"]
        compare = None
        if self.compare_check.isChecked():
            compare = COMPARE_WITH.get(scorer, "pulse")
        compare_options = {**options, "scorer": compare} if compare else None
        self._generation += 1
        generation = self._generation

        def work(memory):
            out = memory.retrieve(query, **options)
            other = memory.retrieve(query, **compare_options) if compare_options else None
            return out, other

        self.run_button.setEnabled(False)
        self._say(f"Running {scorer}…")
        run_query(path, work, lambda res: self._query_done(generation, query, res),
                  lambda text: self._query_failed(generation, text))

    def _query_failed(self, generation: int, text: str) -> None:
        if generation != self._generation:
            return
        self.run_button.setEnabled(self.session.memory is not None)
        self._fail(text)

    def _query_done(self, generation: int, query: str, res: tuple[dict, dict | None]) -> None:
        if generation != self._generation:
            return  # a newer query was started; drop this one
        self.run_button.setEnabled(self.session.memory is not None)
        out, other = res
        self.output, self.compare_output = out, other
        self.model.set_output(out, other, other["scorer"] if other else "")
        if other is not None:
            self.compare_model.set_output(other, out, out["scorer"])
        else:
            self.compare_model.set_output(None)
        self.compare_pane.setVisible(other is not None and self.compare_check.isChecked())
        self.main_caption.setText(self._caption(out))
        if other:
            self.compare_caption.setText(self._caption(other))
        self.abstain_label.setVisible(bool(out.get("abstained")))
        self.abstain_label.setText(
            f"Nothing relevant — {out['abstain_reason'].removeprefix('nothing relevant: ')}. "
            "A companion would say it does not remember; untick “Say when nothing is relevant” "
            "to rank anyway." if out.get("abstained") else "")
        self.gates_label.setText(self._gates_text(out))
        self.copy_button.setEnabled(True)
        self.table.resizeColumnsToContents()
        self.table.setColumnWidth(ResultsModel.FIXED.index("factors"), 160)
        self.table.setColumnWidth(ResultsModel.FIXED.index("title"), 220)
        self.compare_table.resizeColumnsToContents()
        self.compare_table.setColumnWidth(ResultsModel.FIXED.index("factors"), 160)
        self.compare_table.setColumnWidth(ResultsModel.FIXED.index("title"), 220)
        n = len(out["results"])
        if out.get("abstained"):
            self._say(f"Nothing relevant for {query!r} ({out['scorer']}): the memory abstained.")
        else:
            self._say(f"{n} result{'s' if n != 1 else ''} for {query!r} ({out['scorer']}, now "
                      f"{out['now']})" if n else f"No results for {query!r}: nothing relevant "
                      "enough in the allowed domains.")
        self.resultsReady.emit(out)

    @staticmethod
    def _caption(out: dict[str, Any]) -> str:
        if out.get("abstained"):
            return f"{out['scorer']} — nothing relevant"
        return f"{out['scorer']} — {len(out['results'])} results"

    @staticmethod
    def _gates_text(out: dict[str, Any]) -> str:
        g = out.get("gates") or {}
        if not g:
            return f"Gates: none for the {out.get('scorer')} scorer · effective query: " \
                   f"{out.get('effective_query', out.get('query'))!r}"
        parts = [f"emotion {'open' if g.get('emotion') else 'closed'}",
                 f"state {g.get('state') or 'closed'}",
                 f"date ref {g['date_ref_days']:g} d" if g.get("date_ref_days") is not None
                 else "date closed",
                 f"hint {g['hint']!r}" if g.get("hint") else "no hint"]
        return "Gates: " + " · ".join(parts) + \
               f" · effective query: {out.get('effective_query', out.get('query'))!r}"

    def _row_selected(self, model: ResultsModel, index: QModelIndex) -> None:
        if not index.isValid() or index.row() >= len(model.results):
            return
        event_id = int(model.results[index.row()]["id"])
        self.explain_edit.setText(str(model.results[index.row()].get("key") or event_id))
        self.session.select("event", event_id)

    def copy_json(self) -> None:
        if self.output is None:
            self._fail("Nothing to copy yet: run a query first.")
            return
        QGuiApplication.clipboard().setText(self.json_text())
        self._say("Copied the retrieve output as JSON.")

    def json_text(self) -> str:
        return json.dumps(self.output, ensure_ascii=False)

    def explain_event(self) -> None:
        ref = self.explain_edit.text().strip()
        query = self.query_edit.text().strip()
        path = self.session.path
        if path is None:
            self._fail("Open a memory first.")
            return
        if not ref or not query:
            self._fail("Give a query and an event id or key to explain.")
            return
        options = self.request_options()
        if options["scorer"] in ("cosine", "bm25"):
            options["scorer"] = "pulse"
            self._say("Explain works with pulse, dense and v2: explaining with pulse.")
        event: str | int = int(ref) if ref.isdigit() else ref
        self._generation += 1
        generation = self._generation

        def done(out: dict[str, Any]) -> None:
            if generation != self._generation:
                return
            self.last_explain = out
            self.explain_text.setPlainText(self._explain_text(out))
            self.explained.emit(out)

        def failed(text: str) -> None:
            if generation == self._generation:
                self.explain_text.setPlainText(f"⚠ {text}")
                self._fail(text)

        run_query(path, lambda memory: memory.explain(event, query, **options), done, failed)

    @staticmethod
    def _explain_text(out: dict[str, Any]) -> str:
        r = out["result"]
        head = f"#{r['id']} {r.get('key') or ''} — {r['title']}\n"
        where = (f"would rank {r['rank']} ({out['scorer']})" if not r.get("dropped")
                 else "dropped: its relevance is 0 for this query (below the median cosine)")
        if not r.get("allowed_by_domain", True):
            where += f"; its domain {r['domain']!r} is not allowed"
        lines = [head, where, f"score {r['score']!r}", ""]
        for name in sorted(r["terms"], key=lambda n: (TERM_ORDER.index(n)
                                                      if n in TERM_ORDER else 99, n)):
            lines.append(f"  {name:20} {r['terms'][name]!r}")
        lines += ["", PlaygroundView._gates_text(out)]
        return "\n".join(lines)
