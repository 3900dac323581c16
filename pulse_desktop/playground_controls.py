"""The playground's context panel: when the question is asked ("now"), which domains count, chain
mode, whether to say "nothing relevant", the person's mood and body, and the scorer's
constants. Every label is a plain name; the spec's symbol (α, β, λ…) is in the tooltip.
Only what is set is sent: an unset value opens no gate."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from PySide6.QtCore import QDateTime, Qt, QTimeZone
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSlider,
    QSpinBox,
    QStyle,
    QStyleOptionSlider,
    QVBoxLayout,
    QWidget,
)

from pulse_desktop.numbers import sig
from pulse_desktop.style import DOMAIN_NAMES, EMOTION_COLORS, EMOTION_LETTERS, class_name
from pulse_desktop.term_help import TERM_HELP

EMOTIONS = ("joy", "sadness", "anger", "fear", "trust", "disgust", "anticipation", "surprise",
            "shame", "guilt")
DOMAINS = ("real", "fiction_content", "fiction_meta", "meta_authorial")
HR_TRENDS = {"elevated_3d": "raised for 3 days", "elevated_overnight": "raised overnight",
             "normal": "normal", "lowered": "lowered"}
HRV_TRENDS = {"declining_3d": "falling for 3 days", "stable": "steady", "rising": "rising"}
UNSET = "not set"
OFF = "off"      # a mood or body level that is not sent

ADVANCED = (  # (settings field, plain label, symbol, kind, min, max, decimals)
    ("beta_emotion", "Emotion weight", "β", float, 0.0, 5.0, 3),
    ("gamma_state", "Body-state weight", "γ", float, 0.0, 5.0, 3),
    ("delta_anchor", "Anchor lift", "δ anchor", float, 0.0, 5.0, 3),
    ("delta_date", "Date lift", "δ date", float, 0.0, 5.0, 3),
    ("emotion_gate", "Feelings needed", "emotion gate", float, 0.0, 1.0, 3),
    ("hint_gate", "Hint needed", "hint gate", float, 0.0, 1.0, 3),
    ("state_fit_entity", "Life-event fit", "state fit", float, 0.0, 1.0, 3),
    ("hybrid_dense_weight", "Meaning share", "w (pulse dense weight)", float, 0.0, 1.0, 3),
    ("context_weight", "Said-beside-it share", "λ context", float, 0.0, 2.0, 3),
    ("anchor_top", "Anchors among top", "anchor top N", int, 0, 1000, 0),
    ("candidates_min", "Candidates at least", "candidates min", int, 0, 100000, 0),
    ("candidates_per_k", "Candidates per result", "candidates per k", int, 0, 1000, 0),
    ("chain_depth", "Chain depth", "chain depth", int, 0, 50, 0),
)


def help_for(term: str) -> str:
    return TERM_HELP.get(term, "") if isinstance(TERM_HELP, dict) else ""


def iso_utc(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class ClickSlider(QSlider):
    """A slider that jumps to where its track is clicked (a plain QSlider moves one page)."""

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            opt = QStyleOptionSlider()
            self.initStyleOption(opt)
            handle = self.style().subControlRect(QStyle.ComplexControl.CC_Slider, opt,
                                                 QStyle.SubControl.SC_SliderHandle, self)
            if not handle.contains(event.position().toPoint()):
                groove = self.style().subControlRect(QStyle.ComplexControl.CC_Slider, opt,
                                                     QStyle.SubControl.SC_SliderGroove, self)
                span = max(1, groove.width() - handle.width())
                x = event.position().x() - groove.x() - handle.width() / 2
                value = QStyle.sliderValueFromPosition(self.minimum(), self.maximum(),
                                                       round(x), span)
                self.setValue(value)
                event.accept()
        super().mousePressEvent(event)


class Level(QWidget):
    """A 0..1 slider that can be left unset (its box unticked): unset values are not sent."""

    def __init__(self, name: str, tooltip: str = "", letter: str = "", colour: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.check = QCheckBox(name)
        self.check.setAccessibleName(f"Use {name}")
        self.slider = ClickSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 100)
        self.slider.setPageStep(10)
        self.slider.setMinimumWidth(48)
        self.slider.setEnabled(False)
        self.slider.setAccessibleName(f"{name} level")
        self.label = QLabel(OFF)
        self.label.setMinimumWidth(self.label.fontMetrics().horizontalAdvance("0.55") + 4)
        self.label.setAccessibleName(f"{name} value")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        if letter:
            from pulse_desktop.style import letter_icon

            mark = QLabel()
            mark.setPixmap(letter_icon(letter, colour).pixmap(14, 14))
            mark.setAccessibleName(name)
            lay.addWidget(mark)
        lay.addWidget(self.check)
        lay.addWidget(self.slider, 1)
        lay.addWidget(self.label)
        tip = tooltip or help_for(name)
        if tip:
            self.setToolTip(tip)
        self.check.toggled.connect(self._sync)
        self.slider.valueChanged.connect(self._sync)

    @staticmethod
    def align(levels: list[Level]) -> None:
        """One column for the names of a group of levels, so that their sliders line up (each
        level lays itself out, so a longer name would push its slider right)."""
        width = max((level.check.sizeHint().width() for level in levels), default=0)
        for level in levels:
            level.check.setMinimumWidth(width)

    def _sync(self) -> None:
        self.slider.setEnabled(self.check.isChecked())
        self.label.setText(sig(self.slider.value() / 100, 2) if self.check.isChecked() else OFF)

    def value(self) -> float | None:
        return self.slider.value() / 100 if self.check.isChecked() else None

    def set_value(self, value: float | None) -> None:
        self.check.setChecked(value is not None)
        if value is not None:
            self.slider.setValue(round(value * 100))
        self._sync()


class SigSpinBox(QDoubleSpinBox):
    """A spin box showing two or three significant digits (λ 0.0005, not 5.000e-04)."""

    def textFromValue(self, value: float) -> str:
        if self.specialValueText() and value <= self.minimum():
            return self.specialValueText()
        return sig(value)


def unset_spin(minimum: float, maximum: float, decimals: int, step: float) -> QDoubleSpinBox:
    """A spin box whose lowest value reads "not set" (Qt's specialValueText)."""
    spin = QDoubleSpinBox()
    spin.setDecimals(decimals)
    spin.setRange(minimum - step, maximum)
    spin.setSingleStep(step)
    spin.setSpecialValueText(UNSET)
    spin.setValue(minimum - step)
    return spin


def spin_value(spin: QDoubleSpinBox) -> float | None:
    return None if spin.value() <= spin.minimum() else spin.value()


class ContextPanel(QWidget):
    """Everything besides the question itself that a retrieve call takes."""

    def __init__(self, defaults) -> None:
        super().__init__()
        self._defaults = defaults
        self._now_pinned = False
        form = QVBoxLayout(self)
        form.setContentsMargins(2, 2, 4, 2)

        when_box = QGroupBox("When and where")
        wf = QFormLayout(when_box)
        wf.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.now_edit = QDateTimeEdit()
        self.now_edit.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.now_edit.setMinimumWidth(
            self.now_edit.fontMetrics().horizontalAdvance("2026-12-31 23:59") + 40)
        if hasattr(self.now_edit, "setTimeZone"):
            self.now_edit.setTimeZone(QTimeZone.utc())
        else:  # pragma: no cover - older Qt
            self.now_edit.setTimeSpec(Qt.TimeSpec.UTC)
        self.now_edit.setToolTip("The moment the question is asked (UTC): recency and dates "
                                 "count from it")
        self._set_now_widget(datetime.now(timezone.utc))
        self.now_edit.dateTimeChanged.connect(self._now_touched)
        now_button = QPushButton("Now")
        now_button.setToolTip("Ask at the current time (follows the clock)")
        now_button.clicked.connect(self.reset_now)
        now_row = QHBoxLayout()
        now_row.addWidget(self.now_edit, 1)
        now_row.addWidget(now_button)
        wf.addRow("Asked at (UTC)", now_row)
        self.domain_checks: dict[str, QCheckBox] = {}
        for d in DOMAINS:
            box = QCheckBox(DOMAIN_NAMES[d])
            box.setChecked(True)
            box.setToolTip(help_for(d) or f"Include events of {DOMAIN_NAMES[d]} ({d})")
            self.domain_checks[d] = box
            wf.addRow(box)
        self.chain_check = QCheckBox("Follow causes")
        self.chain_check.setToolTip("Chain mode: bring the causes of the best matches with "
                                    "them, the story in order (marked ↳ via chain)")
        wf.addRow(self.chain_check)
        self.abstain_check = QCheckBox("Say “nothing relevant”")
        self.abstain_check.setChecked(True)
        self.abstain_check.setToolTip("Unticked: always rank, even when nothing in the memory "
                                      "answers the question (pulse retrieve --no-abstain)")
        wf.addRow(self.abstain_check)
        form.addWidget(when_box)

        mood_box = QGroupBox("Mood (tick to send)")
        ml = QVBoxLayout(mood_box)
        self.mood: dict[str, Level] = {}
        for e in EMOTIONS:
            level = Level(e, f"How much {e} the person feels now (mood_vector.{e}, 0..1)",
                          EMOTION_LETTERS[e], EMOTION_COLORS[e])
            self.mood[e] = level
            ml.addWidget(level)
        Level.align(list(self.mood.values()))
        form.addWidget(mood_box)

        body_box = QGroupBox("Body and life")
        bf = QFormLayout(body_box)
        bf.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.stress = Level("stress", help_for("stress_proxy") or "stress_proxy, 0..1")
        bf.addRow(self.stress)
        self.sleep_quality = Level("sleep quality", help_for("sleep_quality") or "0..1")
        bf.addRow(self.sleep_quality)
        Level.align([self.stress, self.sleep_quality])
        self.sleep_hours = unset_spin(0, 24, 1, 0.5)
        self.sleep_hours.setToolTip("Hours slept last night (sleep_hours)")
        bf.addRow("Sleep (hours)", self.sleep_hours)
        self.hrv = unset_spin(0, 300, 0, 1)
        self.hrv.setToolTip(help_for("hrv") or "Heart-rate variability in ms (hrv); below 55 "
                            "reads as stressed")
        bf.addRow("Heart-rate variability", self.hrv)
        self.hr_trend = QComboBox()
        self.hr_trend.addItem(UNSET, None)
        for value, text in HR_TRENDS.items():
            self.hr_trend.addItem(text, value)
        self.hr_trend.setToolTip("hr_trend")
        bf.addRow("Heart rate", self.hr_trend)
        self.hrv_trend = QComboBox()
        self.hrv_trend.addItem(UNSET, None)
        for value, text in HRV_TRENDS.items():
            self.hrv_trend.addItem(text, value)
        self.hrv_trend.setToolTip("hrv_trend")
        bf.addRow("Variability trend", self.hrv_trend)
        self.snapshot_days = unset_spin(0, 3650, 1, 1)
        self.snapshot_days.setToolTip(help_for("snapshot_days_ago") or
                                      "How many days ago these body readings were taken "
                                      "(snapshot_days_ago)")
        bf.addRow("Measured (days ago)", self.snapshot_days)
        self.life_events = QPlainTextEdit()
        self.life_events.setPlaceholderText("recent life events, one per line")
        self.life_events.setFixedHeight(64)
        self.life_events.setToolTip("recent_life_events_7d: what happened this week")
        bf.addRow(self.life_events)
        clear = QPushButton("Clear mood and body")
        clear.clicked.connect(self.clear_state)
        bf.addRow(clear)
        form.addWidget(body_box)

        const_box = QGroupBox("How the score is made")
        cf = QFormLayout(const_box)
        cf.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.alpha_slider = ClickSlider(Qt.Orientation.Horizontal)
        self.alpha_slider.setRange(0, 100)
        self.alpha_slider.setValue(round(defaults.alpha * 100))
        self.alpha_label = QLabel(sig(defaults.alpha, 2))
        self.alpha_slider.valueChanged.connect(lambda v: self.alpha_label.setText(sig(v / 100, 2)))
        self.alpha_slider.setToolTip(
            "α: the share of relevance time can never take away (recency_factor = α + "
            f"(1 − α)·recency_eff); default {sig(defaults.alpha)}")
        self.alpha_slider.setAccessibleName("Kept share (alpha)")
        alpha_row = QHBoxLayout()
        alpha_row.addWidget(self.alpha_slider, 1)
        alpha_row.addWidget(self.alpha_label)
        cf.addRow("Kept share", alpha_row)
        self.advanced_box = QGroupBox("Other constants")
        self.advanced_box.setCheckable(True)
        self.advanced_box.setChecked(False)
        self.advanced_box.setToolTip("Ticked: these constants replace the defaults")
        af = QFormLayout(self.advanced_box)
        af.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.advanced: dict[str, QDoubleSpinBox | QSpinBox] = {}
        for name, label, symbol, kind, low, high, dec in ADVANCED:
            default = getattr(defaults, name)
            if kind is int:
                spin = QSpinBox()
                spin.setRange(int(low), int(high))
            else:
                spin = SigSpinBox()
                spin.setDecimals(dec)
                spin.setRange(low, high)
                spin.setSingleStep(0.01)
            spin.setValue(default)
            spin.setToolTip(f"{label} ({symbol}), default {sig(default)}"
                            + (f"\n{help_for(name)}" if help_for(name) else ""))
            self.advanced[name] = spin
            af.addRow(label, spin)
        self.decay: dict[str, QDoubleSpinBox] = {}
        for cls, value in defaults.decay_per_day.items():
            spin = SigSpinBox()
            spin.setDecimals(6)
            spin.setRange(0.0, 1.0)
            spin.setSingleStep(0.0005)
            spin.setValue(value)
            spin.setToolTip(f"λ for {class_name(cls)}: how much it fades per day "
                            f"(default {sig(value)})")
            self.decay[cls] = spin
            af.addRow(f"Fading/day, {class_name(cls)}", spin)
        reset = QPushButton("Back to the defaults")
        reset.clicked.connect(self.reset_constants)
        af.addRow(reset)
        cf.addRow(self.advanced_box)
        form.addWidget(const_box)
        form.addStretch(1)

        for box in self.findChildren(QGroupBox):
            box.layout().setContentsMargins(6, 6, 6, 6)

    # -- now ---------------------------------------------------------------------------------
    def _set_now_widget(self, moment: datetime) -> None:
        secs = int(moment.astimezone(timezone.utc).timestamp())
        self.now_edit.blockSignals(True)
        self.now_edit.setDateTime(QDateTime.fromSecsSinceEpoch(secs, QTimeZone.utc()))
        self.now_edit.blockSignals(False)

    def _now_touched(self) -> None:
        self._now_pinned = True

    def set_now(self, moment: datetime | str) -> None:
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

    # -- state -------------------------------------------------------------------------------
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
        for key, combo in (("hr_trend", self.hr_trend), ("hrv_trend", self.hrv_trend)):
            if state.get(key):
                combo.setCurrentIndex(max(0, combo.findData(state[key])))
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
            value = spin_value(spin)
            if value is not None:
                out[key] = value
        for key, combo in (("hr_trend", self.hr_trend), ("hrv_trend", self.hrv_trend)):
            if combo.currentData():
                out[key] = combo.currentData()
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
