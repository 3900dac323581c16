"""Convert LoCoMo (shared/data/locomo/locomo10.json) to the `chat` format (docs/cli.md): one JSON
Lines file per conversation, one message per dialogue turn:
{"id": "D1:3", "speaker": "Caroline", "text": "...", "ts": "2023-05-08T13:56:00Z",
 "conversation": "conv-26"}  (the session's date is every turn's timestamp).

With --roles each message also says who is who, as a chat with an assistant does: the first
speaker (LoCoMo's speaker_a) is the person ("role": "user"), the other one stands in for the
assistant ("role": "assistant"). Import it with `pulse import FILE --me NAME_OF_SPEAKER_A`.

    .venv/bin/python bench/locomo_to_chat.py --out /tmp/locomo-chat
    .venv/bin/python bench/locomo_to_chat.py --roles --out /tmp/locomo-chat-roles
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import LOCOMO, load_locomo  # noqa: E402


def speaker_a(conv: dict) -> str:
    """LoCoMo's speaker_a: the speaker of the first turn."""
    return conv["turns"][0]["speaker"]


def convert(out: Path, source: Path = LOCOMO, *, roles: bool = False) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for conv in load_locomo(source):
        path = out / f"{conv['sample_id']}.jsonl"
        me = speaker_a(conv)
        with path.open("w", encoding="utf-8") as fh:
            for t in conv["turns"]:
                row = {"id": t["dia_id"], "speaker": t["speaker"], "text": t["text"],
                       "ts": t["ts"].strftime("%Y-%m-%dT%H:%M:%SZ"),
                       "conversation": conv["sample_id"]}
                if roles:
                    row["role"] = "user" if t["speaker"] == me else "assistant"
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        paths.append(path)
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="/tmp/locomo-chat")
    ap.add_argument("--source", default=str(LOCOMO))
    ap.add_argument("--roles", action="store_true",
                    help="speaker_a is the user, speaker_b stands in for the assistant")
    args = ap.parse_args()
    paths = convert(Path(args.out), Path(args.source), roles=args.roles)
    turns = sum(sum(1 for _ in p.open(encoding="utf-8")) for p in paths)
    print(json.dumps({"files": [str(p) for p in paths], "turns": turns}))


if __name__ == "__main__":
    main()
