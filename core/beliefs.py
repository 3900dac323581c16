"""The belief vocabulary (ENGINE §2): classes and their decay, domains, kinds, provenance."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from core.errors import InvariantError, ValidationError, shown

# λ per day for each class; axioms never decay.
DECAY_PER_DAY: dict[str, float] = {
    "axiom": 0.0,
    "self_model": 0.0005,
    "user_model": 0.001,
    "operational": 0.003,
    "hypothesis": 0.005,
}
BELIEF_CLASSES = tuple(DECAY_PER_DAY)
DEFAULT_CLASS = "operational"
# A structural anchor (user_flag) decays at most this fast, whatever its class.
ANCHOR_DECAY_PER_DAY = 0.001

DOMAINS = ("real", "fiction_content", "fiction_meta", "meta_authorial")
DEFAULT_DOMAIN = "real"
PROVENANCES = ("memory_pattern", "interactive_memory", "idle_background", "sleep_reflection",
               "manual")
ENTITY_KINDS = (
    "person", "place", "project", "org", "product", "community", "skill", "concept", "thing",
    "event_series", "ai_entity", "ai_persona", "fictional_character", "fictionalized_self",
    "narrative_device", "safety_boundary",
)
CHAIN_KINDS = ("causal", "temporal", "thematic")
AXIOM_MIN_FLOOR = 0.5
CORE_WOUND_FLOOR = 0.85
BELIEF_FIELDS = ("belief_class", "confidence_floor", "archivable", "user_flag", "domain",
                 "provenance")


def check_belief(fields: dict[str, Any], label: str) -> None:
    """Raise InvariantError naming `label` if the belief fields are invalid or break an invariant."""
    cls = fields.get("belief_class", DEFAULT_CLASS)
    if cls not in DECAY_PER_DAY:
        raise InvariantError(f"{label}: unknown belief class {shown(cls)} (one of {', '.join(BELIEF_CLASSES)})")
    floor = fields.get("confidence_floor", 0.0)
    if not isinstance(floor, (int, float)) or isinstance(floor, bool) or not 0.0 <= floor <= 1.0:
        raise InvariantError(f"{label}: confidence_floor must be a number in 0..1, got {shown(floor)}")
    for flag in ("archivable", "user_flag"):
        if flag in fields and fields[flag] not in (0, 1, True, False):
            raise InvariantError(f"{label}: {flag} must be 0 or 1, got {shown(fields[flag])}")
    domain = fields.get("domain", DEFAULT_DOMAIN)
    if domain not in DOMAINS:
        raise InvariantError(f"{label}: unknown domain {shown(domain)} (one of {', '.join(DOMAINS)})")
    provenance = fields.get("provenance", "interactive_memory")
    if provenance not in PROVENANCES:
        raise InvariantError(f"{label}: unknown provenance {shown(provenance)}")
    if int(fields.get("archived", 0) or 0) and not int(fields.get("archivable", 1)):
        raise InvariantError(f"{label}: it is archived; restore it before pinning it "
                             "(an archived event must stay archivable)")
    if cls == "axiom":
        if int(fields.get("archivable", 1)) != 0:
            raise InvariantError(f"{label}: an axiom must be non-archivable (archivable 0)")
        if floor < AXIOM_MIN_FLOOR:
            raise InvariantError(
                f"{label}: an axiom needs confidence_floor ≥ {AXIOM_MIN_FLOOR}, got {floor:g}")


def core_wound(current: dict[str, Any]) -> dict[str, Any]:
    """The belief fields after "Pin as core wound": axiom, floor ≥ 0.85, pinned, anchored, manual."""
    return {
        "belief_class": "axiom",
        "confidence_floor": max(float(current.get("confidence_floor", 0.0)), CORE_WOUND_FLOOR),
        "archivable": 0,
        "user_flag": 1,
        "provenance": "manual",
    }


def domain_list(value: Iterable[str] | str) -> list[str]:
    """"a,b" or ["a", "b"] -> the names, in the order given, each one a known domain."""
    names = ([d.strip() for d in value.split(",") if d.strip()] if isinstance(value, str)
             else list(value))
    for d in names:
        if d not in DOMAINS:
            raise ValidationError(f"unknown domain {d!r} (one of {', '.join(DOMAINS)})")
    return names
