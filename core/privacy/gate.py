"""The policy gate of the message importer: each message passes it before extraction, offline
and LLM alike, so a provider never sees what no_capture leaves out (docs/privacy.md)."""

from __future__ import annotations

import dataclasses
from typing import Any

from core.ingest import formats
from core.store import records
from core.store.commands import transaction


class PolicyGate:
    """Policies applied to each message before extraction (offline and LLM alike: a provider
    never sees what no_capture leaves out). docs/privacy.md §Policies."""

    def __init__(self, memory: Any) -> None:
        from core.privacy.policy import Policies

        self.policies = Policies.load(memory.conn)
        self.skipped: dict[int, int] = {}

    def apply(self, msg: formats.Message) -> formats.Message | None:
        if not self.policies.by_policy:
            return msg
        gated = self.policies.gate(msg.text, msg.speaker)
        for entity_id, n in gated.skipped.items():
            self.skipped[entity_id] = self.skipped.get(entity_id, 0) + n
        if gated.text is None:
            return None
        # the turns around it reach the LLM's prompt and the evidence too: gated the same way
        prior = tuple(t for t in map(self._neighbour, msg.prior) if t is not None)
        context = self._neighbour(msg.context) if msg.context is not None else None
        if not gated.changed and prior == msg.prior and context is msg.context:
            return msg
        return dataclasses.replace(msg, text=gated.text, speaker=gated.speaker, prior=prior,
                                   context=context)

    def _neighbour(self, turn: formats.Message) -> formats.Message | None:
        """A neighbouring turn with the policies applied; counted when it passes itself."""
        gated = self.policies.gate(turn.text, turn.speaker)
        if gated.text is None:
            return None
        if not gated.changed:
            return turn
        return dataclasses.replace(turn, text=gated.text, speaker=gated.speaker, prior=(),
                                   context=None)

    def flush(self, memory: Any) -> dict[str, int]:
        """Record the counts (journaled) and return {"withheld_segments": n} for the summary."""
        if not self.skipped:
            return {}
        total = sum(self.skipped.values())
        with transaction(memory.conn):
            records.count_skipped(memory.conn, self.skipped)
        self.skipped = {}
        return {"withheld_segments": total}
