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
    with pytest.raises(InvalidInputError, match="the query is empty"):
        rag.query("   ", param=QueryParam(mode="naive"))


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
