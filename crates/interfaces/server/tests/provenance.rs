//! `GET /graph/entity/sources` and `GET /graph/relation/sources` over documents indexed with the
//! scripted LLM (its extraction describes an entity as `X is mentioned in the text: "<sentence>"`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use axum::http::{Method, StatusCode};
use common::{Harness, TEXT_A};
use serde_json::{Value, json};

/// Shares "Alice Smith", "Acme Corporation" and their relation with [`TEXT_A`].
const TEXT_C: &str = "Alice Smith joined Acme Corporation in Oslo. Alice Smith later visited the Zenith Laboratory.";

async fn indexed(headers: &[(&str, &str)]) -> Harness {
    let h = Harness::new(&[]).await;
    h.insert(TEXT_A, "alice.txt", headers).await;
    h.insert(TEXT_C, "oslo.txt", headers).await;
    h
}

fn files(v: &Value) -> Vec<&str> {
    v["documents"].as_array().unwrap().iter().map(|d| d["file_path"].as_str().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn entity_sources_list_both_documents_with_text_and_extraction() {
    let h = indexed(&[]).await;
    let reply = h.get("/graph/entity/sources?name=Alice%20Smith").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let v = reply.json();
    assert_eq!(v["entity_name"], "Alice Smith");
    assert!(v["entity_type"].is_string() && v["description"].as_str().is_some_and(|d| !d.is_empty()), "{v}");
    assert_eq!(files(&v), ["alice.txt", "oslo.txt"], "documents in the order they contributed: {v}");
    for doc in v["documents"].as_array().unwrap() {
        assert!(doc["doc_id"].as_str().unwrap().starts_with("doc-"), "{doc}");
        assert_eq!(doc["status"], "processed");
        assert!(!doc["chunk_ids"].as_array().unwrap().is_empty());
    }
    let chunks = v["chunks"].as_array().unwrap();
    assert_eq!(v["total_chunks"].as_u64().unwrap() as usize, chunks.len());
    assert_eq!(chunks.len(), 2, "one chunk per short document: {v}");
    for (chunk, (doc, text)) in chunks.iter().zip([(&v["documents"][0], TEXT_A), (&v["documents"][1], TEXT_C)]) {
        assert_eq!(chunk["doc_id"], doc["doc_id"]);
        assert_eq!(chunk["file_path"], doc["file_path"]);
        assert_eq!(chunk["chunk_id"], doc["chunk_ids"][0]);
        assert_eq!(chunk["chunk_order_index"], 0);
        assert!(chunk["tokens"].as_u64().unwrap() > 0);
        assert_eq!(chunk["content"], text);
        let extracted = chunk["extracted"].as_array().unwrap();
        assert_eq!(extracted.len(), 1, "{chunk}");
        let said = extracted[0]["description"].as_str().unwrap();
        assert!(said.starts_with("Alice Smith is mentioned in the text"), "{said}");
        assert!(text.contains(said.split('"').nth(1).unwrap()), "the description quotes this chunk: {said}");
        assert!(extracted[0]["entity_type"].is_string());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relation_sources_in_either_direction_limits_and_404s() {
    let h = indexed(&[]).await;
    let forward = h.get("/graph/relation/sources?source_entity=Alice%20Smith&target_entity=Acme%20Corporation").await;
    assert_eq!(forward.status, StatusCode::OK, "{}", forward.text());
    let v = forward.json();
    assert_eq!(
        (v["source_entity"].as_str(), v["target_entity"].as_str()),
        (Some("Acme Corporation"), Some("Alice Smith"))
    );
    assert!(v["keywords"].is_string() && v["description"].is_string());
    assert_eq!(files(&v), ["alice.txt", "oslo.txt"]);
    for chunk in v["chunks"].as_array().unwrap() {
        let extracted = &chunk["extracted"][0];
        assert!(extracted["description"].as_str().unwrap().contains("mentioned together"), "{chunk}");
        assert!(extracted["keywords"].is_string() && extracted["weight"].as_f64().unwrap() > 0.0, "{chunk}");
    }
    let backward = h.get("/graph/relation/sources?source_entity=Acme%20Corporation&target_entity=Alice%20Smith").await;
    assert_eq!(backward.json(), v, "relations are undirected");

    // limit bounds the chunks with text, not the documents or the total
    let limited = h.get("/graph/entity/sources?name=Alice%20Smith&limit=1").await.json();
    assert_eq!(limited["chunks"].as_array().unwrap().len(), 1);
    assert_eq!(limited["chunks"][0]["file_path"], "alice.txt");
    assert_eq!(limited["total_chunks"], 2);
    assert_eq!(files(&limited), ["alice.txt", "oslo.txt"]);
    for bad in ["0", "501", "x"] {
        let reply = h.get(&format!("/graph/entity/sources?name=Alice%20Smith&limit={bad}")).await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "limit={bad}");
        assert_eq!(reply.json()["detail"][0]["loc"], json!(["query", "limit"]));
    }
    assert_eq!(h.get("/graph/entity/sources").await.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(h.get("/graph/relation/sources?source_entity=A").await.status, StatusCode::UNPROCESSABLE_ENTITY);

    let missing = h.get("/graph/entity/sources?name=Nobody").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(missing.json()["detail"].as_str().unwrap().contains("Nobody"));
    let missing = h.get("/graph/relation/sources?source_entity=Alice%20Smith&target_entity=Nobody").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(missing.json()["detail"].is_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleted_documents_and_hand_made_entities() {
    let h = indexed(&[]).await;
    let v = h.get("/graph/entity/sources?name=Alice%20Smith").await.json();
    let first = v["documents"][0]["doc_id"].as_str().unwrap().to_string();
    let reply = h.call(Method::DELETE, "/documents/delete_document", &[], Some(json!({"doc_ids": [first]}))).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let after = loop {
        let after = h.get("/graph/entity/sources?name=Alice%20Smith").await.json();
        if after["total_chunks"] == 1 || std::time::Instant::now() > deadline {
            break after;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert_eq!(files(&after), ["oslo.txt"], "{after}");
    assert_eq!(after["chunks"].as_array().unwrap().len(), 1);

    let created = h
        .post("/graph/entity/create", json!({"entity_name": "Handmade", "entity_data": {"description": "By hand."}}))
        .await;
    assert_eq!(created.status, StatusCode::OK, "{}", created.text());
    let v = h.get("/graph/entity/sources?name=Handmade").await.json();
    assert_eq!(v["description"], "By hand.");
    assert_eq!(v["total_chunks"], 0);
    assert_eq!(v["documents"], json!([]));
    assert_eq!(v["chunks"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sources_honour_the_workspace_header() {
    let team = [("LIGHTRAG-WORKSPACE", "team_a")];
    let h = indexed(&team).await;
    let url = "/graph/entity/sources?name=Alice%20Smith";
    assert_eq!(h.call(Method::GET, url, &team, None).await.status, StatusCode::OK);
    assert_eq!(h.get(url).await.status, StatusCode::NOT_FOUND, "the default workspace has no Alice Smith");
    let other = [("LIGHTRAG-WORKSPACE", "team_b")];
    assert_eq!(h.call(Method::GET, url, &other, None).await.status, StatusCode::NOT_FOUND);
}
