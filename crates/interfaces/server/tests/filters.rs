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

/// `count` globs that match no stored name.
fn globs(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("nothing-{i}-*.pdf")).collect()
}

/// Regression (issue 26): `/query`, `/query/stream`, `/query/data` accepted a filter of 20,000
/// globs (and any number of ids), matched against every document. A filter over a cap is refused
/// before the query runs, naming the field and the cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filter_of_20000_globs_is_refused_naming_the_cap_on_every_query_route() {
    let h = Harness::new(&[]).await;
    let body = json!({"query": "Who is Alice Smith?", "mode": "naive", "filter": {"file_paths": globs(20_000)}});
    for route in ["/query", "/query/stream"] {
        let reply = h.post(route, body.clone()).await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{route}: {}", reply.text());
        let item = &reply.json()["detail"][0];
        assert_eq!(item["loc"], json!(["body", "filter", "file_paths"]), "{route}: {item}");
        let msg = item["msg"].as_str().unwrap();
        assert!(msg.contains("filter.file_paths has 20000 entries; at most 100 are allowed"), "{route}: {msg}");
    }
    let reply = h.post("/query/data", body).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
    assert!(reply.json()["message"].as_str().unwrap().contains("at most 100"), "{}", reply.text());

    // LightRAG's `ids` counts with filter.doc_ids; a glob longer than any name is refused too
    let ids: Vec<String> = (0..1_001).map(|i| format!("doc-{i}")).collect();
    let reply = h.post("/query", json!({"query": "Who is Alice Smith?", "ids": ids})).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", reply.text());
    assert_eq!(reply.json()["detail"][0]["loc"], json!(["body", "filter", "doc_ids"]), "{}", reply.text());
    assert!(reply.text().contains("at most 1000"), "{}", reply.text());
    let long = json!({"query": "Who is Alice Smith?", "filter": {"file_paths": ["*".repeat(513)]}});
    let reply = h.post("/query", long).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", reply.text());
    assert!(reply.text().contains("at most 512 bytes"), "{}", reply.text());
}

/// A filter at every cap (1,000 ids, 100 globs, 32 metadata keys) is a valid filter and answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filter_at_the_caps_still_answers() {
    let Corpus { h, alice, .. } = corpus().await;
    let mut ids: Vec<String> = (0..999).map(|i| format!("doc-{i}")).collect();
    ids.push(alice);
    let mut paths = globs(99);
    paths.push("alice.*".into());
    let v = data(&h, "naive", json!({"doc_ids": ids, "file_paths": paths})).await;
    assert_eq!(files(&v), ["alice.md"], "{v}");
    let metadata: serde_json::Map<String, Value> =
        (0..32).map(|i| (format!("key-{i}"), json!("x".repeat(1_000)))).collect();
    let v = data(&h, "naive", json!({"metadata": metadata})).await;
    assert_eq!(v["metadata"]["filter"]["documents"], 0, "no document has these keys: {v}");
}

/// `count` processed documents with 255-byte names (no chunks), written straight into the store.
pub(crate) async fn many_documents(h: &Harness, count: usize) {
    let now = lightrag_engine::time::now_ms();
    let rows = (0..count)
        .map(|i| lightrag_ports::DocStatusRecord {
            id: format!("doc-slow-{i:05}"),
            status: lightrag_ports::DocStatus::Processed,
            file_path: format!("{:a<250}{i:05}", ""),
            track_id: String::new(),
            content_summary: String::new(),
            content_length: 0,
            content_hash: format!("hash-{i}"),
            chunks_count: Some(0),
            chunks_list: Vec::new(),
            error_msg: None,
            metadata: serde_json::Map::new(),
            created_at: now,
            updated_at: now,
            lease_owner: None,
            lease_until: None,
        })
        .collect();
    let ws = h.state.workspace("").await.unwrap();
    let changes = lightrag_ports::ChangeSet { doc_status: rows, ..Default::default() };
    ws.engine.commit_changes(changes).await.unwrap();
}

/// 100 globs of 512 bytes that cost the most to match against a name of `a`s: a class of 508
/// characters with `a` last (each one is tried in turn), then a character no name has, at every
/// start the leading `*` tries.
pub(crate) fn slow_globs() -> Vec<String> {
    (0..100).map(|i| format!("*[{}a]{}", "b".repeat(508 - i.to_string().len()), i % 10)).collect()
}

