"""Build resources/emotion/lexicon.json from the curated seeds (and GoEmotions statistics).

    PYTHONPATH=. python -m core.emotion.lexicon_build [--goemotions-train PATH]

A developer tool, not imported at run time. Seeds (resources/emotion/seeds.json) are original
hand-curated lists. With --goemotions-train, English words that predict one mapped emotion in
the GoEmotions TRAIN split (precision >= MIN_PRECISION, lift >= MIN_LIFT, in >= MIN_COUNT
comments) are added as "learnt" words with trace weights below 0.5. Only the derived word
list is stored, never GoEmotions text.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

from core.emotion.goemotions_map import read_goemotions
from core.emotion.text_tokens import MIN_RU_STEM, normalise, ru_stem, tokens

RESOURCES = Path(__file__).resolve().parents[2] / "resources" / "emotion"
MIN_COUNT, MIN_PRECISION, MIN_LIFT = 8, 0.5, 3.0
LEARNT_MIN_WEIGHT, LEARNT_MAX_WEIGHT = 0.2, 0.45
COMMON_WORDS_SKIPPED = 300  # the most frequent train tokens say little about emotion

NEGATORS = [
    "not",
    "no",
    "never",
    "nothing",
    "nobody",
    "neither",
    "nor",
    "without",
    "hardly",
    "barely",
    "cannot",
    "dont",
    "didnt",
    "isnt",
    "wasnt",
    "arent",
    "wont",
    "cant",
    "doesnt",
    "havent",
    "не",
    "ни",
    "нет",
    "никогда",
    "без",
    "нисколько",
    "вовсе",
]
MODIFIERS = {
    **dict.fromkeys(
        "so very really extremely totally incredibly super deeply truly utterly absolutely "
        "too such terribly awfully completely".split(),
        1.3,
    ),
    **dict.fromkeys("slightly somewhat kinda kind sort little bit".split(), 0.6),
    **dict.fromkeys(
        "так очень сильно безумно крайне невероятно настолько совсем ужасно жутко".split(), 1.3
    ),
    **dict.fromkeys("слегка немного чуть немножко".split(), 0.6),
}


def _merge(table: dict, key: str, emotion: str, weight: float) -> None:
    entry = table.setdefault(key, {})
    entry[emotion] = max(entry.get(emotion, 0.0), weight)


def curated(seeds: dict) -> tuple[dict, dict, dict]:
    words, stems, phrases = {}, {}, {}
    for lang in ("en", "ru"):
        for emotion, tiers in seeds[lang].items():
            for weight, forms in tiers.items():
                for form in forms:
                    exact_only = form.endswith("=")
                    form = normalise(form.rstrip("="))
                    _merge(words, form, emotion, float(weight))
                    stem = ru_stem(form) if lang == "ru" and not exact_only else ""
                    if len(stem) >= MIN_RU_STEM:
                        _merge(stems, stem, emotion, float(weight))
        for emotion, tiers in seeds[lang + "_phrases"].items():
            for weight, items in tiers.items():
                for phrase in items:
                    _merge(phrases, " ".join(tokens(phrase)), emotion, float(weight))
    return words, stems, phrases


def learnt(train_path: Path, curated_words: dict, excluded: set[str]) -> dict:
    rows = read_goemotions(train_path)
    label_count = Counter(label for _, label in rows)
    doc_freq: Counter = Counter()
    by_label: dict[str, Counter] = defaultdict(Counter)
    for text, label in rows:
        for token in set(tokens(text)):
            doc_freq[token] += 1
            by_label[label][token] += 1
    common = {w for w, _ in doc_freq.most_common(COMMON_WORDS_SKIPPED)}
    skip = common | set(NEGATORS) | set(MODIFIERS) | set(curated_words) | excluded
    out: dict[str, dict[str, float]] = {}
    for label, counts in by_label.items():
        if label is None:
            continue
        prior = label_count[label] / len(rows)
        for token, hits in counts.items():
            total = doc_freq[token]
            precision = hits / total
            if (
                total < MIN_COUNT
                or token in skip
                or len(token) < 3
                or precision < MIN_PRECISION
                or precision / prior < MIN_LIFT
            ):
                continue
            span = LEARNT_MAX_WEIGHT - LEARNT_MIN_WEIGHT
            weight = LEARNT_MIN_WEIGHT + span * (precision - MIN_PRECISION) / (1 - MIN_PRECISION)
            out[token] = {label: round(weight, 2)}
    return dict(sorted(out.items()))


def build(goemotions_train: Path | None) -> dict:
    seeds = json.loads((RESOURCES / "seeds.json").read_text(encoding="utf-8"))
    words, stems, phrases = curated(seeds)
    excluded = set(seeds.get("learnt_exclude", []))
    provenance = [
        "Pulse Plutchik-10 lexicon, built by core/emotion/lexicon_build.py.",
        "words, ru_stems, phrases: hand-curated seeds (resources/emotion/seeds.json), original work.",
        "NRC EmoLex is NOT used (its licence is research-only).",
    ]
    learnt_words = {}
    if goemotions_train:
        learnt_words = learnt(goemotions_train, words, excluded)
        provenance.append(
            "learnt_words: derived word statistics from the GoEmotions train split (Demszky et "
            "al. 2020, CC BY 4.0), single-label version processed by amazon-science/Glean "
            "(Apache-2.0); label mapping in core/emotion/goemotions_map.py. No text is included."
        )
    return {
        "_provenance": provenance,
        "version": f"{date.today():%Y%m%d}-{len(words)}w-{len(learnt_words)}l",
        "words": dict(sorted(words.items())),
        "ru_stems": dict(sorted(stems.items())),
        "phrases": dict(sorted(phrases.items())),
        "learnt_words": learnt_words,
        "negators": NEGATORS,
        "modifiers": MODIFIERS,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goemotions-train", type=Path)
    parser.add_argument("--out", type=Path, default=RESOURCES / "lexicon.json")
    args = parser.parse_args()
    lexicon = build(args.goemotions_train)
    args.out.write_text(json.dumps(lexicon, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(
        f"{args.out}: {len(lexicon['words'])} words, {len(lexicon['ru_stems'])} Russian stems, "
        f"{len(lexicon['phrases'])} phrases, {len(lexicon['learnt_words'])} learnt words"
    )


if __name__ == "__main__":
    main()
