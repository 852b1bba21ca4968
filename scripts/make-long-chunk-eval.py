#!/usr/bin/env python3
"""Builds a long-chunk variant of the 2WikiMultiHopQA dev set (eval/2wiki) for `lightrag eval`.

The dev set indexes every passage as a document of its own (median 40 words), so few chunks
(54 of 780) are longer than the local model's 256-word-piece window and `LOCAL_EMBEDDING_LONG_TEXT` matters
little there. This variant shuffles the passages with a fixed seed and concatenates them, GROUP
at a time, into documents `doc-NNN` (each passage kept as "<title>\\n\\n<text>", passages separated
by a blank line). With the default GROUP of 10 a document is about 600 words (median; 300 to
1,400): one chunk at the default CHUNK_SIZE of 1,200 tokens (the longest may make two), and about four
model windows of 256 word-pieces.

A question's gold titles become the documents holding its gold passages (two gold passages in the
same document count once), so `lightrag eval` scores whether the documents that hold the needed
passages are retrieved. The shuffle keeps a question's passages from clustering in one document.

Usage: scripts/make-long-chunk-eval.py OUT_DIR [--group 10] [--seed 7] [--eval-dir eval/2wiki]
Writes OUT_DIR/corpus.jsonl and OUT_DIR/questions.jsonl, and prints their sizes; then e.g.
  LLM_BINDING=none lightrag --working-dir KB eval --corpus OUT_DIR/corpus.jsonl \\
      --questions OUT_DIR/questions.jsonl --modes naive,ppr,auto --out RESULTS
"""

import argparse
import json
import random
import statistics
import sys
from pathlib import Path


def read_jsonl(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    sys.exit(f"{path}:{n}: not JSON: {e}")
    return rows


def main():
    root = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--group", type=int, default=10, help="passages per document (default 10)")
    ap.add_argument("--seed", type=int, default=7, help="shuffle seed (default 7)")
    ap.add_argument("--eval-dir", type=Path, default=root / "eval" / "2wiki")
    args = ap.parse_args()
    if args.group < 1:
        sys.exit("--group must be at least 1")

    passages = read_jsonl(args.eval_dir / "corpus.jsonl")
    questions = read_jsonl(args.eval_dir / "questions.jsonl")
    order = list(range(len(passages)))
    random.Random(args.seed).shuffle(order)

    docs = []
    doc_of = {}
    width = len(str(len(order) // args.group + 1))
    for start in range(0, len(order), args.group):
        name = f"doc-{len(docs):0{width}d}"
        blocks = []
        for i in order[start : start + args.group]:
            p = passages[i]
            title = p["title"].strip()
            blocks.append(f"{title}\n\n{p['text'].strip()}")
            doc_of.setdefault(title, name)
        docs.append({"title": name, "text": "\n\n".join(blocks)})

    out_questions = []
    for q in questions:
        gold = []
        for t in q["gold_titles"]:
            doc = doc_of.get(t.strip())
            if doc is None:
                sys.exit(f"gold title {t!r} of {q['question']!r} is not in the corpus")
            if doc not in gold:
                gold.append(doc)
        row = {"question": q["question"], "gold_titles": gold, "passage_gold_titles": q["gold_titles"]}
        if "answer" in q:
            row["answer"] = q["answer"]
        out_questions.append(row)

    args.out_dir.mkdir(parents=True, exist_ok=True)
    with open(args.out_dir / "corpus.jsonl", "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
    with open(args.out_dir / "questions.jsonl", "w", encoding="utf-8") as f:
        for q in out_questions:
            f.write(json.dumps(q, ensure_ascii=False) + "\n")

    words = [len(d["text"].split()) for d in docs]
    merged = sum(1 for q in out_questions if len(q["gold_titles"]) < len(set(q["passage_gold_titles"])))
    print(
        f"{len(docs)} documents of {args.group} passages (last {len(order) - args.group * (len(docs) - 1)}); "
        f"words per document: median {statistics.median(words):.0f}, min {min(words)}, max {max(words)}; "
        f"{len(out_questions)} questions, {merged} with gold passages sharing a document"
    )


if __name__ == "__main__":
    main()
