"""Curation by a person (a therapist, or the person themself): fix what the importer got wrong.

Every operation is one change set through the journaled command layer, so it shows in the
item's history and `undo` inverts it:

  events.py    emotions (user-confirmed), a new text version that supersedes the old one
  entities.py  rename, aliases, kind, domain; merge two entities (with a preview); split an
               alias back out into its own entity
  links.py     cause→effect chain links (add, remove, re-weight), relations (add, edit)

Use them through `core.memory.Memory` (set_emotions, edit_event_text, edit_entity,
merge_preview, merge_entities, split_alias_preview, split_alias, link_events, unlink_events,
set_link, add_relation, edit_relation).
"""
