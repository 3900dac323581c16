"""Entity precision of an import: how many of the entities an import makes are real people,
places and projects of the person's life (docs/benchmarks.md, "Imports that don't pollute").

Inputs (made by the converters, both chats with roles):
  LoCoMo conversations, `bench/locomo_to_chat.py --roles`: speaker_a is the user, speaker_b
  stands in for the assistant; imported into a fresh memory with --me speaker_a.
  The demo memory's sources, `bench/demo_to_chat.py`: Nadia's turns are the demo events'
  descriptions, the Companion asks; split by event into two halves (e001-e098, e099-e197);
  imported with --me Nadia into a fresh memory, and into the demo memory itself.

Ground truth: bench/labels/entities.json, one label per entity name (how it was made is written
down there, under "how"). For the demo, names that the demo memory already knows (a name or an
alias of one of its 51 entities) take their label from that entity; the rest are labelled by hand.

Metric: real-life precision = made entities in the `real` domain whose label is a real referent
(person, place, org, project, pet) / made entities in the `real` domain. "kind-right" also asks
that the kind made matches the label. Fiction-domain entities and glossary candidates are counted
beside it.

    .venv/bin/python bench/locomo_to_chat.py --roles --out /tmp/locomo-chat-roles
    .venv/bin/python bench/demo_to_chat.py --out /tmp/demo-chat.jsonl
    .venv/bin/python bench/entity_precision.py --set report          # the reported half
    .venv/bin/python bench/entity_precision.py --set tune            # the half tuned on
    .venv/bin/python bench/entity_precision.py --set report --code /tmp/pulse-main   # "before"
    .venv/bin/python bench/entity_precision.py --set report --before /tmp/pulse-main # both

`--code DIR` imports `core` from another checkout of Pulse (the code before a change), so both
sides are measured by this same script on the same inputs. `--before DIR` does both in one
run: the checkout in DIR first (in a child process of this script), then this code, and prints
{"before": …, "after": …}.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import tempfile
import time
from pathlib import Path

# --code must take effect before bench/common.py imports `core` (it does, at import, after
# putting this checkout first on the path unless the path already has it)
sys.path.insert(0, str(Path(__file__).resolve().parent))
for _i, _arg in enumerate(sys.argv):
    if _arg == "--code" and _i + 1 < len(sys.argv) or _arg.startswith("--code="):
        sys.path.insert(0, str(Path(_arg[7:] if "=" in _arg else sys.argv[_i + 1]).resolve()))
        sys.path.append(str(Path(__file__).resolve().parents[1]))
from common import ROOT  # noqa: E402

LABELS = Path(__file__).resolve().parent / "labels" / "entities.json"
DEMO = ROOT / "resources" / "demo" / "demo_memory.json"
SPLITS = {"tune": {"locomo": ["conv-26", "conv-30"], "demo": "first"},
          "report": {"locomo": ["conv-44", "conv-47"], "demo": "second"}}
REAL = {"person", "place", "org", "project", "pet"}
KIND_OF = {"person": {"person"}, "place": {"place", "org"}, "org": {"place", "org"},
           "project": {"project"}, "pet": {"thing"}}
GT_KIND = {"person": "person", "place": "place", "org": "org", "community": "org",
           "thing": "pet", "project": "project"}


def norm(name: str) -> str:
    text = " ".join(name.casefold().replace("’", "'").split())
    return text[4:] if text.startswith("the ") else text


def demo_truth() -> dict[str, str]:
    """Labels from the demo memory's own entities: real-domain people, places, orgs and pets,
    the manuscript as a project; fiction-domain names are fictional; concepts are not."""
    corpus = json.loads(DEMO.read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for ent in corpus["entities"]:
        if ent["domain"] == "fiction_content":
            label = "fictional"
        else:
            label = GT_KIND.get(ent["kind"], "none")
        for name in [ent["name"], *ent.get("aliases", [])]:
            out.setdefault(norm(name), label)
        if label == "person":   # "Dana" for "Dana Whitfield"
            out.setdefault(norm(ent["name"].split()[0]), label)
    return out


def demo_half(path: Path, half: str, out: Path) -> Path:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    keep = [r for r in rows if (int(r["id"][1:4]) <= 98) == (half == "first")]
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in keep),
                   encoding="utf-8")
    return out


def run_import(db: Path, chat: Path, me: str, *, demo_memory: bool) -> dict:
    from core.ingest import ingest_files
    from core.memory import Memory

    with Memory.open(db, create=True) as memory:
        if demo_memory:   # the demo memory as the code under test ships it
            import core

            memory.import_corpus(Path(core.__file__).resolve().parents[1] / "resources" / "demo"
                                 / "demo_memory.json")
        before = memory.conn.execute("SELECT COALESCE(MAX(id), 0) FROM entities").fetchone()[0]
        options = {"me": me} if "me" in inspect.signature(ingest_files).parameters else {}
        cpu, wall = time.process_time(), time.perf_counter()
        ingest_files(memory, [chat], **options)
        seconds = {"wall_s": round(time.perf_counter() - wall, 1),
                   "cpu_s": round(time.process_time() - cpu, 1)}
        made = [dict(r) for r in memory.conn.execute(
            "SELECT canonical_name AS name, kind, domain FROM entities WHERE id > ? ORDER BY id",
            (before,))]
        tables = {r[0] for r in memory.conn.execute("SELECT name FROM sqlite_master")}
        candidates = [r[0] for r in memory.conn.execute(
            "SELECT term FROM glossary_candidates ORDER BY id")] \
            if "glossary_candidates" in tables else []
        texts = [r[0] for r in memory.conn.execute("SELECT content_text FROM observations")]
    return {"made": made, "candidates": candidates, "texts": texts, **seconds}


def score(made: list[dict], candidates: list[str], labels: dict[str, str]) -> dict:
    real = [m for m in made if m["domain"] == "real"]
    fiction = [m for m in made if m["domain"] != "real"]

    def label(name: str) -> str | None:
        return labels.get(norm(name))

    unlabeled = sorted({m["name"] for m in made if label(m["name"]) is None}
                       | {c for c in candidates if label(c) is None})
    right = [m for m in real if label(m["name"]) in REAL]
    kind_right = [m for m in right if m["kind"] in KIND_OF[label(m["name"])]]
    wrong = [f"{m['name']} ({m['kind']}: {label(m['name'])})" for m in real
             if label(m["name"]) not in REAL]
    return {
        "made": len(made), "real_domain": len(real),
        "precision": round(len(right) / len(real), 4) if real else None,
        "precision_kind_right": round(len(kind_right) / len(real), 4) if real else None,
        "real_referents": len(right),
        # recall: the real people and pets made, as the labels count them
        "people": sum(1 for m in real if label(m["name"]) == "person"),
        "pets": sum(1 for m in real if label(m["name"]) == "pet"),
        "fiction_domain": len(fiction),
        "fiction_domain_fictional": sum(1 for m in fiction if label(m["name"]) == "fictional"),
        "candidates": len(candidates),
        "candidates_fictional": sum(1 for c in candidates if label(c) == "fictional"),
        "candidates_real": sorted(c for c in candidates if label(c) in REAL),
        "wrong": wrong, "unlabeled": unlabeled,
        "entities": [f"{m['name']} [{m['kind']}/{m['domain']}] {label(m['name'])}" for m in made],
        "candidate_names": [f"{c} {label(c)}" for c in candidates]}


def context_of(name: str, texts: list[str], limit: int = 2) -> list[str]:
    hits = [t for t in texts if name in t][:limit]
    return [" ".join(t.split())[:220] for t in hits]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=sorted(SPLITS), default="report")
    ap.add_argument("--locomo-chat", default="/tmp/locomo-chat-roles")
    ap.add_argument("--demo-chat", default="/tmp/demo-chat.jsonl")
    ap.add_argument("--code", help="import core from this checkout (the code before a change)")
    ap.add_argument("--show-unlabeled", action="store_true",
                    help="print unlabelled names with the texts they came from (to label them)")
    ap.add_argument("--before", help="measure this checkout first, then the current code")
    args = ap.parse_args()
    if args.before:
        import subprocess

        child = [sys.executable, __file__, "--set", args.set, "--locomo-chat", args.locomo_chat,
                 "--demo-chat", args.demo_chat, "--code", args.before]
        before = json.loads(subprocess.run(child, check=True, capture_output=True,
                                           text=True).stdout)
        print(f"before ({args.before}) done", file=sys.stderr, flush=True)
    import core

    if args.code and Path(core.__file__).resolve().parents[1] != Path(args.code).resolve():
        sys.exit(f"--code {args.code}: core was imported from {core.__file__} instead")

    labels_file = json.loads(LABELS.read_text(encoding="utf-8")) if LABELS.exists() else {}
    split = SPLITS[args.set]
    results: dict[str, dict] = {}
    contexts: dict[str, dict[str, list[str]]] = {}
    with tempfile.TemporaryDirectory(prefix="pulse-entities-") as tmp:
        work = Path(tmp)
        runs = []
        for conv in split["locomo"]:
            chat = Path(args.locomo_chat) / f"{conv}.jsonl"
            me = json.loads(chat.read_text(encoding="utf-8").splitlines()[0])["speaker"]
            runs.append((f"locomo {conv}", chat, me, False,
                         {k.casefold(): v for k, v in labels_file.get("locomo", {}).get(conv, {})
                          .items()}))
        half = demo_half(Path(args.demo_chat), split["demo"], work / "demo-half.jsonl")
        demo_labels = {**demo_truth(), **{norm(k): v for k, v in
                                          labels_file.get("demo", {}).items()}}
        runs.append((f"demo sources ({split['demo']} half), fresh memory", half, "Nadia", False,
                     demo_labels))
        runs.append((f"demo sources ({split['demo']} half), into the demo memory", half, "Nadia",
                     True, demo_labels))
        for i, (name, chat, me, into_demo, labels) in enumerate(runs):
            out = run_import(work / f"m{i}.db", chat, me, demo_memory=into_demo)
            labels = {norm(k): v for k, v in labels.items()}
            results[name] = {**score(out["made"], out["candidates"], labels),
                             "wall_s": out["wall_s"], "cpu_s": out["cpu_s"]}
            contexts[name] = {n: context_of(n, out["texts"]) for n in results[name]["unlabeled"]}
            print(f"{name}: {json.dumps({k: v for k, v in results[name].items() if k not in ('wrong', 'unlabeled', 'entities', 'candidate_names')})}",
                  file=sys.stderr, flush=True)
    out = {"set": args.set, "code": str(Path(core.__file__).resolve().parents[1]),
           "results": results}
    if args.before:
        out = {"set": args.set, "before": before, "after": out}
        for name in results:
            b, a = before["results"].get(name, {}), results[name]
            print(f"{name}: made {b.get('made')} → {a['made']}, precision {b.get('precision')}"
                  f" → {a['precision']} (kind-right {b.get('precision_kind_right')} →"
                  f" {a['precision_kind_right']}), real {b.get('real_referents')} →"
                  f" {a['real_referents']}, people {b.get('people')} → {a['people']},"
                  f" pets {b.get('pets')} → {a['pets']}",
                  file=sys.stderr)
    print(json.dumps(out, indent=1, ensure_ascii=False))
    if args.show_unlabeled:
        for name, ctx in contexts.items():
            for n, texts in ctx.items():
                print(f"[{name}] {n!r}: {texts}", file=sys.stderr)


if __name__ == "__main__":
    main()
