"""``LightRAG``: LightRAG's class, its constructor arguments and defaults, on the lightrag-rs engine.

Each ``a…`` method returns an awaitable on the caller's asyncio loop; the method without the
``a`` runs to completion outside an event loop (with the GIL released while the engine works).
Arguments this version does not act on are refused or warned about by name (README, "Python
package").
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import threading
import warnings
from dataclasses import dataclass, field, fields
from typing import Any, AsyncIterator, Callable, Coroutine, Iterator, Optional, TypeVar, Union

T = TypeVar("T")

from . import _native
from ._bindings import embed_flags, llm_flags, unwrap
from .base import DeletionResult, DocProcessingStatus, QueryParam, _env_bool, _env_float, _env_int
from .exceptions import ConfigurationError, InvalidInputError, NotFoundError
from .utils import EmbeddingFunc


# Constructor arguments that become engine settings: argument → LightRAG's environment name.
_SETTINGS = {
    "working_dir": "WORKING_DIR",
    "workspace": "WORKSPACE",
    "kv_storage": "LIGHTRAG_KV_STORAGE",
    "vector_storage": "LIGHTRAG_VECTOR_STORAGE",
    "graph_storage": "LIGHTRAG_GRAPH_STORAGE",
    "doc_status_storage": "LIGHTRAG_DOC_STATUS_STORAGE",
    "top_k": "TOP_K",
    "chunk_top_k": "CHUNK_TOP_K",
    "max_entity_tokens": "MAX_ENTITY_TOKENS",
    "max_relation_tokens": "MAX_RELATION_TOKENS",
    "max_total_tokens": "MAX_TOTAL_TOKENS",
    "cosine_threshold": "COSINE_THRESHOLD",
    "related_chunk_number": "RELATED_CHUNK_NUMBER",
    "kg_chunk_pick_method": "KG_CHUNK_PICK_METHOD",
    "entity_extract_max_gleaning": "MAX_GLEANING",
    "entity_extract_max_records": "MAX_EXTRACTION_RECORDS",
    "entity_extract_max_entities": "MAX_EXTRACTION_ENTITIES",
    "force_llm_summary_on_merge": "FORCE_LLM_SUMMARY_ON_MERGE",
    "chunk_token_size": "CHUNK_SIZE",
    "chunk_overlap_token_size": "CHUNK_OVERLAP_SIZE",
    "embedding_batch_num": "EMBEDDING_BATCH_NUM",
    "embedding_func_max_async": "EMBEDDING_FUNC_MAX_ASYNC",
    "default_embedding_timeout": "EMBEDDING_TIMEOUT",
    "summary_max_tokens": "SUMMARY_MAX_TOKENS",
    "summary_context_size": "SUMMARY_CONTEXT_SIZE",
    "summary_length_recommended": "SUMMARY_LENGTH_RECOMMENDED",
    "llm_model_max_async": "MAX_ASYNC",
    "default_llm_timeout": "LLM_TIMEOUT",
    "entity_extraction_use_json": "ENTITY_EXTRACTION_USE_JSON",
    "rerank_model_max_async": "MAX_ASYNC_RERANK",
    "default_rerank_timeout": "RERANK_TIMEOUT",
    "min_rerank_score": "MIN_RERANK_SCORE",
    "enable_llm_cache": "ENABLE_LLM_CACHE",
    "enable_llm_cache_for_entity_extract": "ENABLE_LLM_CACHE_FOR_EXTRACT",
    "max_parallel_insert": "MAX_PARALLEL_INSERT",
    "max_graph_nodes": "MAX_GRAPH_NODES",
    "max_source_ids_per_entity": "MAX_SOURCE_IDS_PER_ENTITY",
    "max_source_ids_per_relation": "MAX_SOURCE_IDS_PER_RELATION",
    "source_ids_limit_method": "SOURCE_IDS_LIMIT_METHOD",
    "max_file_paths": "MAX_FILE_PATHS",
}

# Arguments accepted and not acted on (warned about when given another value than LightRAG's default).
_WARNED = {
    "log_level": "deprecated in LightRAG; use setup_logger",
    "log_file_path": "deprecated in LightRAG; use setup_logger",
    "tiktoken_model_name": "lightrag-rs counts tokens with o200k_base (gpt-4o-mini's) whatever the name",
    "tokenizer": "lightrag-rs counts tokens with o200k_base; a Python tokenizer is not called",
    "embedding_cache_config": "lightrag-rs caches LLM answers, not query embeddings by similarity",
    "role_llm_configs": "per-role models are set with EXTRACT_LLM_* / KEYWORD_LLM_* / QUERY_LLM_* settings",
    "enable_content_headings": "chunks carry no content headings here",
    "max_parallel_parse_native": "file parsing runs in lightrag-rs' own readers (CLI/server uploads)",
    "max_parallel_parse_mineru": "MinerU is not supported",
    "max_parallel_parse_docling": "Docling is not supported",
    "max_parallel_analyze": "multimodal analysis is not supported",
    "queue_size_parse": "there is no parse stage",
    "queue_size_analyze": "there is no analyze stage",
    "queue_size_insert": "documents are claimed from the store, not queued in memory",
    "file_path_more_placeholder": "the placeholder is fixed",
    "ollama_server_infos": "the Ollama emulation belongs to `lightrag serve`",
    "auto_manage_storages_states": "deprecated in LightRAG; call initialize_storages()",
}

# Arguments refused when set: they would change results in a way this version cannot honour.
_REFUSED = {
    "chunking_func": "a Python chunking function is not called; use chunk_token_size, "
    "chunk_overlap_token_size and insert(split_by_character=…)",
    "vlm_process_enable": "multimodal (VLM) analysis is not supported",
}

# Environment variables the Python layer reads itself (the openai and ollama functions), which
# the engine's settings would otherwise report as ignored.
_READ_HERE = {"OPENAI_BASE_URL", "OPENAI_API_BASE", "OLLAMA_HOST"}

# addon_params keys acted on → environment names.
_ADDON_SETTINGS = {"language": "SUMMARY_LANGUAGE", "entity_types": "ENTITY_TYPES"}


class _PrivateLoop:
    """The asyncio loop that async Python callables run on during the sync methods (LightRAG
    runs its sync methods on a loop it owns, too). Started on first use, in a daemon thread."""

    def __init__(self) -> None:
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._lock = threading.Lock()

    def get(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="lightrag_rs-loop", daemon=True).start()
                self._loop = loop
            return self._loop

    def stop(self) -> None:
        with self._lock:
            if self._loop is not None:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._loop = None


@dataclass
class LightRAG:
    """A knowledge base: LightRAG's constructor arguments, on the lightrag-rs engine.

    With no ``llm_model_func`` and no ``embedding_func`` (and no ``LLM_BINDING`` /
    ``EMBEDDING_BINDING`` in the environment) it runs offline: the built-in local embedding
    model and rule-based extraction; queries then return the retrieved context.
    """

    working_dir: str = field(default_factory=lambda: os.environ.get("WORKING_DIR", "./rag_storage"))
    kv_storage: str = field(default="JsonKVStorage")
    vector_storage: str = field(default="NanoVectorDBStorage")
    graph_storage: str = field(default="NetworkXStorage")
    doc_status_storage: str = field(default="JsonDocStatusStorage")
    workspace: str = field(default_factory=lambda: os.environ.get("WORKSPACE", ""))
    log_level: Optional[int] = field(default=None)
    log_file_path: Optional[str] = field(default=None)
    top_k: int = field(default_factory=lambda: _env_int("TOP_K", 40))
    chunk_top_k: int = field(default_factory=lambda: _env_int("CHUNK_TOP_K", 20))
    max_entity_tokens: int = field(default_factory=lambda: _env_int("MAX_ENTITY_TOKENS", 6000))
    max_relation_tokens: int = field(default_factory=lambda: _env_int("MAX_RELATION_TOKENS", 8000))
    max_total_tokens: int = field(default_factory=lambda: _env_int("MAX_TOTAL_TOKENS", 30000))
    cosine_threshold: float = field(default_factory=lambda: _env_float("COSINE_THRESHOLD", 0.2))
    related_chunk_number: int = field(default_factory=lambda: _env_int("RELATED_CHUNK_NUMBER", 5))
    kg_chunk_pick_method: str = field(default_factory=lambda: os.environ.get("KG_CHUNK_PICK_METHOD", "VECTOR"))
    enable_content_headings: bool = field(default=True)
    entity_extract_max_gleaning: int = field(default_factory=lambda: _env_int("MAX_GLEANING", 1))
    entity_extract_max_records: int = field(default_factory=lambda: _env_int("MAX_EXTRACTION_RECORDS", 100))
    entity_extract_max_entities: int = field(default_factory=lambda: _env_int("MAX_EXTRACTION_ENTITIES", 40))
    force_llm_summary_on_merge: int = field(default_factory=lambda: _env_int("FORCE_LLM_SUMMARY_ON_MERGE", 8))
    chunk_token_size: Optional[int] = field(default=None)
    chunk_overlap_token_size: Optional[int] = field(default=None)
    tokenizer: Optional[Any] = field(default=None)
    tiktoken_model_name: str = field(default="gpt-4o-mini")
    chunking_func: Optional[Callable[..., Any]] = field(default=None)
    embedding_func: Optional[EmbeddingFunc] = field(default=None)
    embedding_batch_num: int = field(default_factory=lambda: _env_int("EMBEDDING_BATCH_NUM", 10))
    embedding_func_max_async: int = field(default_factory=lambda: _env_int("EMBEDDING_FUNC_MAX_ASYNC", 8))
    embedding_cache_config: dict[str, Any] = field(
        default_factory=lambda: {"enabled": False, "similarity_threshold": 0.95, "use_llm_check": False}
    )
    default_embedding_timeout: int = field(default_factory=lambda: _env_int("EMBEDDING_TIMEOUT", 30))
    llm_model_func: Optional[Callable[..., Any]] = field(default=None)
    role_llm_configs: Optional[dict[str, Any]] = field(default=None)
    llm_model_name: str = field(default="gpt-4o-mini")
    summary_max_tokens: int = field(default_factory=lambda: _env_int("SUMMARY_MAX_TOKENS", 1200))
    summary_context_size: int = field(default_factory=lambda: _env_int("SUMMARY_CONTEXT_SIZE", 12000))
    summary_length_recommended: int = field(default_factory=lambda: _env_int("SUMMARY_LENGTH_RECOMMENDED", 600))
    llm_model_max_async: int = field(default_factory=lambda: _env_int("MAX_ASYNC_LLM", _env_int("MAX_ASYNC", 4)))
    llm_model_kwargs: dict[str, Any] = field(default_factory=dict)
    default_llm_timeout: int = field(default_factory=lambda: _env_int("LLM_TIMEOUT", 240))
    entity_extraction_use_json: bool = field(default_factory=lambda: _env_bool("ENTITY_EXTRACTION_USE_JSON", False))
    rerank_model_func: Optional[Callable[..., Any]] = field(default=None)
    rerank_model_max_async: int = field(default_factory=lambda: _env_int("MAX_ASYNC_RERANK", _env_int("MAX_ASYNC", 4)))
    default_rerank_timeout: int = field(default_factory=lambda: _env_int("RERANK_TIMEOUT", 30))
    min_rerank_score: float = field(default_factory=lambda: _env_float("MIN_RERANK_SCORE", 0.0))
    vector_db_storage_cls_kwargs: dict[str, Any] = field(default_factory=dict)
    enable_llm_cache: bool = field(default=True)
    enable_llm_cache_for_entity_extract: bool = field(
        default_factory=lambda: _env_bool("ENABLE_LLM_CACHE_FOR_EXTRACT", True)
    )
    vlm_process_enable: bool = field(default_factory=lambda: _env_bool("VLM_PROCESS_ENABLE", False))
    max_parallel_insert: int = field(default_factory=lambda: _env_int("MAX_PARALLEL_INSERT", 3))
    max_parallel_parse_native: int = field(default=5)
    max_parallel_parse_mineru: int = field(default=2)
    max_parallel_parse_docling: int = field(default=2)
    max_parallel_analyze: int = field(default=5)
    queue_size_parse: int = field(default=20)
    queue_size_analyze: int = field(default=100)
    queue_size_insert: int = field(default=4)
    max_graph_nodes: int = field(default_factory=lambda: _env_int("MAX_GRAPH_NODES", 1000))
    max_source_ids_per_entity: int = field(default_factory=lambda: _env_int("MAX_SOURCE_IDS_PER_ENTITY", 200))
    max_source_ids_per_relation: int = field(default_factory=lambda: _env_int("MAX_SOURCE_IDS_PER_RELATION", 200))
    source_ids_limit_method: str = field(default_factory=lambda: os.environ.get("SOURCE_IDS_LIMIT_METHOD", "KEEP"))
    max_file_paths: int = field(default_factory=lambda: _env_int("MAX_FILE_PATHS", 75))
    file_path_more_placeholder: str = field(default="truncated")
    addon_params: dict[str, Any] = field(
        default_factory=lambda: {"language": os.environ.get("SUMMARY_LANGUAGE", "English")}
    )
    auto_manage_storages_states: bool = field(default=False)
    cosine_better_than_threshold: float = field(default_factory=lambda: _env_float("COSINE_THRESHOLD", 0.2))
    ollama_server_infos: Optional[Any] = field(default=None)

    def __post_init__(self) -> None:
        self._native: Optional[_native.NativeRag] = None
        self._open_lock = threading.Lock()
        self._private_loop = _PrivateLoop()
        self._flags, self._callables = self._configure()

    # --- configuration -------------------------------------------------------------------

    def _configure(self) -> tuple[dict[str, str], dict[str, Any]]:
        defaults = {f.name: (f.default_factory() if callable(f.default_factory) else f.default) for f in fields(self)}
        for name, why in _REFUSED.items():
            if getattr(self, name) != defaults[name]:
                raise ConfigurationError(f"LightRAG({name}=…) is not supported by lightrag_rs: {why}")
        for name, why in _WARNED.items():
            if getattr(self, name) != defaults[name]:
                warnings.warn(f"LightRAG({name}=…) is ignored by lightrag_rs: {why}", RuntimeWarning, stacklevel=4)
        flags: dict[str, str] = {}
        for name, key in _SETTINGS.items():
            value = getattr(self, name)
            if value is None:
                continue
            flags[key] = str(value).lower() if isinstance(value, bool) else str(value)
        # LightRAG reads the threshold from vector_db_storage_cls_kwargs too
        threshold = self.vector_db_storage_cls_kwargs.get("cosine_better_than_threshold")
        if threshold is None and self.cosine_better_than_threshold != defaults["cosine_better_than_threshold"]:
            threshold = self.cosine_better_than_threshold
        if threshold is not None:
            flags["COSINE_THRESHOLD"] = str(threshold)
        other_kwargs = sorted(k for k in self.vector_db_storage_cls_kwargs if k != "cosine_better_than_threshold")
        if other_kwargs:
            warnings.warn(
                f"LightRAG(vector_db_storage_cls_kwargs=…): {', '.join(other_kwargs)} ignored by lightrag_rs "
                "(vectors live in the store; see VECTOR_* settings)",
                RuntimeWarning,
                stacklevel=4,
            )
        for key, value in self.addon_params.items():
            if key in _ADDON_SETTINGS:
                flags[_ADDON_SETTINGS[key]] = ",".join(value) if isinstance(value, (list, tuple)) else str(value)
            else:
                warnings.warn(f"LightRAG(addon_params={{{key!r}: …}}) is ignored by lightrag_rs", RuntimeWarning, stacklevel=4)
        callables: dict[str, Any] = {}
        if self.llm_model_func is not None:
            binding, bound = unwrap(self.llm_model_func)
            if binding is not None and binding.role == "llm":
                flags.update(llm_flags(binding, bound, self.llm_model_name, self.llm_model_kwargs))
            else:
                callables["llm"] = self.llm_model_func
                callables["llm_model"] = self.llm_model_name
                callables["llm_kwargs"] = json.dumps(self.llm_model_kwargs) if self.llm_model_kwargs else None
        if self.embedding_func is not None:
            ef = self.embedding_func
            if not isinstance(ef, EmbeddingFunc):
                raise ConfigurationError(
                    "LightRAG(embedding_func=…) must be an EmbeddingFunc(embedding_dim=…, func=…): "
                    "the vector size is needed before the first call"
                )
            binding, bound = unwrap(ef.func)
            if binding is not None and binding.role == "embed":
                flags.update(embed_flags(binding, bound, ef.embedding_dim))
            else:
                callables["embed"] = ef.func
                callables["embed_model"] = ef.model_name or getattr(ef.func, "__qualname__", "python_embedding_func")
                callables["embed_dim"] = int(ef.embedding_dim)
            if ef.max_token_size:
                flags["EMBEDDING_TOKEN_LIMIT"] = str(ef.max_token_size)
            if ef.send_dimensions:
                flags["EMBEDDING_SEND_DIM"] = "true"
        if self.rerank_model_func is not None:
            callables["rerank"] = self.rerank_model_func
        return flags, callables

    # --- lifecycle -----------------------------------------------------------------------

    def _open(self) -> _native.NativeRag:
        with self._open_lock:
            if self._native is None:
                native = _native.NativeRag.open(self._flags, **self._callables)
                for key, why in native.ignored:
                    if key in _READ_HERE:
                        continue
                    warnings.warn(f"{key} is ignored by lightrag_rs: {why}", RuntimeWarning, stacklevel=3)
                self._native = native
            return self._native

    async def initialize_storages(self) -> None:
        """Opens the knowledge base (creating it when new)."""
        if self._native is None:
            await asyncio.get_running_loop().run_in_executor(None, self._open)

    async def finalize_storages(self) -> None:
        """Writes what is pending (the usage ledger) and closes the knowledge base."""
        if self._native is not None:
            await self._native.flush(False)
            self._native = None
        self._private_loop.stop()

    async def check_and_migrate_data(self) -> None:
        """Does nothing: the store migrates its own schema when it opens."""

    def _sync(self) -> _native.NativeRag:
        native = self._open()
        native.set_loop(self._private_loop.get())
        return native

    async def _async(self) -> _native.NativeRag:
        await self.initialize_storages()
        native = self._open()
        native.set_loop(asyncio.get_running_loop())
        return native

    # --- inserting -----------------------------------------------------------------------

    @staticmethod
    def _insert_json(
        input: Union[str, list[str]],
        split_by_character: Optional[str],
        split_by_character_only: bool,
        ids: Union[str, list[str], None],
        file_paths: Union[str, list[str], None],
        track_id: Optional[str],
        metadata: Union[dict[str, Any], list[dict[str, Any]], None] = None,
    ) -> str:
        texts = [input] if isinstance(input, str) else list(input)
        id_list = [ids] if isinstance(ids, str) else (list(ids) if ids is not None else None)
        path_list = [file_paths] if isinstance(file_paths, str) else (list(file_paths) if file_paths is not None else None)
        meta_list = [metadata] * len(texts) if isinstance(metadata, dict) else metadata
        for name, values in (("ids", id_list), ("file_paths", path_list), ("metadata", meta_list)):
            if values is not None and len(values) != len(texts):
                raise InvalidInputError(f"{name} must have one entry per document ({len(values)} for {len(texts)})")
        if id_list is not None and len(set(id_list)) != len(id_list):
            raise InvalidInputError("ids must be unique")
        docs = []
        for i, text in enumerate(texts):
            doc: dict[str, Any] = {"content": text}
            if id_list is not None:
                doc["id"] = id_list[i]
            if path_list is not None:
                doc["file_path"] = path_list[i]
            if meta_list is not None and meta_list[i]:
                doc["metadata"] = meta_list[i]
            docs.append(doc)
        return json.dumps(
            {
                "docs": docs,
                "split_by_character": split_by_character,
                "split_by_character_only": split_by_character_only,
                "track_id": track_id,
            }
        )

    def insert(
        self,
        input: Union[str, list[str]],
        split_by_character: Optional[str] = None,
        split_by_character_only: bool = False,
        ids: Union[str, list[str], None] = None,
        file_paths: Union[str, list[str], None] = None,
        track_id: Optional[str] = None,
        metadata: Union[dict[str, Any], list[dict[str, Any]], None] = None,
    ) -> str:
        """Stores and indexes documents; returns the track id. ``metadata`` (ours) is stored with
        each document and matched by query filters."""
        args = self._insert_json(input, split_by_character, split_by_character_only, ids, file_paths, track_id, metadata)
        return str(json.loads(self._sync().insert(True, args))["track_id"])

    async def ainsert(
        self,
        input: Union[str, list[str]],
        split_by_character: Optional[str] = None,
        split_by_character_only: bool = False,
        ids: Union[str, list[str], None] = None,
        file_paths: Union[str, list[str], None] = None,
        track_id: Optional[str] = None,
        metadata: Union[dict[str, Any], list[dict[str, Any]], None] = None,
    ) -> str:
        """``insert`` as an awaitable. Cancelled, it stops after the chunks in flight; the next
        insert resumes what was left."""
        args = self._insert_json(input, split_by_character, split_by_character_only, ids, file_paths, track_id, metadata)
        native = await self._async()
        return str(json.loads(await native.insert(False, args))["track_id"])

    async def apipeline_enqueue_documents(
        self,
        input: Union[str, list[str]],
        ids: Optional[list[str]] = None,
        file_paths: Union[str, list[str], None] = None,
        track_id: Optional[str] = None,
    ) -> str:
        """Stores documents as pending without indexing them; returns the track id."""
        args = self._insert_json(input, None, False, ids, file_paths, track_id)
        native = await self._async()
        return str(json.loads(await native.enqueue(False, args))["track_id"])

    async def apipeline_process_enqueue_documents(
        self, split_by_character: Optional[str] = None, split_by_character_only: bool = False
    ) -> None:
        """Indexes every pending (and failed) document."""
        del split_by_character, split_by_character_only
        native = await self._async()
        await native.process(False)

    def estimate(self, input: Union[str, list[str]], file_paths: Union[str, list[str], None] = None) -> dict[str, Any]:
        """Ours: what inserting ``input`` would cost (calls, tokens, dollars), without a model call."""
        args = self._insert_json(input, None, False, None, file_paths, None)
        return dict(json.loads(self._sync().estimate(True, args)))

    async def aestimate(
        self, input: Union[str, list[str]], file_paths: Union[str, list[str], None] = None
    ) -> dict[str, Any]:
        """``estimate`` as an awaitable."""
        args = self._insert_json(input, None, False, None, file_paths, None)
        native = await self._async()
        return dict(json.loads(await native.estimate(False, args)))

    def insert_custom_kg(self, custom_kg: dict[str, Any], full_doc_id: Optional[str] = None) -> None:
        """Adds entities and relationships given as LightRAG's ``custom_kg`` dict."""
        self._run_sync(self.ainsert_custom_kg(custom_kg, full_doc_id))

    async def ainsert_custom_kg(self, custom_kg: dict[str, Any], full_doc_id: Optional[str] = None) -> None:
        """``insert_custom_kg`` as an awaitable. Its ``chunks`` are refused: insert their text with
        ``ainsert`` (chunks without their document cannot be indexed or deleted exactly here)."""
        del full_doc_id
        if custom_kg.get("chunks"):
            raise InvalidInputError(
                "insert_custom_kg: 'chunks' are not supported by lightrag_rs; insert their text with "
                "ainsert(...) and add entities and relationships here"
            )
        for entity in custom_kg.get("entities", []):
            data = {k: v for k, v in entity.items() if k in ("entity_type", "description", "source_id", "file_path")}
            data.setdefault("description", "")
            await self.acreate_entity(str(entity["entity_name"]), data)
        for relation in custom_kg.get("relationships", []):
            data = {
                k: v for k, v in relation.items() if k in ("description", "keywords", "weight", "source_id", "file_path")
            }
            await self.acreate_relation(str(relation["src_id"]), str(relation["tgt_id"]), data)

    # --- querying ------------------------------------------------------------------------

    @staticmethod
    def _param_json(param: QueryParam) -> str:
        # the history is checked (and its roles mapped) by the application layer, as for the CLI
        history = [dict(m) for m in param.conversation_history]
        query_filter = dict(param.filter) if param.filter else None
        if param.ids:
            query_filter = query_filter or {}
            query_filter["doc_ids"] = list(query_filter.get("doc_ids", [])) + list(param.ids)
        body: dict[str, Any] = {
            "mode": param.mode,
            "only_need_context": param.only_need_context,
            "only_need_prompt": param.only_need_prompt,
            "response_type": param.response_type,
            "stream": param.stream,
            "top_k": param.top_k,
            "chunk_top_k": param.chunk_top_k,
            "max_entity_tokens": param.max_entity_tokens,
            "max_relation_tokens": param.max_relation_tokens,
            "max_total_tokens": param.max_total_tokens,
            "hl_keywords": list(param.hl_keywords),
            "ll_keywords": list(param.ll_keywords),
            "conversation_history": history,
            "user_prompt": param.user_prompt,
            "enable_rerank": param.enable_rerank,
            "include_references": param.include_references,
        }
        if query_filter is not None:
            body["filter"] = query_filter
        if param.chunk_fusion is not None:
            body["chunk_fusion"] = param.chunk_fusion
        return json.dumps(body)

    @staticmethod
    def _no_system_prompt(system_prompt: Optional[str]) -> None:
        if system_prompt is not None:
            raise InvalidInputError(
                "query(system_prompt=…) is not supported by lightrag_rs: the answer prompt is fixed; "
                "add instructions with QueryParam(user_prompt=…)"
            )

    def query(
        self, query: str, param: QueryParam = QueryParam(), system_prompt: Optional[str] = None
    ) -> Union[str, Iterator[str]]:
        """Answers ``query``: the text, or (``param.stream``) an iterator of its pieces."""
        self._no_system_prompt(system_prompt)
        meta, stream = self._sync().query(True, query, self._param_json(param))
        return stream if stream is not None else str(json.loads(meta)["response"])

    async def aquery(
        self, query: str, param: QueryParam = QueryParam(), system_prompt: Optional[str] = None
    ) -> Union[str, AsyncIterator[str]]:
        """``query`` as an awaitable: the text, or (``param.stream``) an async iterator."""
        self._no_system_prompt(system_prompt)
        native = await self._async()
        meta, stream = await native.query(False, query, self._param_json(param))
        return stream if stream is not None else str(json.loads(meta)["response"])

    async def aquery_llm(
        self, query: str, param: QueryParam = QueryParam(), system_prompt: Optional[str] = None
    ) -> dict[str, Any]:
        """The retrieval data and the answer together (LightRAG's ``aquery_llm``)."""
        self._no_system_prompt(system_prompt)
        native = await self._async()
        meta_json, stream = await native.query(False, query, self._param_json(param))
        meta = json.loads(meta_json)
        result = dict(meta["data"])
        result["llm_response"] = {
            "content": meta["response"],
            "response_iterator": stream,
            "is_streaming": stream is not None,
        }
        return result

    def query_llm(self, query: str, param: QueryParam = QueryParam(), system_prompt: Optional[str] = None) -> dict[str, Any]:
        """``aquery_llm``, sync."""
        self._no_system_prompt(system_prompt)
        meta_json, stream = self._sync().query(True, query, self._param_json(param))
        meta = json.loads(meta_json)
        result = dict(meta["data"])
        result["llm_response"] = {"content": meta["response"], "response_iterator": stream, "is_streaming": stream is not None}
        return result

    def query_data(self, query: str, param: QueryParam = QueryParam()) -> dict[str, Any]:
        """Retrieval only: entities, relationships, chunks, references and metadata."""
        return dict(json.loads(self._sync().query_data(True, query, self._param_json(param))))

    async def aquery_data(self, query: str, param: QueryParam = QueryParam()) -> dict[str, Any]:
        """``query_data`` as an awaitable."""
        native = await self._async()
        return dict(json.loads(await native.query_data(False, query, self._param_json(param))))

    # --- deleting ------------------------------------------------------------------------

    def delete_by_doc_id(self, doc_id: str, delete_llm_cache: bool = False) -> DeletionResult:
        """Deletes a document; shared entities and relations are rebuilt from what remains."""
        return self._run_sync(self.adelete_by_doc_id(doc_id, delete_llm_cache))

    async def adelete_by_doc_id(self, doc_id: str, delete_llm_cache: bool = False) -> DeletionResult:
        """``delete_by_doc_id`` as an awaitable (``delete_llm_cache``: also drop the cached LLM
        answers of its extraction)."""
        results = await self.adelete_by_doc_ids([doc_id], delete_llm_cache)
        return results[0]

    async def adelete_by_doc_ids(self, doc_ids: list[str], delete_llm_cache: bool = False) -> list[DeletionResult]:
        """Ours: deletes several documents in one pass (what they share is rebuilt once); one
        result per id, in order: ``success``, ``not_found`` (404), ``not_allowed`` (409: being
        processed) or ``fail`` (the deletion was cancelled before its pass committed)."""
        if not doc_ids:
            return []
        native = await self._async()
        report = json.loads(await native.delete_documents(False, list(doc_ids), delete_llm_cache))
        deleted = {d["doc_id"]: d for d in report.get("deleted", [])}
        not_found = set(report.get("not_found", []))
        busy = set(report.get("busy", []))
        out: list[DeletionResult] = []
        for doc_id in (d.strip() for d in doc_ids):
            if doc_id in deleted:
                doc = deleted[doc_id]
                message = f"Document {doc_id} deleted ({doc.get('chunks_deleted', 0)} chunks)"
                out.append(DeletionResult("success", doc_id, message, 200, doc.get("file_path")))
            elif doc_id in not_found:
                out.append(DeletionResult("not_found", doc_id, f"Document {doc_id} not found.", 404))
            elif doc_id in busy:
                message = f"Document {doc_id} is being processed right now; cancel or wait, then delete it"
                out.append(DeletionResult("not_allowed", doc_id, message, 409))
            else:
                message = f"Deletion of {doc_id} was cancelled before it committed; delete it again"
                out.append(DeletionResult("fail", doc_id, message, 500))
        return out

    def delete_by_entity(self, entity_name: str) -> DeletionResult:
        """Deletes an entity and its relations."""
        return self._run_sync(self.adelete_by_entity(entity_name))

    async def adelete_by_entity(self, entity_name: str) -> DeletionResult:
        """``delete_by_entity`` as an awaitable."""
        native = await self._async()
        try:
            await native.delete_entity(False, entity_name)
        except NotFoundError as e:
            return DeletionResult("not_found", entity_name, str(e), 404)
        return DeletionResult(
            "success", entity_name, f"Entity '{entity_name}' and its relationships have been deleted.", 200
        )

    def delete_by_relation(self, source_entity: str, target_entity: str) -> DeletionResult:
        """Deletes the relation between two entities."""
        return self._run_sync(self.adelete_by_relation(source_entity, target_entity))

    async def adelete_by_relation(self, source_entity: str, target_entity: str) -> DeletionResult:
        """``delete_by_relation`` as an awaitable."""
        native = await self._async()
        name = f"{source_entity} -> {target_entity}"
        try:
            await native.delete_relation(False, source_entity, target_entity)
        except NotFoundError as e:
            return DeletionResult("not_found", name, str(e), 404)
        return DeletionResult(
            "success", name, f"Relation from '{source_entity}' to '{target_entity}' has been deleted.", 200
        )

    # --- graph edits ---------------------------------------------------------------------

    async def acreate_entity(self, entity_name: str, entity_data: dict[str, Any]) -> dict[str, Any]:
        """Creates an entity (``entity_data``: ``description``, ``entity_type``, ``source_id``,
        ``file_path``)."""
        native = await self._async()
        return dict(json.loads(await native.create_entity(False, entity_name, json.dumps(entity_data))))

    def create_entity(self, entity_name: str, entity_data: dict[str, Any]) -> dict[str, Any]:
        """``acreate_entity``, sync."""
        return dict(json.loads(self._sync().create_entity(True, entity_name, json.dumps(entity_data))))

    async def aedit_entity(
        self, entity_name: str, updated_data: dict[str, Any], allow_rename: bool = True, allow_merge: bool = False
    ) -> dict[str, Any]:
        """Edits an entity; ``updated_data["entity_name"]`` renames it (onto an existing one only
        with ``allow_merge``)."""
        native = await self._async()
        return dict(
            json.loads(
                await native.edit_entity(False, entity_name, json.dumps(updated_data), allow_rename, allow_merge)
            )
        )

    def edit_entity(
        self, entity_name: str, updated_data: dict[str, Any], allow_rename: bool = True, allow_merge: bool = False
    ) -> dict[str, Any]:
        """``aedit_entity``, sync."""
        native = self._sync()
        return dict(json.loads(native.edit_entity(True, entity_name, json.dumps(updated_data), allow_rename, allow_merge)))

    async def acreate_relation(
        self, source_entity: str, target_entity: str, relation_data: dict[str, Any]
    ) -> dict[str, Any]:
        """Creates a relation between two existing entities."""
        native = await self._async()
        return dict(
            json.loads(await native.create_relation(False, source_entity, target_entity, json.dumps(relation_data)))
        )

    def create_relation(self, source_entity: str, target_entity: str, relation_data: dict[str, Any]) -> dict[str, Any]:
        """``acreate_relation``, sync."""
        native = self._sync()
        return dict(json.loads(native.create_relation(True, source_entity, target_entity, json.dumps(relation_data))))

    async def aedit_relation(
        self, source_entity: str, target_entity: str, updated_data: dict[str, Any]
    ) -> dict[str, Any]:
        """Edits a relation."""
        native = await self._async()
        return dict(
            json.loads(await native.edit_relation(False, source_entity, target_entity, json.dumps(updated_data)))
        )

    def edit_relation(self, source_entity: str, target_entity: str, updated_data: dict[str, Any]) -> dict[str, Any]:
        """``aedit_relation``, sync."""
        native = self._sync()
        return dict(json.loads(native.edit_relation(True, source_entity, target_entity, json.dumps(updated_data))))

    async def amerge_entities(
        self,
        source_entities: list[str],
        target_entity: str,
        merge_strategy: Optional[dict[str, str]] = None,
        target_entity_data: Optional[dict[str, Any]] = None,
    ) -> dict[str, Any]:
        """Merges ``source_entities`` into ``target_entity`` (created when missing). Descriptions
        are joined and provenance unioned; ``merge_strategy`` is not acted on (warned)."""
        if merge_strategy:
            warnings.warn(
                "merge_entities(merge_strategy=…) is ignored by lightrag_rs: descriptions are joined, "
                "provenance unioned; set fields with target_entity_data",
                RuntimeWarning,
                stacklevel=2,
            )
        native = await self._async()
        data = json.dumps(target_entity_data) if target_entity_data else None
        return dict(json.loads(await native.merge_entities(False, list(source_entities), target_entity, data)))

    def merge_entities(
        self,
        source_entities: list[str],
        target_entity: str,
        merge_strategy: Optional[dict[str, str]] = None,
        target_entity_data: Optional[dict[str, Any]] = None,
    ) -> dict[str, Any]:
        """``amerge_entities``, sync."""
        return self._run_sync(self.amerge_entities(source_entities, target_entity, merge_strategy, target_entity_data))

    # --- export, documents, cache, extras ------------------------------------------------

    _EXPORT_FORMATS = {"csv": "csv", "json": "json", "graphml": "graphml"}

    async def aexport_data(self, output_path: str, file_format: str = "csv", include_vector_data: bool = False) -> None:
        """Writes the graph to ``output_path``: ``csv`` (LightRAG's default), or ours ``json`` and
        ``graphml``. LightRAG's ``excel``, ``md`` and ``txt`` and ``include_vector_data`` are refused."""
        if include_vector_data:
            raise InvalidInputError("export_data(include_vector_data=True) is not supported by lightrag_rs")
        fmt = self._EXPORT_FORMATS.get(file_format.lower())
        if fmt is None:
            raise InvalidInputError(
                f"export_data(file_format={file_format!r}) is not supported by lightrag_rs; use csv, json or graphml"
            )
        native = await self._async()
        await native.export(False, str(output_path), fmt)

    def export_data(self, output_path: str, file_format: str = "csv", include_vector_data: bool = False) -> None:
        """``aexport_data``, sync."""
        self._run_sync(self.aexport_data(output_path, file_format, include_vector_data))

    async def aget_docs_by_ids(self, ids: Union[str, list[str]]) -> dict[str, DocProcessingStatus]:
        """Status records by document id (unknown ids are left out)."""
        id_list = [ids] if isinstance(ids, str) else list(ids)
        native = await self._async()
        found = json.loads(await native.docs_by_ids(False, id_list))
        return {k: DocProcessingStatus.from_json(v) for k, v in found.items()}

    def get_docs_by_ids(self, ids: Union[str, list[str]]) -> dict[str, DocProcessingStatus]:
        """``aget_docs_by_ids``, sync."""
        return self._run_sync(self.aget_docs_by_ids(ids))

    async def aget_docs_by_track_id(self, track_id: str) -> dict[str, DocProcessingStatus]:
        """Status records of the documents of one track id."""
        native = await self._async()
        found = json.loads(await native.docs_by_track_id(False, track_id))
        return {k: DocProcessingStatus.from_json(v) for k, v in found.items()}

    def get_docs_by_track_id(self, track_id: str) -> dict[str, DocProcessingStatus]:
        """``aget_docs_by_track_id``, sync."""
        return self._run_sync(self.aget_docs_by_track_id(track_id))

    async def aclear_cache(self, modes: Optional[list[str]] = None) -> None:
        """Empties the LLM response cache (every mode: ``modes`` is not acted on)."""
        del modes
        native = await self._async()
        await native.clear_cache(False)

    def clear_cache(self, modes: Optional[list[str]] = None) -> None:
        """``aclear_cache``, sync."""
        del modes
        self._sync().clear_cache(True)

    def check(self, repair: bool = False) -> dict[str, Any]:
        """Ours (``lightrag check``): do graph, vectors, chunks and documents agree?"""
        return dict(json.loads(self._sync().check(True, repair)))

    async def acheck(self, repair: bool = False) -> dict[str, Any]:
        """``check`` as an awaitable."""
        native = await self._async()
        return dict(json.loads(await native.check(False, repair)))

    def resolve_entities(self, apply: bool = False, confirm: bool = False) -> dict[str, Any]:
        """Ours (``lightrag graph resolve``): names that denote one entity, merged when ``apply``."""
        return dict(json.loads(self._sync().resolve_entities(True, apply, confirm)))

    async def aresolve_entities(self, apply: bool = False, confirm: bool = False) -> dict[str, Any]:
        """``resolve_entities`` as an awaitable."""
        native = await self._async()
        return dict(json.loads(await native.resolve_entities(False, apply, confirm)))

    def reembed(self) -> None:
        """Ours (``lightrag reembed``): when the knowledge base was built with another embedding
        model than ``embedding_func``, embeds every stored text again with it (no LLM call,
        resumable) and switches, then opens the knowledge base. Does nothing when they match."""
        if self._native is not None:
            return
        self._flags["REEMBED_ON_MODEL_CHANGE"] = "true"
        try:
            self._open()
        finally:
            self._flags.pop("REEMBED_ON_MODEL_CHANGE", None)

    async def areembed(self) -> None:
        """``reembed`` as an awaitable."""
        await asyncio.get_running_loop().run_in_executor(None, self.reembed)

    # --- helpers -------------------------------------------------------------------------

    def _run_sync(self, coro: Coroutine[Any, Any, T]) -> T:
        """Runs an ``a…`` method for its sync form: on a loop of its own, in this thread outside
        an event loop (as LightRAG's sync methods), or in a helper thread inside one."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(coro)
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, coro).result()


__all__ = ["LightRAG", "QueryParam"]
