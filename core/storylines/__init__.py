"""Storylines (docs/upkeep.md): connected chains and distilled patterns, each with a title and a
1-3 sentence summary, and retrieval that returns one entry per storyline.

    graph.py      which storylines exist, their members and centroids (kept with the index)
    summarise.py  the offline extractive summary (names and dates kept)
    store.py      summaries written when first needed, cached, rewritten when a member changes
    llm.py        an abstractive summary through the model router (opt-in: an extractor alias)
    retrieve.py   ranked events grouped into storylines

Use them through core.memory.Memory (storylines, storyline, retrieve(storylines=True),
summarise_storylines).
"""
