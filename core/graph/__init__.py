"""The memory as a graph (networkx) and a deterministic, domain-zoned layout for it."""

from core.graph.builder import (
           build_graph,
           entity_node,
           event_node,
           observation_texts,
           parse_domains,
)
from core.graph.layout import layout

__all__ = ["build_graph", "entity_node", "event_node", "layout", "observation_texts",
           "parse_domains"]
