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
    let cos = lightrag_engine::query::chunks::cosine(&stored, &fresh);
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
