"""Playground: what would the companion recall for this question, in this mood and body state —
and why, at a glance.

One results list (the chosen scorer's; a toggle shows the compared scorer's, with ▲▼ rank
changes between the two), each row with a bar of its factors on one log scale (their pieces add
up to the score; pulse_desktop/playground_results.py), plain column names with the spec's
symbols in the tooltips, numbers with two or three significant digits (exact values in the
tooltips and in "Copy as JSON"). Explain answers "why there, or why not" in one sentence first
and follows every query (playground_explain.py). The context — when, domains, mood, body,
constants — is the panel on the left (playground_controls.py).

Every query runs off the UI thread on the query thread's own read-only Memory
(pulse_desktop/query_thread.py): the first call loads the embedder and the vector index; on a
shared machine a query on the demo measured 0.2–0.6 s, far over what a synchronous call could
afford. The list shows exactly what `Memory.retrieve` returned: RAW_ROLE gives the untouched
value of every cell. After any change to the memory (a pin in the Beliefs table, another
program's write) the question is asked again on that thread, so the ranks shown are always the
ranks now (bench/desktop_responsiveness.py: within 300 ms of a pin at 100k events).
"""

from __future__ import annotations

import json
import time
from datetime import datetime
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from pulse_desktop import workers
from pulse_desktop.flow_layout import flow_row
from pulse_desktop.pane_fit import HeightForWidth
from pulse_desktop.playground_controls import DOMAINS, EMOTIONS, ContextPanel  # noqa: F401
from pulse_desktop.playground_explain import ExplainPanel
from pulse_desktop.playground_results import (  # noqa: F401  (tests import them from here)
    FACTORS,
    RAW_ROLE,
    FactorBarDelegate,
    ResultsModel,
    caption,
    factor_pieces,
    gates_text,
    withheld_text,
)
from pulse_desktop.query_thread import URGENT, run_job, run_query  # noqa: F401  (older imports)
from pulse_desktop.table_fit import FitOnResize

SCORERS = ("pulse", "dense", "v2", "cosine", "bm25")
SCORER_NAMES = {"pulse": "Default (pulse)", "dense": "Meaning only (dense)",
                "v2": "Older (v2)", "cosine": "Closeness (cosine)", "bm25": "Keywords (bm25)"}
SCORER_SHORT = {"pulse": "Default", "dense": "Meaning only", "v2": "Older", "cosine": "Closeness",
                "bm25": "Keywords"}
SCORER_HELP = ("Default (pulse): meaning and shared words, with recency and the mood, body, "
               "anchor and date boosts · Meaning only (dense): the same on the embedding alone "
               "(was v3) · Older (v2): relevance × recency · Closeness (cosine) and Keywords "
               "(bm25): plain baselines")
# After a re-run, the compared list is asked once no change has come for this long.
COMPARE_AFTER_MS = 400
# the scorer compared with the chosen one
COMPARE_WITH = {"pulse": "dense", "dense": "v2", "v2": "dense", "cosine": "pulse",
                "bm25": "pulse"}


