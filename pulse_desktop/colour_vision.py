"""How a palette looks to people with red-green colour blindness, and whether its colours stay
apart: the Machado–Oliveira–Fernandes (2009) simulation of protanopia and deuteranopia (full
severity, in linear RGB) and the CIEDE2000 colour difference. No Qt: the tests and
``python -m pulse_desktop.colour_vision`` (the table in docs/desktop.md) both use it.

A ΔE2000 of about 2 is just noticeable side by side; the palettes here keep every pair of
colours at least MIN_DELTA apart for normal vision and under both simulations — and every
colour-coded mark also carries a letter, a shape or a label, so nothing rests on colour alone.
"""

from __future__ import annotations

import math
from itertools import combinations

MIN_DELTA = 12.0

# Machado et al. 2009, severity 1.0 (linear RGB → linear RGB)
SIMULATIONS = {
    "protanopia": ((0.152286, 1.052583, -0.204868),
                   (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968),
                     (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
}


def _to_linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _to_srgb(c: float) -> float:
    c = min(1.0, max(0.0, c))
    return 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def hex_to_rgb(code: str) -> tuple[float, float, float]:
    code = code.lstrip("#")
    return tuple(int(code[i:i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


def rgb_to_hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(min(1, max(0, c)) * 255):02x}" for c in rgb)


def simulate(code: str, kind: str) -> str:
    """The colour as someone with `kind` ("protanopia" | "deuteranopia") sees it."""
    if kind == "normal":
        return code
    m = SIMULATIONS[kind]
    lin = [_to_linear(c) for c in hex_to_rgb(code)]
    out = tuple(_to_srgb(sum(m[r][k] * lin[k] for k in range(3))) for r in range(3))
    return rgb_to_hex(out)


def to_lab(code: str) -> tuple[float, float, float]:
    r, g, b = (_to_linear(c) for c in hex_to_rgb(code))
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(a: str, b: str) -> float:
    """CIEDE2000 between two sRGB colours."""
    l1, a1, b1 = to_lab(a)
    l2, a2, b2 = to_lab(b)
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    cbar = (c1 + c2) / 2
    g = 0.5 * (1 - math.sqrt(cbar ** 7 / (cbar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360
    h2p = math.degrees(math.atan2(b2, a2p)) % 360
    dlp, dcp = l2 - l1, c2p - c1p
    if c1p * c2p == 0:
        dhp = 0.0
    elif abs(h2p - h1p) <= 180:
        dhp = h2p - h1p
    else:
        dhp = h2p - h1p - 360 if h2p > h1p else h2p - h1p + 360
    dhp_big = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dhp / 2))
    lbarp, cbarp = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        hbarp = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hbarp = (h1p + h2p) / 2
    else:
        hbarp = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hbarp - 30)) + 0.24 * math.cos(math.radians(2 * hbarp))
         + 0.32 * math.cos(math.radians(3 * hbarp + 6))
         - 0.20 * math.cos(math.radians(4 * hbarp - 63)))
    dtheta = 30 * math.exp(-(((hbarp - 275) / 25) ** 2))
    rc = 2 * math.sqrt(cbarp ** 7 / (cbarp ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (lbarp - 50) ** 2 / math.sqrt(20 + (lbarp - 50) ** 2)
    sc = 1 + 0.045 * cbarp
    sh = 1 + 0.015 * cbarp * t
    rt = -math.sin(math.radians(2 * dtheta)) * rc
    return math.sqrt((dlp / sl) ** 2 + (dcp / sc) ** 2 + (dhp_big / sh) ** 2
                     + rt * (dcp / sc) * (dhp_big / sh))


def closest_pairs(palette: dict[str, str], vision: str = "normal"
                  ) -> list[tuple[float, str, str]]:
    """Every pair of the palette with its ΔE2000 as seen with `vision`, closest first."""
    seen = {name: simulate(code, vision) for name, code in palette.items()}
    return sorted((delta_e(seen[a], seen[b]), a, b) for a, b in combinations(palette, 2))


def report(palette: dict[str, str]) -> dict[str, tuple[float, str, str]]:
    """The closest pair for normal vision, protanopia and deuteranopia."""
    return {vision: closest_pairs(palette, vision)[0]
            for vision in ("normal", "protanopia", "deuteranopia")}


def main() -> None:
    from pulse_desktop.style import CLASS_COLORS, DOMAIN_COLORS, EMOTION_COLORS

    for title, palette in (("emotions", EMOTION_COLORS), ("domains", DOMAIN_COLORS),
                           ("belief classes", CLASS_COLORS)):
        print(f"{title}: closest pair (ΔE2000; ≥ {MIN_DELTA:g} wanted)")
        for vision, (de, a, b) in report(palette).items():
            print(f"  {vision:13} {de:5.1f}  {a} / {b}")


if __name__ == "__main__":
    main()
