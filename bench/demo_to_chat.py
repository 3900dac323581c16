"""The demo memory's sources as a chat with a companion (`chat` format with roles, docs/cli.md):
what Nadia could have told an AI companion, one turn per demo event, so that an import can be
checked against the demo memory's own entities (resources/demo/demo_memory.json).

For every event, in time order:
  Companion (assistant): a prompt from a fixed list ("What happened?", "Tell me more, Nadia.")
  Nadia (user):          the event's description, word for word (fiction events too: the novel's
                         scenes are what a writer tells a companion about her book)
and, when the event's strongest emotion is ≥ 0.6:
  Companion (assistant): "How did that feel?"
  Nadia (user):          a one-line answer named by that emotion ("Awful. Just awful.")

    .venv/bin/python bench/demo_to_chat.py --out /tmp/demo-chat.jsonl
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "resources" / "demo" / "demo_memory.json"

PROMPTS = ("What happened?", "Tell me more, Nadia.", "How was your day?",
           "Good morning, Nadia! What's on your mind?", "I'm here. Do you want to talk about it?",
           "What's new since we last spoke?", "Thank you for telling me. What else happened?",
           "How is everything going?")
FEELINGS = {"sadness": "Sad. Really sad.", "fear": "Scared, honestly.", "joy": "Happy! So happy.",
            "anger": "Angry. I was so angry.", "shame": "Ashamed.", "guilt": "Guilty, mostly.",
            "trust": "Safe, for once.", "anticipation": "Hopeful, I think.",
            "surprise": "Surprised.", "disgust": "Awful. Just awful."}
FEELING_AT = 0.6


def turns(corpus: dict) -> list[dict]:
    out = []
    for i, event in enumerate(corpus["events"]):
        ts = event["ts"]
        later = (datetime.fromisoformat(ts.replace("Z", "+00:00")) + timedelta(minutes=1)
                 ).strftime("%Y-%m-%dT%H:%M:%SZ")
        key = event["key"]
        out.append({"id": f"{key}:q", "speaker": "Companion", "role": "assistant",
                    "text": PROMPTS[i % len(PROMPTS)], "ts": ts})
        out.append({"id": f"{key}:a", "speaker": "Nadia", "role": "user",
                    "text": event["description"], "ts": ts})
        emotions = event.get("emotions") or {}
        top = max(sorted(emotions), key=lambda name: emotions[name], default=None)
        if top is not None and emotions[top] >= FEELING_AT:
            out.append({"id": f"{key}:fq", "speaker": "Companion", "role": "assistant",
                        "text": "How did that feel?", "ts": later})
            out.append({"id": f"{key}:fa", "speaker": "Nadia", "role": "user",
                        "text": FEELINGS[top], "ts": later})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="/tmp/demo-chat.jsonl")
    ap.add_argument("--corpus", default=str(DEMO))
    args = ap.parse_args()
    rows = turns(json.loads(Path(args.corpus).read_text(encoding="utf-8")))
    Path(args.out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                              encoding="utf-8")
    print(json.dumps({"file": args.out, "turns": len(rows)}))


if __name__ == "__main__":
    main()
