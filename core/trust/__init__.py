"""The trust layer (JOURNAL.md): replay, undo, forget, corrections, brief, guard, ledger.

Public entry points (used by the CLI, the desktop app and the MCP server):
  replay.export_journal / replay.replay          journal export and rebuild
  undo.undo / undo.redo / undo.history            the undo stack over the journal
  forget.forget                                   erasure of an event, entity or observation
  corrections.correct / corrections.list_corrections
  brief.brief                                     the budgeted session brief
  guard.check_text / guard.lint_paths / guard.guard_hook / guard.allow
  ledger.import_ledger / ledger.export_ledger / ledger.verify_ledger
"""
