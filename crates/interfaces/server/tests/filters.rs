//! Query-time filters over documents indexed with the scripted LLM (its extraction describes an
//! entity as `X is mentioned in the text: "<sentence>"`, so a description fragment tells which
//! document it came from): every retrieval mode sees only the passing documents' chunks and the
//! entities and relations they support, with descriptions rebuilt from those chunks alone.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use axum::http::{Method, StatusCode};
use common::{Harness, TEXT_A, TEXT_B};
use serde_json::{Value, json};

/// Shares "Alice Smith" and "Acme Corporation" with [`TEXT_A`] and "Zenith Laboratory" with
/// [`TEXT_B`].
const TEXT_C: &str = "Alice Smith joined Acme Corporation in Oslo. Alice Smith later visited the Zenith Laboratory.";

const SEP: &str = "<SEP>";

/// Inserts a text with metadata and waits until it is processed; returns its document id.
async fn insert(h: &Harness, text: &str, source: &str, metadata: Value) -> String {
    let body = json!({"text": text, "file_source": source, "metadata": metadata});
    let reply = h.post("/documents/text", body).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let track = reply.json()["track_id"].as_str().unwrap().to_string();
    let status = h.wait_track(&track, &[]).await;
    assert_eq!(status["documents"][0]["status"], "processed", "{status}");
    status["documents"][0]["id"].as_str().unwrap().to_string()
}

struct Corpus {
    h: Harness,
    alice: String,
    /// A time after `alice.md` was created and before the others were.
    between: i64,
}

async fn corpus() -> Corpus {
    let h = Harness::new(&[]).await;
    let alice = insert(&h, TEXT_A, "alice.md", json!({"team": "ops", "tags": ["hr", "berlin"]})).await;
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let between = lightrag_engine::time::now_ms();
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    insert(&h, TEXT_C, "oslo.txt", json!({"team": "research"})).await;
    insert(&h, TEXT_B, "zenith.txt", json!({"team": "research", "year": 2024})).await;
    Corpus { h, alice, between }
}

/// `/query/data` with fixed keywords (both lists, so no keyword call decides the result).
async fn data(h: &Harness, mode: &str, filter: Value) -> Value {
    let body = json!({
        "query": "Who is Alice Smith and what happens at the Zenith Laboratory?",
        "mode": mode,
        "ll_keywords": ["Alice Smith", "Zenith Laboratory"],
        "hl_keywords": ["research", "employment"],
        "filter": filter,
    });
    let reply = h.post("/query/data", body).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    reply.json()
}

/// Every file path a result names: chunks, references, entities and relations.
fn files(v: &Value) -> Vec<String> {
    let d = &v["data"];
    let mut out: Vec<String> = Vec::new();
    for list in ["chunks", "references", "entities", "relationships"] {
        for item in d[list].as_array().into_iter().flatten() {
            out.extend(item["file_path"].as_str().unwrap().split(SEP).map(str::to_string));
        }
    }
    out.sort();
    out.dedup();
    out
}

