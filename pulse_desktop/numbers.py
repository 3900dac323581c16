"""Numbers as people read them: two or three significant digits (the exact value lives in the
tooltip and in "Copy as JSON"), thousands separated, no scientific notation for everyday
sizes."""

from __future__ import annotations

import math


def sig(value: float | int | None, digits: int = 3) -> str:
    """``value`` with `digits` significant digits and no trailing zeros: 0.7300254 → "0.73",
    0.0340370 → "0.034", 1.0777 → "1.08", 0.0005 → "0.0005", 2072.83 → "2,073"."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    x = float(value)
    if not math.isfinite(x):
        return str(x)
    if x == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(x)))
    if magnitude >= digits - 1:
        return f"{round(x):,}"
    if magnitude < -6:
        return f"{x:.{digits - 1}e}"
    decimals = digits - 1 - magnitude
    text = f"{x:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def times(value: float | None) -> str:
    """A factor as a multiplier: "×1.08"."""
    return "×" + sig(value)
