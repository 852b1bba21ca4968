"""Deletion, graph edits, export and document lookups."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path

import pytest

from conftest import Scripted
from lightrag_rs import InvalidInputError, LightRAG, NotFoundError, QueryParam
from lightrag_rs.llm.openai import gpt_4o_mini_complete, openai_embed


def make_rag(path: Path) -> LightRAG:
    return LightRAG(working_dir=str(path), llm_model_func=gpt_4o_mini_complete, embedding_func=openai_embed)


def test_delete_by_doc_id_removes_the_document_and_what_only_it_supported(openai_env: Scripted, tmp_path: Path) -> None:
    async def main() -> None:
        rag = make_rag(tmp_path)
        await rag.initialize_storages()
        await rag.ainsert(
            ["Ada Lovelace met Charles Babbage in London.", "Alan Turing worked at Bletchley Park."],
            ids=["doc-ada", "doc-turing"],
            file_paths=["ada.txt", "turing.txt"],
        )
        docs = await rag.aget_docs_by_ids(["doc-ada", "doc-turing", "doc-missing"])
        assert sorted(docs) == ["doc-ada", "doc-turing"]
        assert docs["doc-ada"].status.value == "processed" and docs["doc-ada"].file_path == "ada.txt"
        result = await rag.adelete_by_doc_id("doc-ada")
        assert result.status == "success" and result.status_code == 200 and result.file_path == "ada.txt"
        assert list(await rag.aget_docs_by_ids("doc-ada")) == []
        data = await rag.aquery_data("Who met Babbage?", param=QueryParam(mode="naive"))
        contents = [c["content"] for c in data["data"].get("chunks", [])]
        assert all("Lovelace" not in c for c in contents)
        again = await rag.adelete_by_doc_id("doc-ada")
        assert again.status == "not_found" and again.status_code == 404
        await rag.finalize_storages()

    asyncio.run(main())


def test_graph_edits_create_edit_merge_and_delete(openai_env: Scripted, tmp_path: Path) -> None:
    rag = make_rag(tmp_path)
    rag.insert("Marie Curie worked with Pierre Curie in Paris.")
    created = rag.create_entity("Radium", {"description": "A radioactive element.", "entity_type": "element"})
    assert created["entity_name"] == "Radium" and created["entity_type"] == "element"
    rag.create_entity("Polonium", {"description": "Another element, named after Poland."})
    relation = rag.create_relation("Radium", "Polonium", {"description": "Both found by the Curies.", "keywords": "discovery"})
    assert {relation["src_id"], relation["tgt_id"]} == {"Radium", "Polonium"}
    edited = rag.edit_entity("Radium", {"description": "Element 88."})
    assert edited["description"] == "Element 88."
    renamed = rag.edit_entity("Radium", {"entity_name": "Radium (Ra)"})
    assert renamed["entity_name"] == "Radium (Ra)"
    rel = rag.edit_relation("Radium (Ra)", "Polonium", {"description": "Isolated in 1898."})
    assert rel["description"] == "Isolated in 1898."
    merged = rag.merge_entities(["Polonium"], "Radium (Ra)")
    assert merged["entity_name"] == "Radium (Ra)" and merged["deleted_entities"] == ["Polonium"]
    with pytest.raises(InvalidInputError):
        rag.create_entity("Radium (Ra)", {"description": "again"})
    with pytest.raises(NotFoundError):
        rag.edit_entity("No Such Entity", {"description": "x"})
    assert rag.delete_by_entity("Radium (Ra)").status == "success"
    assert rag.delete_by_entity("Radium (Ra)").status == "not_found"
    assert rag.delete_by_relation("Marie Curie", "Nobody").status == "not_found"


def test_export_data_writes_csv_and_json_and_refuses_excel(openai_env: Scripted, tmp_path: Path) -> None:
    rag = make_rag(tmp_path / "kb")
    rag.insert("Rosalind Franklin photographed DNA at King's College London.")
    rag.export_data(str(tmp_path / "graph.csv"))
    with open(tmp_path / "graph.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and {r["type"] for r in rows} >= {"node"}
    rag.export_data(str(tmp_path / "graph.json"), file_format="json")
    graph = json.loads((tmp_path / "graph.json").read_text())
    assert graph["nodes"]
    with pytest.raises(InvalidInputError, match="file_format='excel'"):
        rag.export_data(str(tmp_path / "graph.xlsx"), file_format="excel")


def test_track_id_and_metadata_filter(openai_env: Scripted, tmp_path: Path) -> None:
    rag = make_rag(tmp_path)
    track = rag.insert(
        ["Kepler described planetary orbits.", "Galileo observed the moons of Jupiter."],
        file_paths=["kepler.md", "galileo.md"],
        metadata=[{"team": "orbits"}, {"team": "moons"}],
    )
    by_track = rag.get_docs_by_track_id(track)
    assert sorted(d.file_path for d in by_track.values()) == ["galileo.md", "kepler.md"]
    question = "Kepler described planetary orbits."
    everything = rag.query_data(question, param=QueryParam(mode="naive"))
    assert "kepler.md" in {c["file_path"] for c in everything["data"]["chunks"]}
    only_moons = rag.query_data(question, param=QueryParam(mode="naive", filter={"metadata": {"team": "moons"}}))
    assert only_moons["metadata"]["filter"] == {"applied": True, "documents": 1, "chunks": 1}
    assert "kepler.md" not in {c["file_path"] for c in only_moons["data"].get("chunks", [])}
    rag.clear_cache()


def test_sync_methods_work_inside_a_running_loop(openai_env: Scripted, tmp_path: Path) -> None:
    async def main() -> None:
        rag = make_rag(tmp_path)
        rag.insert("Mary Anning found ichthyosaur fossils at Lyme Regis.", ids=["doc-anning"])
        answer = rag.query("Who found fossils at Lyme Regis?", param=QueryParam(mode="naive"))
        assert isinstance(answer, str) and "Mary Anning" in answer
        assert rag.delete_by_doc_id("doc-anning").status == "success"
        assert rag.get_docs_by_ids("doc-anning") == {}

    asyncio.run(main())


def test_deleting_several_documents_is_one_call_reporting_each(openai_env: Scripted, tmp_path: Path) -> None:
    # the package used to delete a list one document at a time, rebuilding what they share each time
    async def main() -> None:
        rag = make_rag(tmp_path)
        await rag.ainsert(
            ["Ada Lovelace met Charles Babbage in London.", "Charles Babbage designed the Analytical Engine."],
            ids=["doc-ada", "doc-engine"],
            file_paths=["ada.txt", "engine.txt"],
        )
        results = await rag.adelete_by_doc_ids(["doc-ada", "doc-missing", "doc-engine"], delete_llm_cache=True)
        assert [(r.doc_id, r.status, r.status_code) for r in results] == [
            ("doc-ada", "success", 200),
            ("doc-missing", "not_found", 404),
            ("doc-engine", "success", 200),
        ]
        assert results[0].file_path == "ada.txt" and results[2].file_path == "engine.txt"
        assert await rag.aget_docs_by_ids(["doc-ada", "doc-engine"]) == {}
        with pytest.raises(InvalidInputError, match="doc_ids contains 'doc-ada' twice"):
            await rag.adelete_by_doc_ids(["doc-ada", "doc-ada"])
        assert await rag.adelete_by_doc_ids([]) == []
        await rag.finalize_storages()

    asyncio.run(main())