fn entity<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    v["data"]["entities"].as_array()?.iter().find(|e| e["entity_name"] == name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_mode_sees_only_the_documents_that_pass_and_shared_entities_are_rebuilt_from_them() {
    let Corpus { h, .. } = corpus().await;
    // unfiltered, the shared entity holds both documents' fragments: the filter has work to do
    let all = data(&h, "local", Value::Null).await;
    let shared = entity(&all, "Alice Smith").expect("Alice Smith is found unfiltered");
    assert!(shared["description"].as_str().unwrap().contains("Oslo"), "{shared}");
    assert_eq!(shared["file_path"], format!("alice.md{SEP}oslo.txt"), "{shared}");
    assert!(files(&all).contains(&"oslo.txt".to_string()));

    for mode in ["local", "global", "hybrid", "naive", "mix", "ppr", "auto"] {
        let v = data(&h, mode, json!({"metadata": {"team": "ops"}})).await;
        assert_eq!(v["status"], "success", "{mode}: {v}");
        assert_eq!(files(&v), ["alice.md"], "{mode} only draws on alice.md: {v}");
        assert_eq!(v["metadata"]["filter"], json!({"applied": true, "documents": 1, "chunks": 1}), "{mode}: {v}");
        if let Some(shared) = entity(&v, "Alice Smith") {
            let description = shared["description"].as_str().unwrap();
            assert!(description.contains("Berlin") && !description.contains("Oslo"), "{mode}: {description}");
            assert!(!shared["source_id"].as_str().unwrap().contains(SEP), "{mode}: one passing chunk: {shared}");
        } else {
            assert!(mode == "naive" || mode == "global", "{mode} finds Alice Smith by her name: {v}");
        }
        for r in v["data"]["relationships"].as_array().into_iter().flatten() {
            assert!(!r["description"].as_str().unwrap().contains("Oslo"), "{mode}: {r}");
        }
    }
    // an entity only the other documents support is never shown
    let v = data(&h, "local", json!({"metadata": {"team": "ops"}})).await;
    assert!(entity(&v, "Zenith Laboratory").is_none(), "{v}");
    assert!(entity(&all, "Zenith Laboratory").is_some(), "{all}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn globs_ids_times_metadata_and_the_ids_alias_select_documents() {
    let Corpus { h, alice, between } = corpus().await;
    let naive = |filter: Value| {
        let h = &h;
        async move { files(&data(h, "naive", filter).await) }
    };
    assert_eq!(naive(json!({"file_paths": ["*.txt"]})).await, ["oslo.txt", "zenith.txt"]);
    assert_eq!(naive(json!({"file_paths": ["zen*", "alice.?d"]})).await, ["alice.md", "zenith.txt"]);
    assert_eq!(naive(json!({"doc_ids": [alice]})).await, ["alice.md"]);
    assert_eq!(naive(json!({"created_before": between})).await, ["alice.md"]);
    let iso = lightrag_engine::time::iso(between);
    assert_eq!(naive(json!({"created_after": iso})).await, ["oslo.txt", "zenith.txt"]);
    assert_eq!(naive(json!({"metadata": {"team": "research", "year": 2024}})).await, ["zenith.txt"]);
    assert_eq!(naive(json!({"metadata": {"tags": "hr"}})).await, ["alice.md"], "a stored list matches by element");
    assert_eq!(naive(json!({"metadata": {"team": "research"}, "file_paths": ["o*"]})).await, ["oslo.txt"]);

    // LightRAG's `ids` is the same as filter.doc_ids
    let body = json!({"query": "Who is Alice Smith?", "mode": "naive", "ids": [alice]});
    let v = h.post("/query/data", body).await.json();
    assert_eq!(files(&v), ["alice.md"], "{v}");
    // the trace says so too
    let body = json!({"query": "Who is Alice Smith?", "mode": "naive", "ids": [alice], "include_trace": true});
    let v = h.post("/query", body).await.json();
    assert_eq!(v["trace"]["filter"], json!({"applied": true, "documents": 1, "chunks": 1}), "{v}");

    // the documents API shows the metadata under metadata.custom
    let docs = h.get("/documents").await.json();
    let text = docs.to_string();
    assert!(text.contains(r#""custom":{"tags":["hr","berlin"],"team":"ops"}"#), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filter_matching_nothing_is_no_results_and_a_bad_one_is_refused() {
    let Corpus { h, .. } = corpus().await;
    for mode in ["mix", "naive", "ppr", "auto"] {
        let v = data(&h, mode, json!({"metadata": {"team": "nobody"}})).await;
        assert_eq!(v["status"], "failure", "{mode}: {v}");
        assert_eq!(v["metadata"]["filter"]["documents"], 0, "{v}");
    }
    let body = json!({"query": "Who is Alice Smith?", "mode": "mix", "filter": {"metadata": {"team": "nobody"}}});
    let reply = h.post("/query", body).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert!(reply.json()["response"].as_str().unwrap().contains("Sorry"), "the fail response: {}", reply.text());

    let bad_glob = json!({"query": "Who is Alice Smith?", "filter": {"file_paths": ["[oops"]}});
    let reply = h.post("/query/data", bad_glob.clone()).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
    assert!(reply.text().contains("[oops"), "{}", reply.text());
    assert_eq!(h.post("/query", bad_glob).await.status, StatusCode::UNPROCESSABLE_ENTITY);
    let bad_time = json!({"query": "Who is Alice Smith?", "filter": {"created_after": "last tuesday"}});
    let reply = h.post("/query", bad_time).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", reply.text());
    assert!(reply.text().contains("RFC 3339"), "{}", reply.text());
    let unknown = json!({"query": "Who is Alice Smith?", "filter": {"doc_id": ["x"]}});
    assert_eq!(h.post("/query", unknown).await.status, StatusCode::UNPROCESSABLE_ENTITY);

    let bad_metadata = json!({"text": "Some text here.", "file_source": "x.txt", "metadata": ["not", "an", "object"]});
    let reply = h.post("/documents/text", bad_metadata).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
    assert!(reply.text().contains("JSON object"), "{}", reply.text());
    let huge = json!({"text": "Some text here.", "file_source": "y.txt", "metadata": {"k": "v".repeat(70_000)}});
    assert_eq!(h.post("/documents/text", huge).await.status, StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_question_under_two_filters_gets_two_answers_not_a_cached_one() {
    let Corpus { h, .. } = corpus().await;
    let ask = |filter: Value| {
        let h = &h;
        async move {
            let question = "Who is Alice Smith and what happens at the Zenith Laboratory?";
            let body = json!({"query": question, "mode": "naive", "filter": filter, "include_references": true});
            let reply = h.call(Method::POST, "/query", &[], Some(body)).await;
            assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
            reply.json()["response"].as_str().unwrap().to_string()
        }
    };
    let ops = ask(json!({"metadata": {"team": "ops"}})).await;
    let research = ask(json!({"file_paths": ["zenith.txt"]})).await;
    assert!(ops.contains("Berlin Robotics") && !ops.contains("Aurora"), "{ops}");
    assert!(research.contains("Aurora") && !research.contains("Berlin Robotics"), "{research}");
    assert_eq!(ask(json!({"metadata": {"team": "ops"}})).await, ops, "the same filter finds its own answer again");
}

/// `/documents/upload` with a `metadata` field before `file`.
async fn upload_with_metadata(h: &Harness, name: &str, content: &str, metadata: &str) -> common::Reply {
    let body = format!(
        "--XB\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n{metadata}\r\n\
         --XB\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\
         Content-Type: text/plain\r\n\r\n{content}\r\n--XB--\r\n"
    );
    let request = axum::http::Request::builder()
        .method(Method::POST)
        .uri("/documents/upload")
        .header("content-type", "multipart/form-data; boundary=XB")
        .body(axum::body::Body::from(body))
        .unwrap();
    h.send(request).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_carries_metadata_that_filters_match() {
    let h = Harness::new(&[]).await;
    let reply = upload_with_metadata(&h, "zenith.txt", TEXT_B, r#"{"team": "research"}"#).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let track = reply.json()["track_id"].as_str().unwrap().to_string();
    assert_eq!(h.wait_track(&track, &[]).await["documents"][0]["status"], "processed");
    insert(&h, TEXT_A, "alice.md", json!({"team": "ops"})).await;
    assert_eq!(files(&data(&h, "naive", json!({"metadata": {"team": "research"}})).await), ["zenith.txt"]);

    let reply = upload_with_metadata(&h, "other.txt", "Some other text.", "[1, 2]").await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
    assert!(reply.text().contains("JSON object"), "{}", reply.text());
    let reply = upload_with_metadata(&h, "other.txt", "Some other text.", "{not json").await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
}

/// Regression: a replacing upload kept the first version's metadata, so a filter on the new
/// metadata missed the document.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_version_uploaded_with_metadata_takes_it() {
    let h = Harness::new(&[]).await;
    let reply = upload_with_metadata(&h, "zenith.txt", TEXT_B, r#"{"team": "research"}"#).await;
    let track = reply.json()["track_id"].as_str().unwrap().to_string();
    assert_eq!(h.wait_track(&track, &[]).await["documents"][0]["status"], "processed");

    let changed = format!("{TEXT_B} The laboratory moved to a new building.");
    let reply = upload_with_metadata(&h, "zenith.txt", &changed, r#"{"team": "ops"}"#).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let track = reply.json()["track_id"].as_str().unwrap().to_string();
    let status = h.wait_track(&track, &[]).await;
    assert_eq!(status["documents"][0]["status"], "processed", "{status}");
    assert_eq!(status["documents"][0]["metadata"]["custom"], json!({"team": "ops"}), "{status}");
    assert_eq!(files(&data(&h, "naive", json!({"metadata": {"team": "ops"}})).await), ["zenith.txt"]);
    assert!(files(&data(&h, "naive", json!({"metadata": {"team": "research"}})).await).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_query_takes_the_filter_too() {
    let Corpus { h, .. } = corpus().await;
    let body = json!({
        "query": "Who is Alice Smith and what happens at the Zenith Laboratory?",
        "mode": "naive",
        "filter": {"file_paths": ["zenith.txt"]},
    });
    let reply = h.post("/query/stream", body).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let text = reply.text();
    assert!(text.contains("zenith.txt") && !text.contains("alice.md"), "{text}");
    assert!(text.contains("Aurora") && !text.contains("Berlin Robotics"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn texts_take_one_metadata_object_per_text() {
    let h = Harness::new(&[]).await;
    let body = json!({
        "texts": [TEXT_A, TEXT_B],
        "file_sources": ["alice.md", "zenith.txt"],
        "metadatas": [null, {"team": "research"}],
    });
    let reply = h.post("/documents/texts", body).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let status = h.wait_track(reply.json()["track_id"].as_str().unwrap(), &[]).await;
    assert_eq!(status["documents"].as_array().unwrap().len(), 2, "{status}");
    assert_eq!(files(&data(&h, "naive", json!({"metadata": {"team": "research"}})).await), ["zenith.txt"]);
    assert_eq!(files(&data(&h, "naive", Value::Null).await), ["alice.md", "zenith.txt"]);

    let wrong = json!({"texts": ["One text."], "file_sources": ["one.txt"], "metadatas": [{}, {}]});
    let reply = h.post("/documents/texts", wrong).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
    assert!(reply.text().contains("metadatas"), "{}", reply.text());
}
