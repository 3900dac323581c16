"""Encode `bench/external_vectors.py export`'s texts with a sentence model from a local folder
(Hugging Face layout), in a venv of its own with torch and transformers; never imports the
project, and loads nothing from a hub (local_files_only).

    OTHER_VENV/bin/python bench/encode_sentence_model.py TEXTS.json MODEL_DIR OUT.npz \
        [--pooling mean|cls] [--query-prefix 'query: '] [--passage-prefix 'passage: ']

Mean pooling over the attention mask and unit length, as sentence-transformers does for
all-mpnet-base-v2; the prefixes are for models trained with them (e5).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np


def encode(tokenizer, model, texts: list[str], pooling: str, batch: int = 16) -> np.ndarray:
    import torch

    out = []
    with torch.inference_mode():
        for i in range(0, len(texts), batch):
            enc = tokenizer(texts[i:i + batch], padding=True, truncation=True, max_length=384,
                            return_tensors="pt")
            hidden = model(**enc).last_hidden_state
            if pooling == "cls":
                pooled = hidden[:, 0]
            else:
                mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            out.append(torch.nn.functional.normalize(pooled, dim=-1).numpy())
    return np.vstack(out).astype(np.float32)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("texts", type=Path)
    parser.add_argument("model_dir", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--pooling", choices=("mean", "cls"), default="mean")
    parser.add_argument("--query-prefix", default="")
    parser.add_argument("--passage-prefix", default="")
    parser.add_argument("--name", help="the model's name in the results (default: the folder's)")
    args = parser.parse_args(argv)
    from transformers import AutoModel, AutoTokenizer

    texts = json.loads(args.texts.read_text(encoding="utf-8"))
    tokenizer = AutoTokenizer.from_pretrained(args.model_dir, local_files_only=True)
    model = AutoModel.from_pretrained(args.model_dir, local_files_only=True).eval()
    passages = encode(tokenizer, model, [args.passage_prefix + t for t in texts["passages"]],
                      args.pooling)
    queries = encode(tokenizer, model, [args.query_prefix + t for t in texts["queries"]],
                     args.pooling)
    np.savez(args.out, passages=passages, queries=queries, texts=json.dumps(texts),
             model=args.name or args.model_dir.name)
    print(f"{len(passages)} passages, {len(queries)} queries, {passages.shape[1]} dimensions → "
          f"{args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
