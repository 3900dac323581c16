"""What an extractor returns for one observation — the same shape for the offline heuristics
and for a validated LLM answer, so one writer (core/ingest/pipeline.py) stores both."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class EntitySpec:
    ref: str                      # local reference inside this extraction
    name: str
    kind: str = "person"
    aliases: list[str] = field(default_factory=list)
    is_self: bool = False
    domain: str | None = None     # None: decided by the glossary / the kind


@dataclass
class SegmentSpec:
    text: str
    intensity: float
    valence: str = "neu"          # pos | neg | neu
    sentiment: float = 0.0
    belief_class: str | None = None
    domain: str | None = None
    user_flag: bool = False
    entities: list[str] = field(default_factory=list)   # entity refs
    parents: list[int] = field(default_factory=list)    # earlier segment indexes (causal)
    emotions: dict[str, float] | None = None            # given by an LLM; else tagged offline
    topic: list[str] = field(default_factory=list)      # content words, for pooling
    ts: str | None = None                               # when it happened, if the text says


@dataclass
class RelationSpec:
    from_ref: str
    to_ref: str
    kind: str
    strength: float = 0.5


@dataclass
class FactSpec:
    entity_ref: str
    text: str
    confidence: float = 0.6
    belief_class: str = "operational"


@dataclass
class Extraction:
    segments: list[SegmentSpec] = field(default_factory=list)
    entities: list[EntitySpec] = field(default_factory=list)
    relations: list[RelationSpec] = field(default_factory=list)
    facts: list[FactSpec] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)   # reasons (LLM validation)
    tagger: str | None = None                           # who produced emotions, if given

    def to_json(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Extraction:
        return cls(segments=[SegmentSpec(**s) for s in data.get("segments", [])],
                   entities=[EntitySpec(**e) for e in data.get("entities", [])],
                   relations=[RelationSpec(**r) for r in data.get("relations", [])],
                   facts=[FactSpec(**f) for f in data.get("facts", [])],
                   rejected=list(data.get("rejected", [])), tagger=data.get("tagger"))
