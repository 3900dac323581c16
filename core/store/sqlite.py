"""The one SQLite library Pulse opens memories with: SQLCipher through `sqlcipher3`.

Plain and encrypted memories both go through it (a memory without a key is an ordinary SQLite
file that any SQLite reads). One library for every memory this process opens matters for the
same reason as core/store/locks.py: two SQLite libraries in one process each keep their own
table of POSIX locks, so closing a file in one drops the locks the other holds on it. Chosen by
measurement among the candidates of issue 13 (docs/benchmarks.md §Encryption at rest).

Use it as `from core.store.sqlite import sqlite3`: the DB-API module, with the stdlib's names
(connect, Connection, Row, Error, OperationalError, complete_statement, …).
"""

from __future__ import annotations

from sqlcipher3 import dbapi2 as sqlite3

__all__ = ["sqlite3"]

# SQLCipher writes its own diagnostics ("hmac check failed for pgno=1") to stderr; a wrong
# passphrase must read as one line from Pulse, so its log is switched off for the process.
_quiet = sqlite3.connect(":memory:")
_quiet.execute("PRAGMA cipher_log_level = NONE")
_quiet.close()
