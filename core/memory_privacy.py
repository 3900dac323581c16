"""Memory's privacy operations (docs/privacy.md): per-person policies and topic boundaries, and
what reaches a companion — recall results and events as framed data, boundaries respected.

Methods of `core.memory.Memory` (kept in their own module for size); use them through a Memory.
"""

from __future__ import annotations

from typing import Any


class PrivacyOps:
    """Mixed into Memory: needs `conn`, `path`, `read_only`, `retrieve`, `event_detail`."""

    # -- policies ------------------------------------------------------------------------------

    POLICIES = ("full", "summary_only", "redact", "no_capture")

    def set_policy(self, entity: str | int, policy: str | None = None, *,
                   label: str | None = None, do_not_probe: bool | None = None,
                   actor: str = "manual") -> dict[str, Any]:
        """Set an entity's sensitivity policy (full | summary_only | redact | no_capture), its
        role label (redact) and its do_not_probe boundary. A tightening applies backwards
        (rewrite or erasure, journaled; then the file is compacted). Returns what changed."""
        from core.privacy.apply import set_policy

        self._writable()
        return set_policy(self, entity, policy, label=label, do_not_probe=do_not_probe,
                          actor=actor)

    def policy(self, entity: str | int) -> dict[str, Any]:
        """{"id", "key", "name", "kind", "policy", "role_label", "do_not_probe",
        "skipped_segments"} of one entity."""
        from core.privacy.policy import policy_of, resolve_entity

        return policy_of(self.conn, resolve_entity(self.conn, entity))

    def policies(self) -> list[dict[str, Any]]:
        """Every entity whose policy is not `full` or that marks a boundary."""
        from core.privacy.policy import Policies, policy_of

        return [policy_of(self.conn, p.id) for p in Policies.load(self.conn).people]

    def boundaries(self) -> list[dict[str, Any]]:
        """The do_not_probe topics: [{"id", "name", "events"}] (events behind each)."""
        from core.privacy.outside import OutsideView

        view = OutsideView.of(self)
        return [{"id": p.id, "name": p.name,
                 "events": sorted(e for e, people in view.behind.items() if p in people)}
                for p in view.boundaries]

    def withheld_events(self, query: str = "") -> set[int]:
        """Events behind a boundary that `query` does not name: never surfaced outside the
        owner's view (recall, the brief, MCP, exports, knowledge gaps)."""
        from core.privacy.outside import OutsideView

        return OutsideView.of(self).withheld(query)

    # -- what reaches a companion (MCP) -------------------------------------------------------

    def recall(self, query: str, **options: Any) -> dict[str, Any]:
        """`retrieve` as a companion gets it: boundaries and policies applied, every title and
        text inside the <memory_data> frame (core/privacy/frame.py)."""
        from core.privacy.frame import MEMORY_NOTE, wrap_fields

        out = {**self.retrieve(query, **options), "frame": MEMORY_NOTE}
        if "storylines" in out:
            out["storylines"] = [_framed_corrections({**wrap_fields(e, ("title", "summary")),
                                                      "best": _framed_result(e["best"])})
                                 for e in out["storylines"]]
        else:
            out["results"] = [_framed_result(r) for r in out["results"]]
        return out

    def _outside_why(self, out: dict[str, Any], query: str) -> dict[str, Any]:
        """A why answer with the policies applied: causes behind a boundary the query does not
        name are left out (counted in "withheld"), names relabelled."""
        from core.privacy.outside import OutsideView

        view = OutsideView.of(self)
        hidden = view.withheld(query)
        kept = [c for c in out["causes"] if c["id"] not in hidden]
        dropped = len(out["causes"]) - len(kept)
        # a cause beyond a withheld one stays, without the link that would point at it
        out = {**out, "causes": [{**c, "title": view.text(c["title"]),
                                  "text": view.text(c["text"]),
                                  "led_to": [x for x in c.get("led_to", [])
                                             if x["id"] not in hidden]} for c in kept]}
        if out["event"] is not None:
            out["event"] = {**out["event"], "title": view.text(out["event"]["title"]),
                            "text": view.text(out["event"]["text"])}
        return out | ({"withheld": {"behind_boundary": dropped}} if dropped else {})

    def companion_why(self, event: str | int | None = None, **options: Any) -> dict[str, Any]:
        """`why` as a companion gets it (MCP why): refused for an event behind a boundary,
        causes behind one left out, every title and text inside the <memory_data> frame."""
        from core.errors import PulseError
        from core.privacy.frame import MEMORY_NOTE
        from core.privacy.outside import OutsideView

        if event is not None:
            person = OutsideView.of(self).boundary(self.event_detail(event)["event"]["id"])
            if person is not None:
                raise PulseError(f"event {event} is behind a boundary the person set "
                                 f"(don't probe: {person.name})")
        out = self.why(event, **options)
        if out["event"] is not None:
            out["event"] = _framed_result(out["event"])
        out["causes"] = [_framed_result(c) for c in out["causes"]]
        return {**out, "frame": MEMORY_NOTE}

    def companion_event(self, event: str | int) -> dict[str, Any]:
        """One event as a companion may see it (MCP get_event): refused behind a boundary,
        names per policy, text framed as data."""
        from core.errors import PulseError
        from core.privacy.frame import MEMORY_NOTE, wrap_fields
        from core.privacy.outside import OutsideView
        from core.trust.corrections import bearing_on

        detail = self.event_detail(event)
        view = OutsideView.of(self)
        person = view.boundary(detail["event"]["id"])
        if person is not None:
            raise PulseError(f"event {event} is behind a boundary the person set "
                             f"(don't probe: {person.name})")
        detail = view.event_detail(detail)
        found = bearing_on(self.conn, [detail["event"]], ("title", "description"))
        detail["event"] = wrap_fields(detail["event"], ("title", "description"))
        detail["entities"] = [wrap_fields(e, ("name",)) for e in detail["entities"]]
        corrections = [wrap_fields(c, ("note",)) for c in found.get(detail["event"]["id"], [])]
        return {**detail, "corrections": corrections, "frame": MEMORY_NOTE}


def _framed_result(result: dict[str, Any]) -> dict[str, Any]:
    """A retrieve result as a companion reads it: its text, and its corrections' notes (the
    person's words too), inside the <memory_data> frame."""
    from core.privacy.frame import wrap_fields

    return _framed_corrections(wrap_fields(result, ("title", "text")))


def _framed_corrections(item: dict[str, Any]) -> dict[str, Any]:
    from core.privacy.frame import wrap_fields

    if "corrections" in item:
        item = {**item, "corrections": [wrap_fields(c, ("note",)) for c in item["corrections"]]}
    return item
