//! LightRAG's vectors are kept only when the configured embedder reproduces them: the same
//! dimension is not enough (LightRAG does not record the model), a few stored texts are embedded
//! again and compared.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use common::*;
use lightrag_ports::VectorKind;
use serde_json::Value;

/// A copy of `basic/` whose vector matrices hold each record's vector one row late: the same
/// dimension, but vectors another model could have made.
fn basic_with_foreign_vectors() -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(fixture("basic")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, copy.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    for file in ["vdb_chunks.json", "vdb_entities.json", "vdb_relationships.json"] {
        let path = copy.path().join(file);
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let dim = v["embedding_dim"].as_u64().unwrap() as usize;
        let bytes = STANDARD.decode(v["matrix"].as_str().unwrap()).unwrap();
        let row = dim * 4;
        let mut rotated = bytes[row..].to_vec();
        rotated.extend_from_slice(&bytes[..row]);
        v["matrix"] = Value::from(STANDARD.encode(&rotated));
        std::fs::write(&path, v.to_string()).unwrap();
    }
    copy
}

#[tokio::test]
async fn vectors_of_another_model_with_the_same_dimension_are_made_again() {
    let source = basic_with_foreign_vectors();
    let h = Harness::start().await;
    let engine = h.engine(&[]).await;
    let options = lightrag_import::ImportOptions { dir: source.path().to_path_buf(), ..Default::default() };
    let report = lightrag_import::import(
        &engine,
        &options,
        &lightrag_import::NoImportProgress,
        &tokio_util::sync::CancellationToken::new(),
    )
    .await
    .unwrap();
    let check = report.vectors.clone().unwrap();
    assert!(!check.reuse, "{}", check.reason);
    assert!(check.reason.contains("does not reproduce"), "{}", check.reason);
    assert_eq!(report.vectors_embedded, 5 + 40 + 48, "every chunk, entity and relation vector is made again");
    // the vectors now are the configured embedder's: a chunk's stored vector equals its embedding
    let store = engine.store();
    let id = "doc-d2278146f2460e17cd0ad1839f011c2b-chunk-000".to_string();
    let chunk = store.get_chunks(std::slice::from_ref(&id)).await.unwrap().remove(0).unwrap();
    let stored = store.get_vectors(VectorKind::Chunk, &[id]).await.unwrap().remove(0).unwrap();
    let fresh = engine.embed(&[chunk.content], lightrag_ports::TextKind::Passage).await.unwrap().remove(0);
    let cos = lightrag_engine::retrieval::query::chunks::cosine(&stored, &fresh);
    assert!(cos > 0.9999, "cosine {cos}");
    // and queries still find LightRAG's records (the same embedder made them and the query vectors)
    assert_same_graph(&graph(&engine).await, &expected_graph("basic/_expected/graph.json"));
}

#[tokio::test]
async fn vectors_of_another_dimension_are_made_again_without_comparing() {
    let h = Harness::start().await;
    // the scripted embedder answers in the dimension asked for
    let engine = h.engine(&[("EMBEDDING_DIM", "32"), ("EMBEDDING_SEND_DIM", "true")]).await;
    let report = import(&engine, "basic").await;
    let check = report.vectors.clone().unwrap();
    assert!(!check.reuse);
    assert_eq!((check.lightrag_dim, check.dim), (Some(64), 32));
    assert!(check.sample_cosines.is_empty(), "nothing to compare across dimensions");
    assert_eq!(report.vectors_embedded, 5 + 40 + 48);
    let counts = engine.store().vector_counts().await.unwrap();
    assert_eq!((counts[&VectorKind::Chunk], counts[&VectorKind::Entity]), (5, 40));
}

/// A copy of `basic/` whose stored vectors no search can use: every chunk vector NaN, the first
/// entity's vector all zeros, every relation vector infinite in one component.
fn basic_with_unusable_vectors() -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(fixture("basic")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, copy.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    let poison = |file: &str, damage: &dyn Fn(usize, &mut [f32])| {
        let path = copy.path().join(file);
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let dim = v["embedding_dim"].as_u64().unwrap() as usize;
        let bytes = STANDARD.decode(v["matrix"].as_str().unwrap()).unwrap();
        let mut floats: Vec<f32> =
            bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        for (row, values) in floats.chunks_mut(dim).enumerate() {
            damage(row, values);
        }
        let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
        v["matrix"] = Value::from(STANDARD.encode(&bytes));
        std::fs::write(&path, v.to_string()).unwrap();
    };
    poison("vdb_chunks.json", &|_, v| v.fill(f32::NAN));
    poison("vdb_entities.json", &|row, v| {
        if row == 0 {
            v.fill(0.0)
        }
    });
    poison("vdb_relationships.json", &|_, v| v[0] = f32::INFINITY);
    copy
}

/// A LightRAG folder whose vectors are NaN, infinite or zero: those vectors are refused — never
/// kept, never used to decide whether the others are — and made again with the configured
/// embedder; the report says so, `check` finds nothing wrong, and queries find LightRAG's chunks.
#[tokio::test]
async fn an_import_with_nan_vectors_is_refused_and_they_are_made_again() {
    let source = basic_with_unusable_vectors();
    let h = Harness::start().await;
    let engine = h.engine(&[]).await;
    let options = lightrag_import::ImportOptions { dir: source.path().to_path_buf(), ..Default::default() };
    let report = lightrag_import::import(
        &engine,
        &options,
        &lightrag_import::NoImportProgress,
        &tokio_util::sync::CancellationToken::new(),
    )
    .await
    .unwrap();
    let text = report.render();
    assert!(report.complete, "{text}");
    let check = report.vectors.clone().unwrap();
    assert!(check.sample_cosines.iter().all(|c| c.is_finite()), "no unusable vector is a sample: {check:?}");
    assert!(check.reuse, "the usable entity vectors are the embedder's: {}", check.reason);
    assert!(!check.reason.contains("inf") && !check.reason.contains("NaN"), "{}", check.reason);
    assert!(text.contains("54 stored vector(s) hold NaN, infinite values or only zeros"), "{text}");
    assert_eq!(report.vectors_embedded, 5 + 1 + 48, "every refused vector is made again, the others kept");

    let found = engine.check().await.unwrap();
    assert!(found.is_clean(), "no unusable vector was stored: {:?}", found.findings);
    let store = engine.store();
    for kind in [VectorKind::Chunk, VectorKind::Entity, VectorKind::Relation] {
        let page = store.vector_keys_page(kind, None, 1000).await.unwrap();
        assert!(!page.is_empty() && page.iter().all(|v| v.flaw.is_none()), "{kind:?}: {page:?}");
    }
    // naive queries rank the re-made chunk vectors as LightRAG ranked its own
    let expected = fixture_json("basic/_expected/query_data/naive.json");
    for case in expected["results"].as_array().unwrap() {
        let question = case["query"].as_str().unwrap();
        let param = lightrag_engine::retrieval::query::QueryParam::with_mode(
            lightrag_engine::retrieval::query::QueryMode::Naive,
        );
        let got = serde_json::to_value(engine.query_data(question, &param).await.unwrap()).unwrap();
        let ids = |v: &Value| -> std::collections::BTreeSet<String> {
            v.as_array().unwrap().iter().map(|c| c["chunk_id"].as_str().unwrap().to_string()).collect()
        };
        let want = ids(&case["result"]["data"]["chunks"]);
        assert!(!want.is_empty());
        assert_eq!(ids(&got["data"]["chunks"]), want, "{question}");
    }
}
