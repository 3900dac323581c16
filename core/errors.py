"""User-facing errors: one clear line, never a traceback (the CLI prints str(err) and exits 1)."""


class PulseError(Exception):
    """A problem the user can act on. The message names the item and what is wrong."""


class InvariantError(PulseError):
    """A change that would break a belief invariant (ENGINE §2); nothing is written."""


class StoreError(PulseError):
    """The database file cannot be opened or migrated as asked; nothing on disk changed."""


class ValidationError(PulseError):
    """Input (a corpus, a state file, a settings file) is malformed; nothing was imported."""


def shown(value: object, limit: int = 80) -> str:
    """repr(value) cut to `limit` characters, so an error about a huge value stays one line."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
