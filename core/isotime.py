"""One way to write a moment as stored text: ISO-8601 in UTC, "Z", four year digits.

strftime's %Y writes the year 900 as "900", which sorts after "2026" as text; every time-ordered
read of the store compares these strings."""

from __future__ import annotations

from datetime import datetime, timezone


def utc_iso(moment: datetime, timespec: str = "seconds") -> str:
    """`moment` (aware) as "0900-05-01T00:00:00Z"; timespec as datetime.isoformat takes it."""
    return moment.astimezone(timezone.utc).isoformat(timespec=timespec).replace("+00:00", "Z")