/// Regression (issue 26): two `/query/data` calls with 20,000 globs over 1,000 documents matched
/// them on the async threads for 18 s, and `/documents/status_counts` waited as long. Matching
/// runs on the blocking pool now: while two filters at the caps are being matched, a request on
/// the same runtime answers, and the slow ones end with the 504 of `TIMEOUT` (their matching
/// stops with them).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_counts_answers_while_two_slow_filters_run_and_they_end_with_the_504() {
    let h = Harness::new(&[("TIMEOUT", "2")]).await;
    // fewer than one page of status rows: the old code matched them in one go, without yielding
    many_documents(&h, 999).await;
    let heavy = json!({"query": "Who is Alice Smith?", "mode": "naive", "filter": {"file_paths": slow_globs()}});
    let request = |uri: &str, body: Option<Value>| {
        let mut builder = axum::http::Request::builder().uri(uri);
        builder = match &body {
            Some(_) => builder.method(Method::POST).header("content-type", "application/json"),
            None => builder.method(Method::GET),
        };
        builder.body(axum::body::Body::from(body.map(|b| b.to_string()).unwrap_or_default())).unwrap()
    };
    let spawn = |req: axum::http::Request<axum::body::Body>| {
        let app = h.app.clone();
        // on the runtime's workers, like the server's connections (the test body runs elsewhere)
        tokio::spawn(async move { tower::ServiceExt::oneshot(app, req).await.unwrap() })
    };
    let slow = [spawn(request("/query/data", Some(heavy.clone()))), spawn(request("/query/data", Some(heavy)))];
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let light = spawn(request("/documents/status_counts", None)).await.unwrap();
    assert_eq!(light.status(), StatusCode::OK);
    assert!(
        slow.iter().all(|s| !s.is_finished()),
        "the light request answered only once a slow filter had finished: they held the async threads"
    );
    for s in slow {
        let reply = s.await.unwrap();
        assert_eq!(reply.status(), StatusCode::GATEWAY_TIMEOUT, "the slow filters end at TIMEOUT");
    }
}

/// Regression (issue 26): `/documents/text` stored a 300,000-character `file_source` while
/// uploads capped names at 255 bytes. Every insert route refuses it with the same message
/// naming the field and the limit, and stores nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_300000_character_file_source_is_refused_on_every_insert_route() {
    let h = Harness::new(&[]).await;
    let long = "f".repeat(300_000);
    let reply = h.post("/documents/text", json!({"text": TEXT_A, "file_source": long})).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", &reply.text()[..200]);
    let item = &reply.json()["detail"][0];
    assert_eq!(item["loc"], json!(["body", "file_source"]));
    let msg = item["msg"].as_str().unwrap();
    assert!(msg.starts_with("file_source 'ffff") && msg.contains("is 300000 bytes long"), "{msg}");
    assert!(msg.contains("a document name may have at most 255 bytes"), "{msg}");

    let reply = h.post("/documents/texts", json!({"texts": [TEXT_A, TEXT_B], "file_sources": ["ok.txt", long]})).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", &reply.text()[..200]);
    let item = &reply.json()["detail"][0];
    assert_eq!(item["loc"], json!(["body", "file_sources", "1"]));
    assert!(item["msg"].as_str().unwrap().contains("a document name may have at most 255 bytes"), "{item}");

    // a path is fine while its name is short; the whole is bounded too
    let deep = format!("{}/ok.txt", "d/".repeat(3_000));
    let reply = h.post("/documents/text", json!({"text": TEXT_A, "file_source": deep})).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", reply.text());
    assert!(reply.text().contains("a file path may have at most 4096 bytes"), "{}", reply.text());

    let reply = h.upload(&format!("{}.txt", "u".repeat(1_000)), TEXT_B.as_bytes(), &[]).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
    let detail = reply.json()["detail"].as_str().unwrap().to_string();
    assert!(detail.starts_with("the file name 'uuuu") && detail.contains("at most 255 bytes"), "{detail}");

    let counts = h.get("/documents/status_counts").await.json();
    assert_eq!(counts["status_counts"]["all"], 0, "nothing was stored: {counts}");
}
