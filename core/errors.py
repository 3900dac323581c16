"""User-facing errors: one clear line, never a traceback (the CLI prints str(err) and exits 1)."""


class PulseError(Exception):
    """A problem the user can act on. The message names the item and what is wrong."""


class InvariantError(PulseError):
    """A change that would break a belief invariant (ENGINE §2); nothing is written."""


class StoreError(PulseError):
    """The database file cannot be opened or migrated as asked; nothing on disk changed."""


class PassphraseError(StoreError):
    """No passphrase, or a wrong one, for an encrypted memory; the file was not touched."""


class BusyError(StoreError):
    """Another program held the memory's write lock past every wait and retry; nothing changed."""


class ConflictError(PulseError):
    """An edit expected values another program has changed since; nothing was written."""


class ValidationError(PulseError):
    """Input (a corpus, a state file, a settings file) is malformed; nothing was imported."""


def is_busy(exc: BaseException) -> bool:
    """SQLITE_BUSY / SQLITE_LOCKED: another connection held the lock past every wait."""
    from core.store.sqlite import sqlite3

    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def is_database_error(exc: BaseException) -> bool:
    """An error of the SQLite library Pulse uses (for fronts that must not import it)."""
    from core.store.sqlite import sqlite3

    return isinstance(exc, sqlite3.Error)


def busy_message(path: object, waited_s: float | None = None) -> str:
    """What the user reads instead of "database is locked"."""
    waited = f" for {waited_s:.0f} s" if waited_s else ""
    return (f"{path}: the memory stayed busy{waited} (another program is writing to it); "
            "nothing was changed — try again when it has finished")


def shown(value: object, limit: int = 80) -> str:
    """repr(value) cut to `limit` characters, so an error about a huge value stays one line."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
