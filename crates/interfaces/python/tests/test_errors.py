"""Arguments refused or warned about by name, and errors with the CLI's messages."""

from __future__ import annotations

import subprocess
from functools import partial
from pathlib import Path

import pytest

from conftest import DIM, Scripted
from lightrag_rs import ConfigurationError, InvalidInputError, LightRAG, LightRAGRsError, QueryParam
from lightrag_rs.llm.openai import gpt_4o_mini_complete, openai_embed
from lightrag_rs.utils import EmbeddingFunc
from test_interop import cli_env


def test_unsupported_arguments_are_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"LightRAG\(chunking_func=…\) is not supported"):
        LightRAG(working_dir=str(tmp_path), chunking_func=lambda *a: [])
    with pytest.raises(ConfigurationError, match=r"LightRAG\(vlm_process_enable=…\)"):
        LightRAG(working_dir=str(tmp_path), vlm_process_enable=True)
    with pytest.raises(ConfigurationError, match="must be an EmbeddingFunc"):
        LightRAG(working_dir=str(tmp_path), embedding_func=lambda texts: texts)  # type: ignore[arg-type]


def test_ignored_arguments_are_warned_about_by_name(tmp_path: Path) -> None:
    with pytest.warns(RuntimeWarning, match=r"LightRAG\(tiktoken_model_name=…\) is ignored"):
        LightRAG(working_dir=str(tmp_path), tiktoken_model_name="cl100k_base")
    with pytest.warns(RuntimeWarning, match=r"addon_params=\{'example_number'"):
        LightRAG(working_dir=str(tmp_path), addon_params={"language": "French", "example_number": 2})


def test_query_with_system_prompt_is_refused(openai_env: Scripted, tmp_path: Path) -> None:
    rag = LightRAG(working_dir=str(tmp_path), llm_model_func=gpt_4o_mini_complete, embedding_func=openai_embed)
    with pytest.raises(InvalidInputError, match="system_prompt"):
        rag.query("a question", system_prompt="Be brief")
    with pytest.raises(InvalidInputError, match="query: String should have at least 3 characters"):
        rag.query("   ", param=QueryParam(mode="naive"))


def test_query_limits_are_the_application_layers_every_problem_named(openai_env: Scripted, tmp_path: Path) -> None:
    # the package used to pass QueryParam to the engine unchecked: top_k=100000 ran a query
    rag = LightRAG(working_dir=str(tmp_path), llm_model_func=gpt_4o_mini_complete, embedding_func=openai_embed)
    with pytest.raises(InvalidInputError) as refused:
        rag.query_data("hi", param=QueryParam(mode="naive", top_k=100_000, chunk_top_k=0))
    assert str(refused.value) == (
        "query: String should have at least 3 characters; top_k: Input should be less than or equal to 1000; "
        "chunk_top_k: Input should be greater than or equal to 1"
    )
    history = [{"content": "no role"}]
    with pytest.raises(InvalidInputError, match=r"conversation_history\.0: Value error, Each message must have a 'role' key"):
        rag.query("Who is Ada?", param=QueryParam(mode="naive", conversation_history=history))


def test_a_blank_document_is_refused_naming_it_and_nothing_is_stored(openai_env: Scripted, tmp_path: Path) -> None:
    rag = LightRAG(working_dir=str(tmp_path), llm_model_func=gpt_4o_mini_complete, embedding_func=openai_embed)
    with pytest.raises(InvalidInputError, match=r"^input\.1: String should have at least 1 character$"):
        rag.insert(["A real text about Ada.", "  \n "], ids=["doc-a", "doc-blank"])
    assert rag.get_docs_by_ids(["doc-a", "doc-blank"]) == {}


def test_other_embedding_model_error_is_the_clis(openai_env: Scripted, lightrag_bin: Path, tmp_path: Path) -> None:
    url = openai_env.url
    small = EmbeddingFunc(DIM, partial(openai_embed.func, model="scripted-embed", base_url=url, api_key="k"))
    LightRAG(working_dir=str(tmp_path), llm_model_func=gpt_4o_mini_complete, embedding_func=small).insert("One text.")
    # the CLI's settings name another model than the one the knowledge base was built with
    cli = subprocess.run([str(lightrag_bin), "status"], env=cli_env(openai_env, tmp_path), capture_output=True, text=True)
    assert cli.returncode != 0
    cli_message = cli.stderr.strip().removeprefix("error: ")
    other = LightRAG(working_dir=str(tmp_path), llm_model_func=gpt_4o_mini_complete, embedding_func=openai_embed)
    with pytest.raises(LightRAGRsError) as refused:
        other.query("anything at all", param=QueryParam(mode="naive"))
    assert str(refused.value) == cli_message
