"""Engine commands: init, demo, retrieve, explain, why, set, pin, embed, verify,
digest, stats."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from core.cli.output import Progress, emit
from core.errors import PulseError, ValidationError
from core.files import read_input
from core.memory import Memory, default_db_path, demo_corpus_path


def open_memory(args: argparse.Namespace, *, create: bool = False, path: str | None = None,
                read_only: bool = False, encrypt: bool = False) -> Memory:
    """The memory of --db; an encrypted one asks for its passphrase ($PULSE_PASSPHRASE, else
    the terminal) only when it turns out to be encrypted."""
    target = path or args.db or default_db_path()
    return Memory.open(target, create=create, read_only=read_only, encrypt=encrypt,
                       passphrase=Memory.passphrase_prompt(target, confirm=encrypt))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("init", help="create an empty memory (idempotent)")
    p.add_argument("--encrypt", action="store_true",
                   help="encrypt it (passphrase: $PULSE_PASSPHRASE, else asked twice)")
    p.set_defaults(handler=cmd_init)

    p = sub.add_parser("demo", help="build the demo memory (a fictional person), offline")
    p.add_argument("--out", help="where to write it (default: --db)")
    p.set_defaults(handler=cmd_demo)

    p = sub.add_parser("retrieve", help="ranked events with a per-term breakdown")
    p.add_argument("query", nargs="?")
    add_query_options(p)
    p.add_argument("--storylines", action="store_true",
                   help="one entry per storyline: its summary, dates and best member")
    p.add_argument("--batch", metavar="FILE", help="JSON Lines of queries ('-' for stdin)")
    p.add_argument("--log", action="store_true",
                   help="write this retrieval to the recall log (client \"cli\")")
    p.set_defaults(handler=cmd_retrieve)

    p = sub.add_parser("explain", help="the breakdown for one event, ranked or not")
    p.add_argument("event")
    p.add_argument("--query", required=True)
    add_query_options(p)
    p.set_defaults(handler=cmd_explain)

    p = sub.add_parser("why", help="what led to an event: its causes in the chains, roots first")
    p.add_argument("event", nargs="?", help="the event (id or key); or give --query")
    p.add_argument("--query", help="the event is this query's best match")
    p.add_argument("--depth", type=int, help="how many links back (default: chain_depth, 4)")
    p.add_argument("--domains", help="walk only through these domains")
    p.add_argument("--now", help="ISO-8601 time to score the query at (default: now)")
    p.add_argument("--no-abstain", action="store_false", dest="abstain")
    p.set_defaults(handler=cmd_why)

    p = sub.add_parser("set", help="edit belief fields of an event (journaled)")
    p.add_argument("event")
    p.add_argument("--class", dest="belief_class")
    p.add_argument("--floor", type=float, dest="confidence_floor")
    p.add_argument("--archivable", type=int, choices=(0, 1))
    p.add_argument("--user-flag", type=int, choices=(0, 1), dest="user_flag")
    p.add_argument("--domain")
    p.set_defaults(handler=cmd_set)

    p = sub.add_parser("pin", help="pin an event as a core wound")
    p.add_argument("event")
    p.set_defaults(handler=cmd_pin)

    p = sub.add_parser("embed", help="(re)embed events, with a progress bar")
    p.add_argument("--model")
    p.add_argument("--all", action="store_true", help="re-embed every event")
    p.set_defaults(handler=cmd_embed)

    for name, handler, text in (("verify", cmd_verify, "walk the journal's hash chain"),
                                ("digest", cmd_digest, "content digest of the memory"),
                                ("stats", cmd_stats, "counts of every kind of row")):
        sub.add_parser(name, help=text).set_defaults(handler=handler)


SCORER_NAMES = ("pulse", "dense", "v2", "cosine", "bm25", "v3", "hybrid")


def add_query_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--top-k", type=int, default=10, dest="top_k")
    p.add_argument("--scorer", default="pulse", choices=SCORER_NAMES,
                   help="pulse (default): dense + lexical relevance fused, with recency and the "
                        "mood, body, anchor and date factors; dense: the same on cosine alone; "
                        "v2, cosine, bm25: baselines; v3 and hybrid are the old names of dense "
                        "and pulse")
    p.add_argument("--state", help="UserState JSON file ('-' for stdin)")
    p.add_argument("--now", help="ISO-8601 time to score at (default: now)")
    p.add_argument("--chain", action="store_true",
                   help="order as a story: the best match's chain, its causes first")
    p.add_argument("--domains", help="comma-separated allowed domains")
    p.add_argument("--settings", help="JSON file of scorer constants")
    p.add_argument("--no-abstain", action="store_false", dest="abstain",
                   help="always rank, even when nothing in the memory is relevant")


def query_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {"top_k": args.top_k, "scorer": args.scorer, "now": args.now,
                               "chain": args.chain, "domains": args.domains,
                               "abstain": args.abstain}
    if args.state:
        options["state"] = Memory.parse_state_text(read_input(args.state, what="state"),
                                                   args.state)
    if args.settings:
        options["settings"] = Memory.scorer_settings_from_file(args.settings)
    return options


# -- handlers ---------------------------------------------------------------------------------

def cmd_init(args: argparse.Namespace) -> int:
    target = args.db or default_db_path()
    if args.encrypt and not Memory.is_encrypted(target) and _has_content(target):
        raise PulseError(f"{target}: a plain memory is already there; encrypt it with "
                         "`pulse encrypt`")
    with open_memory(args, create=True, encrypt=args.encrypt) as memory:
        emit(args, {"db": str(memory.path), "schema_version": memory.stats()["schema_version"],
                    "encrypted": memory.encrypted},
             f"{'encrypted ' if memory.encrypted else ''}memory ready at {memory.path}")
    return 0


def _has_content(path: Any) -> bool:
    from pathlib import Path

    path = Path(path)
    return path.exists() and path.stat().st_size > 0


def cmd_demo(args: argparse.Namespace) -> int:
    with open_memory(args, create=True, path=args.out) as memory:
        summary = memory.import_corpus(demo_corpus_path())
        summary["db"] = str(memory.path)
        emit(args, summary, f"demo memory at {memory.path}: {summary['events']} events, "
                            f"{summary['entities']} entities, {summary['facts']} facts added")
    return 0


def cmd_retrieve(args: argparse.Namespace) -> int:
    if args.batch:
        if args.query:
            raise PulseError("give a QUERY or --batch FILE, not both")
        return _retrieve_batch(args)
    if not args.query:
        raise PulseError("give a QUERY or --batch FILE")
    with open_memory(args) as memory:
        out = memory.retrieve(args.query, storylines=args.storylines,
                              log="cli" if args.log else None, **query_options(args))
    emit(args, out, _human_storylines(out) if args.storylines else _human_results(out))
    return 0


def _retrieve_batch(args: argparse.Namespace) -> int:
    allowed = {"query", "top_k", "scorer", "state", "now", "chain", "domains", "abstain",
               "storylines"}
    if args.batch == "-" and args.state == "-":
        raise PulseError("--batch - and --state - cannot both read standard input")
    # the command line's options are every line's defaults; a line's own keys win
    defaults = {**query_options(args), "storylines": args.storylines}
    failed = 0
    with open_memory(args) as memory:
        for number, line in enumerate(read_input(args.batch, what="batch").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                try:
                    item = json.loads(line)
                except ValueError as exc:
                    raise ValidationError(f"not valid JSON ({exc})") from None
                if not isinstance(item, dict) or "query" not in item:
                    raise ValidationError("each line must be an object with a 'query'")
                unknown = sorted(set(item) - allowed)
                if unknown:
                    raise ValidationError(f"unknown key {unknown[0]!r}")
                options = {k: v for k, v in item.items() if k != "query"}
                if "state" in options:
                    options["state"] = Memory.parse_state(options["state"])
                options = {**defaults, **options}
                out = memory.retrieve(item["query"], log="cli" if args.log else None,
                                      **options)
            except PulseError as exc:
                failed += 1
                out = {"line": number, "error": str(exc)}
                print(f"pulse: batch line {number}: {exc}", file=sys.stderr)
            print(json.dumps(out, ensure_ascii=False), flush=True)
    return 1 if failed else 0


def _human_results(out: dict[str, Any]) -> str:
    lines = [f"{out['scorer']} · {out['query']!r} · now {out['now']}"]
    if out.get("abstained"):
        lines.append(f"  {out['abstain_reason']} (--no-abstain ranks anyway)")
        return "\n".join(lines)
    for rank, r in enumerate(out["results"], start=1):
        key = f" [{r['key']}]" if r["key"] else ""
        via = "  (via chain: a cause)" if r.get("via_chain") else ""
        lines.append(f"{rank:>3}. {r['score']:.4f}  #{r['id']}{key} {r['ts'][:10]}  "
                     f"{r['title']}{via}")
        lines += [f"       corrected: {_correction_words(c)}" for c in r.get("corrections", [])]
    if not out["results"]:
        lines.append("  (no results)")
    return "\n".join(lines)


def _correction_words(c: dict[str, Any]) -> str:
    """One correction under a result: what is withdrawn, what to use, where it is recorded."""
    parts = []
    if c["withdrawn"]:
        parts.append("withdrawn " + ", ".join(f'"{t}"' for t in c["withdrawn"]))
    if c["replacement"]:
        parts.append("→ use " + ", ".join(f'"{t}"' for t in c["replacement"]))
    state = "" if c["binding"] else ", not binding"
    return f"{' '.join(parts) or c['note']} (journal row {c['journal_seq']}{state})"


def _human_storylines(out: dict[str, Any]) -> str:
    lines = [f"{out['scorer']} · {out['query']!r} · now {out['now']} · by storyline"]
    if out.get("abstained"):
        lines.append(f"  {out['abstain_reason']} (--no-abstain ranks anyway)")
        return "\n".join(lines)
    for rank, s in enumerate(out["storylines"], start=1):
        span = s["span"]["from"][:10] if s["span"]["from"] == s["span"]["to"] else \
            f"{s['span']['from'][:10]} – {s['span']['to'][:10]}"
        size = f", {s['size']} events" if s["size"] > 1 else ""
        lines.append(f"{rank:>3}. {s['score']:.4f}  {s['storyline']} ({span}{size})  {s['title']}")
        if s["kind"] != "event":
            lines.append(f"       {s['summary']}")
        lines += [f"       corrected: {_correction_words(c)}" for c in s.get("corrections", [])]
    if not out["storylines"]:
        lines.append("  (no results)")
    return "\n".join(lines)


def cmd_explain(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        out = memory.explain(args.event, args.query, **query_options(args))
    emit(args, out)
    return 0


def cmd_why(args: argparse.Namespace) -> int:
    if (args.event is None) == (args.query is None):
        raise PulseError("why: give an EVENT or --query (one of them)")
    with open_memory(args) as memory:
        out = memory.why(args.event, query=args.query, depth=args.depth, domains=args.domains,
                         now=args.now, abstain=args.abstain)
    emit(args, out, _human_why(out))
    return 0


def _human_why(out: dict[str, Any]) -> str:
    if out["abstained"]:
        return f"why {out['query']!r}: {out['abstain_reason']}"
    event = out["event"]
    name = event["key"] or f"#{event['id']}"
    lines = [f"what led to {name} {event['ts'][:10]} {event['title']}"]
    if not out["causes"]:
        lines.append("  (no causes linked within "
                     f"{out['depth']} step{'s' if out['depth'] != 1 else ''})")
    for c in out["causes"]:
        led = ", ".join(str(x["id"]) for x in c["led_to"])
        lines.append(f"  {c['key'] or '#' + str(c['id'])} {c['ts'][:10]}  {c['title']}"
                     f"  ({c['hops']} step{'s' if c['hops'] != 1 else ''} back; led to #{led})")
    return "\n".join(lines)


def cmd_set(args: argparse.Namespace) -> int:
    fields = {k: getattr(args, k) for k in ("belief_class", "confidence_floor", "archivable",
                                            "user_flag", "domain") if getattr(args, k) is not None}
    if not fields:
        raise PulseError("nothing to set (give --class, --floor, --archivable, --user-flag or --domain)")
    with open_memory(args) as memory:
        event_id = memory.current_event(args.event)
        seq = memory.set_belief(event_id, **fields)
        event = memory.event(event_id)
    emit(args, {"event": event["id"], "journal_seq": seq, **{k: event[k] for k in (
        "belief_class", "confidence_floor", "archivable", "user_flag", "domain")}},
        f"event {event['id']}: " + ("unchanged" if seq is None else f"journal row {seq}"))
    return 0


def cmd_pin(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        event_id = memory.current_event(args.event)
        seq = memory.pin(event_id)
        event = memory.event(event_id)
    emit(args, {"event": event["id"], "journal_seq": seq, **{k: event[k] for k in (
        "belief_class", "confidence_floor", "archivable", "user_flag", "provenance")}},
        f"event {event['id']} pinned as a core wound"
        + ("" if seq is None else f" (journal row {seq})"))
    return 0


def cmd_embed(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        out = memory.embed(args.model, all_events=args.all, progress=Progress("embedding"))
    emit(args, out, f"{out['embedded']} of {out['events']} events embedded with {out['model']}")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        breaks = memory.verify()
        # the rows walked: the head's seq overcounts when rows were removed
        rows = memory.conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0]
    if breaks:
        emit(args, {"ok": False, "rows": rows,
                    "breaks": [{"seq": b.seq, "reason": b.reason} for b in breaks]},
             "\n".join(f"BROKEN {b}" for b in breaks))
        return 2
    emit(args, {"ok": True, "rows": rows}, f"journal verified: {rows} rows, chain intact")
    return 0


def cmd_digest(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        value = memory.digest()
    emit(args, {"digest": value}, value)
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        emit(args, memory.stats())
    return 0