class PlaygroundView(QWidget):
    """The Playground tab. Signals: resultsReady(dict) with the retrieve output of a finished
    query, explained(dict) with Memory.explain's output, failed(str) with a user message."""

    resultsReady = Signal(dict)
    explained = Signal(dict)
    failed = Signal(str)

    def __init__(self, session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.output: dict[str, Any] | None = None          # the chosen scorer's output
        self.compare_output: dict[str, Any] | None = None  # the compared scorer's
        self.last_explain: dict[str, Any] | None = None
        self.showing = "main"                               # which list is shown
        self._generation = 0
        self._explain_generation = 0
        self._running: workers.Job | None = None
        self._last_ask: tuple[str, dict, dict | None] | None = None   # what run_query asked
        self._in_flight = False
        self._rerun_pending = False
        self._asked_at: dict[int, float] = {}      # generation → when it was started
        self.shown_asked_at: float | None = None   # when the list shown was asked (perf_counter)
        self._compare_pending: tuple[int, str, dict[str, Any]] | None = None
        self._comparing = False
        self._compare_timer = QTimer(self)
        self._compare_timer.setSingleShot(True)
        self._compare_timer.setInterval(COMPARE_AFTER_MS)
        self._compare_timer.timeout.connect(self._ask_compare)
        self._build()
        session.opened.connect(self._memory_opened)
        session.changed.connect(self._memory_changed)
        self._memory_opened()

    # -- building ----------------------------------------------------------------------
    def _build(self) -> None:
        from core.memory import Memory

        self.context = ContextPanel(Memory.scorer_defaults())
        rank_box = QGroupBox("Ranking")
        rf = QFormLayout(rank_box)
        rf.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.scorer_combo = QComboBox()
        for name in SCORERS:
            self.scorer_combo.addItem(SCORER_NAMES[name], name)
        self.scorer_combo.setToolTip(SCORER_HELP)
        rf.addRow("Ranked by", self.scorer_combo)
        self.top_k = QSpinBox()
        self.top_k.setRange(1, 200)
        self.top_k.setValue(10)
        self.top_k.setToolTip("How many results to show (top_k)")
        rf.addRow("Results", self.top_k)
        self.compare_check = QCheckBox()
        self.compare_check.setChecked(True)
        rf.addRow(self.compare_check)
        self.scorer_combo.currentIndexChanged.connect(self._scorer_changed)
        self.context.layout().insertWidget(0, rank_box)
        # the context's controls, reachable under their old names
        for name in ("now_edit", "domain_checks", "chain_check", "abstain_check", "mood",
                     "stress", "sleep_quality", "sleep_hours", "hrv", "hr_trend", "hrv_trend",
                     "snapshot_days", "life_events", "alpha_slider", "alpha_label",
                     "advanced_box", "advanced", "decay"):
            setattr(self, name, getattr(self.context, name))
        scroll = QScrollArea()
        scroll.setWidget(self.context)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(262)
        scroll.setAccessibleName("Question context")
        self.context_scroll = scroll

        # the question
        self.query_edit = QLineEdit()
        self.query_edit.setPlaceholderText("What would the companion recall for…")
        self.query_edit.setAccessibleName("Question")
        self.query_edit.returnPressed.connect(self.run_query)
        self.run_button = QPushButton("Ask")
        self.run_button.setObjectName("primary")
        self.run_button.setToolTip("Run the question (Enter, or Ctrl+Return anywhere here)")
        self.run_button.clicked.connect(self.run_query)
        self.copy_button = QPushButton("Copy as JSON")
        self.copy_button.setToolTip("Copy exactly what retrieve returned, every number in full "
                                    "(Ctrl+Shift+C)")
        self.copy_button.clicked.connect(self.copy_json)
        self.copy_button.setEnabled(False)
        ask = QHBoxLayout()
        ask.addWidget(QLabel("Question"))
        ask.addWidget(self.query_edit, 1)
        ask.addWidget(self.run_button)
        ask.addWidget(self.copy_button)

        # results
        self.main_caption = QLabel("Results")
        self.main_caption.setObjectName("sectionTitle")
        self.list_buttons = QButtonGroup(self)
        self.show_main = QPushButton()
        self.show_other = QPushButton()
        for i, b in enumerate((self.show_main, self.show_other)):
            b.setCheckable(True)
            b.setToolTip("Which scorer's list to show; ▲▼ say how each event moved against "
                         "the other")
            self.list_buttons.addButton(b, i)
        self.show_main.setChecked(True)
        self.list_buttons.idClicked.connect(lambda i: self.show_list("main" if i == 0
                                                                     else "other"))
        self.all_terms = QCheckBox("All terms")
        self.all_terms.setToolTip("Show every term of the breakdown as a column (the list "
                                  "then scrolls sideways)")
        self.all_terms.toggled.connect(self._all_terms)
        # wraps on a narrow window (1024 px) rather than widening it
        head = flow_row(self.main_caption, None, self.show_main, self.show_other,
                        self.all_terms)
        self.abstain_label = QLabel("")
        self.abstain_label.setObjectName("abstainNotice")
        self.abstain_label.setWordWrap(True)
        self.abstain_label.setStyleSheet("QLabel#abstainNotice { background: #fff4d6; "
                                         "border: 1px solid #d9a520; padding: 6px; }")
        self.abstain_label.setVisible(False)
        self.gates_label = QLabel("")
        self.gates_label.setWordWrap(True)
        self.gates_label.setStyleSheet("color: #5b6678;")
        self.gates_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.gates_label.setToolTip("Which boosts could switch on for this question, and the "
                                    "text actually searched for")

        self.model = ResultsModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName("Results")
        self.table.setItemDelegateForColumn(self.model.FIXED.index("why"),
                                            FactorBarDelegate(self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(30)
        self.table.selectionModel().currentRowChanged.connect(
            lambda cur, _prev: self._row_selected(cur))
        fixed = self.model.FIXED
        self.table_fit = FitOnResize(
            self.table, fixed.index("event"), minimum=170,     # a readable title before the bar
            fixed={fixed.index("why"): 210, fixed.index("rank"): 34},
            # the factors step aside first, then the rank change (the # column's tooltip
            # still says it)
            optional=lambda: [*reversed(self.model.factor_columns()), fixed.index("change")],
            hidden=lambda: [] if self.all_terms.isChecked() else self.model.detail_columns())

        self.explain = ExplainPanel()
        self.explain_fit = HeightForWidth(self.explain)   # its wrapped lines, at 1024 px too
        self.explain_edit = self.explain.edit
        self.explain_edit.returnPressed.connect(self.explain_event)
        self.explain.button.clicked.connect(self.explain_event)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: #5b6678;")

        results = QWidget()
        rl = QVBoxLayout(results)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(head)
        rl.addWidget(self.abstain_label)
        rl.addWidget(self.gates_label)
        rl.addWidget(self.table, 1)
        vsplit = QSplitter(Qt.Orientation.Vertical)
        vsplit.addWidget(results)
        vsplit.addWidget(self.explain)
        vsplit.setChildrenCollapsible(False)
        vsplit.setStretchFactor(0, 1)        # the list takes the room; Explain what it needs
        vsplit.setStretchFactor(1, 0)
        self.vsplit = vsplit
        self.explain.terms_button.toggled.connect(self._explain_room)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(vsplit, 1)
        right_layout.addWidget(self.status)

        self.outer = QSplitter(Qt.Orientation.Horizontal)
        self.outer.addWidget(scroll)
        self.outer.addWidget(right)
        self.outer.setChildrenCollapsible(False)
        self.outer.setStretchFactor(1, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 8, 8, 4)
        lay.addLayout(ask)
        lay.addWidget(self.outer, 1)
        self._sized = False
        self._scorer_changed()

        ctx = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for keys, slot in (("Ctrl+Return", self.run_query), ("Ctrl+Enter", self.run_query),
                           ("Ctrl+Shift+C", self.copy_json), ("Ctrl+Shift+E", self.explain_event)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(ctx)
            shortcut.activated.connect(slot)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._sized and self.width() > 0:
            # the results keep the room they need (at 1024 px the tab is about 590 wide)
            right = self.outer.widget(1).minimumSizeHint().width()
            room = self.outer.width() - self.outer.handleWidth() - right
            left = max(self.context_scroll.minimumWidth(),
                       min(270 if self.width() < 900 else 300, room))
            self.outer.setSizes([left, max(right, self.outer.width() - left)])
            self._sized = True

    def focus_target(self):
        return self.query_edit

    def _explain_room(self, every_term: bool) -> None:
        """Explain with every term takes two fifths of the height; without, what it needs."""
        total = sum(self.vsplit.sizes())
        if total <= 0:
            return
        want = total * 2 // 5 if every_term else self.explain.sizeHint().height()
        want = max(want, self.explain.minimumSizeHint().height())
        self.vsplit.setSizes([max(1, total - want), want])

    # -- inputs ------------------------------------------------------------------------
    def scorer(self) -> str:
        return self.scorer_combo.currentData() or "pulse"

    def set_scorer(self, name: str) -> None:
        self.scorer_combo.setCurrentIndex(max(0, self.scorer_combo.findData(name)))

    def compared_scorer(self) -> str | None:
        return COMPARE_WITH.get(self.scorer(), "pulse") if self.compare_check.isChecked() else None

    def _scorer_changed(self, *_args) -> None:
        other = COMPARE_WITH.get(self.scorer(), "pulse")
        self.compare_check.setText(f"Compare: {SCORER_SHORT[other]}")
        self.compare_check.setToolTip(f"Also rank by {SCORER_NAMES[other]}; the toggle above "
                                      "the list shows either, with ▲▼ rank changes")

    def set_now(self, moment: datetime | str) -> None:
        """Score at this moment (tests and reproducible sessions)."""
        self.context.set_now(moment)

    def reset_now(self) -> None:
        self.context.reset_now()

    def now_iso(self) -> str:
        return self.context.now_iso()

    def clear_state(self) -> None:
        self.context.clear_state()

    def set_state(self, state: dict[str, Any]) -> None:
        self.context.set_state(state)

    def state_dict(self) -> dict[str, Any] | None:
        return self.context.state_dict()

    def domains(self) -> list[str] | None:
        return self.context.domains()

    def reset_constants(self) -> None:
        self.context.reset_constants()

    def settings_overrides(self) -> dict[str, Any] | None:
        return self.context.settings_overrides()

    def request_options(self, scorer: str | None = None) -> dict[str, Any]:
        """Exactly the keyword arguments given to Memory.retrieve (besides the query)."""
        options: dict[str, Any] = {"top_k": self.top_k.value(), "scorer": scorer or self.scorer(),
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
        self._last_ask = None
        self._rerun_pending = False
        self._compare_pending = None
        self.model.set_output(None)
        self.output = self.compare_output = None
        self.copy_button.setEnabled(False)
        self.gates_label.setText("")
        self.abstain_label.setVisible(False)
        self._show_toggle(None)
        open_ = self.session.memory is not None
        self.run_button.setEnabled(open_)
        self.status.setText("" if open_ else "Open a memory to try questions.")

    def _memory_changed(self, what: str) -> None:
        # The question shown is asked again after every change to the memory (a pin in the
        # Beliefs table, an edit, another program's write), so the list always shows the ranks
        # as they are now; changes that arrive while it runs are folded into one more run.
        if self._last_ask is not None and what != "recalls":
            self.rerun()

    def rerun(self) -> None:
        """Ask the last question again, with the same context (a newer change coalesces)."""
        if self._last_ask is None or self.session.path is None:
            return
        if self._in_flight:
            self._rerun_pending = True
            return
        query, options, compare_options = self._last_ask
        self._start(query, options, compare_options, rerun=True)

    def run_query(self) -> None:
        query = self.query_edit.text().strip()
        path = self.session.path
        if path is None:
            self._fail("Open a memory first (File → Open or the demo memory).")
            return
        if not query:
            self._fail("Type a question first.")
            return
        if not any(box.isChecked() for box in self.domain_checks.values()):
            self._fail("Allow at least one domain.")
            return
        options = self.request_options()
        compare = self.compared_scorer()
        compare_options = {**options, "scorer": compare} if compare else None
        self._last_ask = (query, options, compare_options)
        self._rerun_pending = False
        self._start(query, options, compare_options)

    def _start(self, query: str, options: dict[str, Any],
               compare_options: dict[str, Any] | None, *, rerun: bool = False) -> None:
        self._generation += 1
        generation = self._generation
        path = self.session.path
        scorer = options["scorer"]

        # A re-run after a change shows the chosen scorer's list first and the compared one
        # after it (half the wait for the new ranks); a question asked by hand shows both at once.
        compare_later = compare_options if rerun else None
        shown_compare = self.compare_output      # its ▲▼ until the new one comes

        def work(memory):
            out = memory.retrieve(query, **options)
            other = memory.retrieve(query, **compare_options) \
                if compare_options and not compare_later else shown_compare
            return out, other

        self._in_flight = True
        self._asked_at[generation] = time.perf_counter()
        if rerun:
            self.status.setText("The memory changed: ranking again…")
        else:
            self.run_button.setEnabled(False)
            self._say(f"Asking ({SCORER_SHORT.get(scorer, scorer)})…")
        run_query(path, work,
                  lambda res: self._query_done(generation, query, res, rerun, compare_later),
                  lambda text: self._query_failed(generation, text), priority=URGENT)

    def _ask_compare(self) -> None:
        """The compared list after a re-run, once the changes have paused (COMPARE_AFTER_MS):
        while a person pins one event after another, each pin's own ranks come first and the
        ▲▼ against the compared list catch up when they stop."""
        pending, self._compare_pending = self._compare_pending, None
        if pending is None or self.session.path is None:
            return
        generation, query, options = pending
        if generation != self._generation:
            return          # a newer question or re-run: it asks for its own
        self._comparing = True
        run_query(self.session.path, lambda memory: memory.retrieve(query, **options),
                  lambda other: self._compare_done(generation, other),
                  lambda text: self._compare_failed(generation, text))

    @property
    def compare_pending(self) -> bool:
        """A re-run's compared list is still to come."""
        return self._compare_pending is not None or self._comparing

    def _compare_done(self, generation: int, other: dict[str, Any]) -> None:
        self._comparing = False
        if generation != self._generation:
            return
        self.compare_output = other
        self._show_toggle(other)
        if self.showing == "other":
            self.show_main.setChecked(False)
            self.show_other.setChecked(True)
        self._fill()

    def _compare_failed(self, generation: int, text: str) -> None:
        self._comparing = False
        if generation == self._generation:
            self._fail(text)

    def _settled(self) -> bool:
        """A query ended: start the re-run a change asked for meanwhile (True if started)."""
        self._in_flight = False
        if self._rerun_pending:
            self._rerun_pending = False
            self.rerun()
            return True
        return False

    def _query_failed(self, generation: int, text: str) -> None:
        self._asked_at.pop(generation, None)
        if generation != self._generation:
            return
        self.run_button.setEnabled(self.session.memory is not None)
        if not self._settled():
            self._fail(text)

    def _query_done(self, generation: int, query: str, res: tuple[dict, dict | None],
                    rerun: bool = False, compare_later: dict[str, Any] | None = None) -> None:
        asked_at = self._asked_at.pop(generation, None)
        if generation != self._generation:
            return  # a newer query was started; drop this one
        self.run_button.setEnabled(self.session.memory is not None)
        self.shown_asked_at = asked_at
        out, other = res
        self.output, self.compare_output = out, other
        if not rerun:
            self.showing = "main"
        self._show_toggle(other)
        if self.showing == "other" and other is not None:
            self.show_other.setChecked(True)
        self._fill()
        self.copy_button.setEnabled(True)
        n = len(out["results"])
        if rerun:   # the status bar keeps what the edit said; the caption says this
            self.status.setText(f"Ranked again after the memory changed: {n} result"
                                f"{'s' if n != 1 else ''} for {query!r}.")
        elif out.get("abstained"):
            self._say(f"Nothing relevant for {query!r}: the memory would say it does not "
                      "remember.")
        else:
            held = withheld_text(out)
            self._say((f"{n} result{'s' if n != 1 else ''} for {query!r} "
                       f"({SCORER_SHORT.get(out['scorer'], out['scorer'])}, asked at "
                       f"{out['now'][:16].replace('T', ' ')} UTC)" if n else
                       f"No results for {query!r}: nothing in the allowed domains.")
                      + (f"; {held.split(',')[0]}." if held else ""))
        self.resultsReady.emit(out)
        if compare_later is not None:       # the compared list (its ▲▼) follows
            self._compare_pending = (generation, query, compare_later)
            self._compare_timer.start()
        if self.explain_edit.text().strip():
            self.explain_event()            # Explain follows every question
        self._settled()

    def _show_toggle(self, other: dict | None) -> None:
        shown = other is not None
        self.show_main.setVisible(shown)
        self.show_other.setVisible(shown)
        if self.output is not None:
            self.show_main.setText(SCORER_SHORT.get(self.output["scorer"], self.output["scorer"]))
        if other is not None:
            self.show_other.setText(SCORER_SHORT.get(other["scorer"], other["scorer"]))
        self.show_main.setChecked(True)

    def shown_output(self) -> dict[str, Any] | None:
        return self.compare_output if self.showing == "other" else self.output

    def show_list(self, which: str) -> None:
        """Show the chosen scorer's list ("main") or the compared one's ("other")."""
        if which == "other" and self.compare_output is None:
            return
        self.showing = which
        (self.show_other if which == "other" else self.show_main).setChecked(True)
        self._fill()
        if self.explain_edit.text().strip():
            self.explain_event()

    def _fill(self) -> None:
        out = self.shown_output()
        other = self.output if self.showing == "other" else self.compare_output
        if out is None:
            return
        label = SCORER_SHORT.get(other["scorer"], other["scorer"]) if other else ""
        self.model.set_output(out, other, label)
        self._all_terms(self.all_terms.isChecked())
        self.main_caption.setText(caption(out))
        self.abstain_label.setVisible(bool(out.get("abstained")))
        reason = str(out.get("abstain_reason") or "").removeprefix("nothing relevant: ")
        self.abstain_label.setText(
            f"Nothing relevant — {reason}. A companion would say it does not remember; untick "
            "“Say ‘nothing relevant’” to rank anyway." if out.get("abstained") else "")
        held = withheld_text(out)
        self.gates_label.setText(f"{held}\n{gates_text(out)}" if held else gates_text(out))

    def _all_terms(self, on: bool) -> None:
        """Every term as a column: the list keeps natural widths and scrolls sideways."""
        self.table.setProperty("mayScrollSideways", bool(on))
        self.table_fit.paused = False
        self.table_fit.fit()
        if on:
            self.table_fit.paused = True
            for col in range(self.model.columnCount()):
                self.table.setColumnHidden(col, False)
            for col in self.model.detail_columns() + self.model.factor_columns():
                self.table.resizeColumnToContents(col)

    def _row_selected(self, index: QModelIndex) -> None:
        if not index.isValid() or index.row() >= len(self.model.results):
            return
        r = self.model.results[index.row()]
        self.explain_edit.setText(str(r.get("key") or r["id"]))
        self.session.select("event", int(r["id"]))
        self.explain_event()

    def copy_json(self) -> None:
        if self.output is None:
            self._fail("Nothing to copy yet: ask a question first.")
            return
        QGuiApplication.clipboard().setText(self.json_text())
        self._say("Copied what retrieve returned, as JSON.")

    def json_text(self) -> str:
        return json.dumps(self.output, ensure_ascii=False)

    # -- explain -----------------------------------------------------------------------
    def explain_event(self) -> None:
        ref = self.explain_edit.text().strip()
        query = self.query_edit.text().strip()
        path = self.session.path
        if path is None:
            self._fail("Open a memory first.")
            return
        if not ref or not query:
            self._fail("Give a question and an event's key or id to explain.")
            return
        shown = self.shown_output()
        options = self.request_options(shown["scorer"] if shown else None)
        if options["scorer"] in ("cosine", "bm25"):
            options["scorer"] = "pulse"
            self._say("Explain works with Default, Meaning only and Older: explaining with "
                      "Default.")
        event: str | int = int(ref) if ref.isdigit() else ref
        self._explain_generation += 1
        generation = self._explain_generation
        top = shown if shown is not None and shown.get("scorer") == options["scorer"] else None

        def done(out: dict[str, Any]) -> None:
            if generation != self._explain_generation:
                return
            self.last_explain = out
            self.explain.show_explained(out, top)
            self.explained.emit(out)

        def failed(text: str) -> None:
            if generation == self._explain_generation:
                self.explain.show_message(f"⚠ {text}")
                self._fail(text)

        run_query(path, lambda memory: memory.explain(event, query, **options), done, failed)

    def explain_text(self) -> str:
        return self.explain.text()

    # -- screenshots -------------------------------------------------------------------
    def prepare_screenshot(self, wait) -> None:
        """The demo's example: a question in a mood, a result explained."""
        got: list = []
        self.resultsReady.connect(lambda out: got.append(out))
        self.query_edit.setText("feeling abandoned")
        self.set_now("2026-11-01T12:00:00Z")
        self.set_state({"mood_vector": {"sadness": 0.7, "shame": 0.5}})
        self.run_query()
        wait(lambda: bool(got), 90)
        if got and got[0]["results"]:
            explained: list = []
            self.explained.connect(lambda out: explained.append(out))
            self.table.selectRow(min(1, len(got[0]["results"]) - 1))
            wait(lambda: bool(explained), 60)
