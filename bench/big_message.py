"""One huge message against the same text in many messages: import time per KB of each shape
at several sizes, side by side (docs/benchmarks.md, "One huge message").

A person pastes a whole journal or letter into one chat message. The text is a journal made
from a seed: first-person sentences with names, relatives, places, dates and feelings, in
paragraphs. The "one" shape is the whole text as one message; the "split" shape is the same
paragraphs, one message each. Each (code, size, shape) is imported offline into a fresh memory
through core's public API (`ingest_files`, what `pulse import` runs) in a child process of its
own, after the models are loaded (model load is not import time).

If the one-message time per KB grows with the size while the split one stays flat, the import
does work that grows faster than the text does.

    nice .venv/bin/python bench/big_message.py --sizes 10,40,160
    nice .venv/bin/python bench/big_message.py --sizes 10,40,160 --code /tmp/pulse-before

`--code DIR` (repeatable) measures another checkout of Pulse too (the code before a change),
with this same script, inputs and machine, in the same run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_RUNS = itertools.count()

PEOPLE = ["Anna", "Marek", "Lena", "Tomás", "Priya", "Jonah", "Sofia", "Idris", "Maya",
          "Oskar", "Hana", "Felix", "Zoë", "Rafael", "Ingrid", "Kofi", "Elena", "Bruno",
          "Noor", "Viktor", "Clara", "Dmitri", "Aisha", "Jules", "Mateo", "Freya", "Yusuf",
          "Greta", "Luca", "Amara"]
SURNAMES = ["Novak", "Haddad", "Lindqvist", "Okafor", "Brennan", "Moreau", "Kowalski",
            "Santos", "Fischer", "Tanaka"]
PLACES = ["Lisbon", "Kraków", "Malmö", "Porto", "Edinburgh", "Ghent", "Bergen", "Trieste",
          "Riverside Park", "the Old Town", "Harbour Street", "Lake Bled"]
RELATIVES = ["sister", "brother", "mom", "dad", "grandma", "aunt", "cousin", "best friend",
             "therapist", "boss", "partner"]
FEELINGS = ["anxious", "relieved", "grateful", "furious", "lonely", "hopeful", "ashamed",
            "proud", "exhausted", "calm", "scared", "happy", "heartbroken", "restless"]
WHEN = ["yesterday", "last Friday", "three weeks ago", "last month", "two years ago",
        "on 7 May 2023", "on the 12th of March", "last weekend", "in 2019", "this morning",
        "a few days ago", "last night"]
ACTIVITIES = ["walked along the river", "cooked dinner", "argued about money",
              "talked for hours", "went to the market", "cleaned the flat", "read in bed",
              "drove to the coast", "sat in the waiting room", "fixed the bike",
              "wrote three pages", "missed the train"]
EVENTS = ["my grandfather died", "I got the job", "we moved to {place}", "Anna got engaged",
          "I was diagnosed with asthma", "we adopted a cat", "I quit my job",
          "{person} broke up with me", "my niece was born", "I graduated"]
TEMPLATES = [
    "{When_} {person} and I {activity}, and I felt {feeling}.",
    "I keep thinking about what {person} said {when}.",
    "My {relative} called {when} and I was {feeling} for the rest of the day.",
    "We met {person} {surname} in {place} {when}.",
    "Honestly, I don't know why I felt so {feeling} when {person} {activity}.",
    "{When_} {event}, and I still feel {feeling} about it.",
    "I think my {relative} {person} noticed that I was {feeling}.",
    "It was raining in {place}, so we {activity} instead.",
    "I told {person} that I was {feeling}, and she just listened.",
    "Maybe I should write to {person} {surname} at Northgate University about it.",
    "The day felt long and ordinary.",
    "I am {feeling} and {feeling2}, both at once.",
]


JOINERS = [", and ", "; ", " — ", ", then "]


def journal(kb: int, seed: int, style: str = "journal") -> list[str]:
    """Paragraphs of first-person text, `kb` KB of it in all (UTF-8), from `seed`. "journal":
    punctuated sentences. "run-on": a letter typed in one breath, each paragraph one long
    sentence (clauses joined by commas, dashes and "and", lower-case after them)."""
    rng = random.Random(seed)
    paragraphs: list[str] = []
    size = 0
    while size < kb * 1024:
        sentences = []
        for _ in range(rng.randint(4, 9)):
            when = rng.choice(WHEN)
            values = {"person": rng.choice(PEOPLE), "surname": rng.choice(SURNAMES),
                      "place": rng.choice(PLACES), "relative": rng.choice(RELATIVES),
                      "feeling": rng.choice(FEELINGS), "feeling2": rng.choice(FEELINGS),
                      "when": when, "When_": when[0].upper() + when[1:],
                      "activity": rng.choice(ACTIVITIES)}
            values["event"] = rng.choice(EVENTS).format(**values)
            sentences.append(rng.choice(TEMPLATES).format(**values))
        if style == "run-on":
            text = sentences[0].rstrip(".")
            for sentence in sentences[1:]:
                clause = sentence.rstrip(".")
                if not clause.startswith("I "):
                    clause = clause[0].lower() + clause[1:]
                text += rng.choice(JOINERS) + clause
            paragraphs.append(text + ",")
        else:
            paragraphs.append(" ".join(sentences))
        size += len(paragraphs[-1].encode("utf-8")) + 2
    return paragraphs


def chat_lines(paragraphs: list[str], shape: str, style: str = "journal") -> list[dict]:
    """One message of the whole text, or one message per paragraph. A run-on letter's
    paragraphs are one line: nothing in it ends a sentence."""
    if shape == "one":
        joiner = " " if style == "run-on" else "\n\n"
        return [{"id": "m1", "speaker": "Nadia", "role": "user", "text": joiner.join(paragraphs),
                 "ts": "2026-01-01T12:00:00Z", "conversation": "journal"}]
    return [{"id": f"m{i + 1}", "speaker": "Nadia", "role": "user", "text": p,
             "ts": f"2026-01-01T{12 + i // 3600 % 12:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z",
             "conversation": "journal"} for i, p in enumerate(paragraphs)]


def child(args: argparse.Namespace) -> None:
    """One import in this process: prints a JSON line with its times and what it made."""
    sys.path.insert(0, args.code[0])
    import core  # noqa: F401  (first: it pins BLAS threads)
    from core.embedding.registry import get_embedder
    from core.emotion import default_tagger
    from core.ingest import ingest_files
    from core.memory import Memory

    get_embedder()
    default_tagger()       # model loads are not import time
    with Memory.open(args.db, create=True) as memory:
        memory.embed_texts(["warm up"])
        memory.tag_texts(["warm up"])
        cpu, wall = time.process_time(), time.perf_counter()
        summary = ingest_files(memory, [args.file], captured_at="2026-01-01T12:00:00Z")
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        total = summary["total"]
    print(json.dumps({"wall_s": wall, "cpu_s": cpu, "events": sum(total["events"].values()),
                      "entities": total["entities"], "facts": total["facts"]}))


def measure(code: str, style: str, kb: int, shape: str, seed: int, work: Path) -> dict:
    chat = work / f"{style}-{shape}-{kb}.jsonl"
    lines = chat_lines(journal(kb, seed, style), shape, style)
    chat.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
                    encoding="utf-8")
    db = work / f"m{next(_RUNS)}.db"
    out = subprocess.run([sys.executable, __file__, "--child", "--code", code, "--db", str(db),
                          "--file", str(chat)], capture_output=True, text=True, check=False,
                         env={**os.environ, "PYTHONPATH": code})
    if out.returncode != 0:
        sys.exit(f"{code} {shape} {kb} KB failed:\n{out.stderr[-3000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    size_kb = sum(len(line["text"].encode("utf-8")) for line in lines) / 1024   # text, not JSON
    return {**result, "size": kb, "kb": round(size_kb, 1),
            "wall_ms_per_kb": round(1000 * result["wall_s"] / size_kb, 1),
            "cpu_ms_per_kb": round(1000 * result["cpu_s"] / size_kb, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,40,160", help="KB of text, comma-separated")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--styles", default="journal,run-on", help="journal, run-on (comma-separated)")
    ap.add_argument("--code", action="append", default=[],
                    help="a checkout of Pulse to measure (repeatable; default: this one)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--db", help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    codes = [str(Path(c).resolve()) for c in args.code] or [str(ROOT)]
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="pulse-big-message-") as tmp:
        for code in codes:
            for style in args.styles.split(","):
                for kb in sizes:
                    for shape in ("split", "one"):
                        row = {"code": code, "style": style, "shape": shape,
                               **measure(code, style, kb, shape, args.seed, Path(tmp))}
                        rows.append(row)
                        print(json.dumps(row), file=sys.stderr, flush=True)
    print(f"{'code':<20} {'style':<8} {'KB':>6} {'shape':<6} {'wall s':>7} {'cpu s':>7}"
          f" {'cpu ms/KB':>10} {'one/split':>9} {'events':>7} {'entities':>8} {'facts':>6}")
    for row in rows:
        split = next(r for r in rows if r["code"] == row["code"] and r["style"] == row["style"]
                     and r["size"] == row["size"] and r["shape"] == "split"
                     ) if row["shape"] == "one" else None
        ratio = f"{row['cpu_s'] / split['cpu_s']:.1f}×" if split else ""
        print(f"{Path(row['code']).name[:20]:<20} {row['style']:<8} {row['kb']:>6} {row['shape']:<6}"
              f" {row['wall_s']:>7.1f} {row['cpu_s']:>7.1f} {row['cpu_ms_per_kb']:>10}"
              f" {ratio:>9} {row['events']:>7} {row['entities']:>8} {row['facts']:>6}")


if __name__ == "__main__":
    main()
