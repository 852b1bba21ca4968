//! Admission is decided once, by the store, as it enqueues (issue 26 items 3 and 11): racing
//! inserts and uploads of one name give one success and 409s — never a "success" that becomes a
//! failed duplicate record — and every track id returned shows its document.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::{Harness, Reply, TEXT_A, call_to};
use lightrag_scripted_llm::Fault;

/// Holds every model answer back, so that nothing admitted during a race is indexed before the
/// race is over (a late racer would then meet an indexed document, and a new version of an
/// indexed document is admitted).
fn hold_the_model(h: &Harness) {
    h.llm.set_faults(vec![Fault::delay(3_000, u32::MAX)]);
}

fn release_the_model(h: &Harness) {
    h.llm.set_faults(Vec::new());
}

async fn documents(h: &Harness) -> Vec<Value> {
    let reply = h.post("/documents/paginated", json!({"page": 1, "page_size": 100})).await;
    reply.json()["documents"].as_array().unwrap().clone()
}

/// The one 200 among `replies` (its index), every other a 409 saying why.
fn one_success(replies: &[Reply]) -> usize {
    let statuses: Vec<StatusCode> = replies.iter().map(|r| r.status).collect();
    let ok: Vec<usize> = (0..replies.len()).filter(|i| replies[*i].status == StatusCode::OK).collect();
    assert_eq!(ok.len(), 1, "exactly one success: {statuses:?}");
    for reply in replies.iter().filter(|r| r.status != StatusCode::OK) {
        assert_eq!(reply.status, StatusCode::CONFLICT, "{}", reply.text());
        let detail = reply.json()["detail"].as_str().unwrap().to_string();
        assert!(detail.contains("r.txt"), "a 409 names the document: {detail}");
    }
    ok[0]
}

/// Regression (issue 26 item 3): 16 concurrent `/documents/text` with one new `file_source` all
/// answered 200 while one was indexed and the others became failed `dup-` records. The requests
/// go to two servers on one knowledge base (two processes), so no lock of one process decides.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_text_inserts_of_one_new_name_on_two_servers_give_one_200_and_no_failed_record() {
    let h = Harness::new(&[]).await;
    let other = h.sibling();
    // both servers have the workspace open before the race
    for app in [&h.app, &other] {
        let counts = call_to(app, Method::GET, "/documents/status_counts", &[], None).await;
        assert_eq!(counts.status, StatusCode::OK, "{}", counts.text());
    }
    hold_the_model(&h);
    let mut jobs = Vec::new();
    for i in 0..16 {
        let app = if i % 2 == 0 { h.app.clone() } else { other.clone() };
        jobs.push(tokio::spawn(async move {
            let body = json!({"text": format!("Version {i}: {TEXT_A}"), "file_source": "r.txt"});
            call_to(&app, Method::POST, "/documents/text", &[], Some(body)).await
        }));
    }
    let mut replies = Vec::new();
    for job in jobs {
        replies.push(job.await.unwrap());
    }
    let winner = one_success(&replies);
    release_the_model(&h);

    let track = replies[winner].json()["track_id"].as_str().unwrap().to_string();
    let status = h.wait_track(&track, &[]).await;
    assert_eq!(status["documents"][0]["status"], "processed", "{status}");
    let docs = documents(&h).await;
    assert_eq!(docs.len(), 1, "one document, no failed duplicate record: {docs:?}");
    assert!(
        docs[0]["content_summary"].as_str().unwrap().starts_with(&format!("Version {winner}:")),
        "the admitted text is the one indexed: {docs:?}"
    );
}

/// Regression (issue 28): MCP admitted documents with its own pre-check; 16 concurrent
/// `insert_text` calls of one new name over `/mcp` now go through the one insert use case, so the
/// store admits one and the fifteen others are tool errors saying why — never a success that
/// becomes a failed record.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_mcp_inserts_of_one_new_name_give_one_result_and_fifteen_tool_errors() {
    let h = std::sync::Arc::new(Harness::new(&[]).await);
    let headers = std::sync::Arc::new(crate::mcp::session(&h).await);
    hold_the_model(&h);
    let mut jobs = Vec::new();
    for i in 0..16u64 {
        let (h, headers) = (h.clone(), headers.clone());
        jobs.push(tokio::spawn(async move {
            let borrowed: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let args = json!({"text": format!("Version {i}: {TEXT_A}"), "file_name": "r.txt"});
            let (_, _, answer) = crate::mcp::post(&h, &borrowed, crate::mcp::call(10 + i, "insert_text", args)).await;
            answer.unwrap()["result"].clone()
        }));
    }
    let mut results = Vec::new();
    for job in jobs {
        results.push(job.await.unwrap());
    }
    let ok: Vec<&Value> = results.iter().filter(|r| r["isError"] != json!(true)).collect();
    assert_eq!(ok.len(), 1, "exactly one insert admitted: {results:#?}");
    for refused in results.iter().filter(|r| r["isError"] == json!(true)) {
        let text = refused["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("'r.txt'"), "a refusal names the document: {text}");
    }
    release_the_model(&h);

    let track = ok[0]["structuredContent"]["track_id"].as_str().unwrap().to_string();
    let status = h.wait_track(&track, &[]).await;
    assert_eq!(status["documents"][0]["status"], "processed", "{status}");
    let docs = documents(&h).await;
    assert_eq!(docs.len(), 1, "one document, no failed duplicate record: {docs:?}");
}

/// Regression (issue 26 item 3): 12 concurrent uploads of one new name gave two 200s: one that
/// came once the first was stored "replaced" it while it still waited to be indexed. Here the
/// first is stored, then eleven more race in while it waits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_uploads_of_one_new_name_give_one_200() {
    let h = std::sync::Arc::new(Harness::new(&[]).await);
    hold_the_model(&h);
    let mut replies = vec![h.upload("r.txt", format!("Upload 0: {TEXT_A}").as_bytes(), &[]).await];
    let mut jobs = Vec::new();
    for i in 1..12 {
        let h = h.clone();
        jobs.push(tokio::spawn(
            async move { h.upload("r.txt", format!("Upload {i}: {TEXT_A}").as_bytes(), &[]).await },
        ));
    }
    for job in jobs {
        replies.push(job.await.unwrap());
    }
    let winner = one_success(&replies);
    assert_eq!(winner, 0, "the first upload is the one stored");
    release_the_model(&h);

    let track = replies[winner].json()["track_id"].as_str().unwrap().to_string();
    let status = h.wait_track(&track, &[]).await;
    assert_eq!(status["documents"][0]["status"], "processed", "{status}");
    assert_eq!(documents(&h).await.len(), 1);
    let file = std::fs::read_to_string(h.input_dir().join("r.txt")).unwrap();
    assert_eq!(file, format!("Upload {winner}: {TEXT_A}"), "the input folder holds the admitted upload");
}

/// Regression (issue 26 item 11): two simultaneous uploads of `r.txt` with new contents both
/// answered 200 "replaces the earlier version"; one was never indexed and its track id showed
/// nothing, forever. Now the first replaces the document and the others are told to wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_replacements_of_one_file_give_one_200_and_every_track_shows_its_document() {
    let h = std::sync::Arc::new(Harness::new(&[]).await);
    let first = h.upload("r.txt", TEXT_A.as_bytes(), &[]).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text());
    let indexed = h.wait_track(first.json()["track_id"].as_str().unwrap(), &[]).await;
    let id = indexed["documents"][0]["id"].as_str().unwrap().to_string();

    hold_the_model(&h);
    let mut jobs = Vec::new();
    for i in 0..4 {
        let h = h.clone();
        jobs.push(tokio::spawn(
            async move { h.upload("r.txt", format!("Revision {i}: {TEXT_A}").as_bytes(), &[]).await },
        ));
    }
    let mut replies = Vec::new();
    for job in jobs {
        replies.push(job.await.unwrap());
    }
    let winner = one_success(&replies);
    for reply in replies.iter().filter(|r| r.status == StatusCode::CONFLICT) {
        let detail = reply.json()["detail"].as_str().unwrap().to_string();
        assert!(detail.contains("again once"), "a refused new version is told to come back: {detail}");
    }
    release_the_model(&h);

    let track = replies[winner].json()["track_id"].as_str().unwrap().to_string();
    let status = h.wait_track(&track, &[]).await;
    assert_eq!(status["total_count"], 1, "the track id shows its document: {status}");
    assert_eq!(status["documents"][0]["id"], id.as_str(), "{status}");
    assert_eq!(status["documents"][0]["status"], "processed", "{status}");
    assert!(
        status["documents"][0]["content_summary"].as_str().unwrap().starts_with(&format!("Revision {winner}:")),
        "the admitted version is the one indexed: {status}"
    );
    assert_eq!(documents(&h).await.len(), 1, "no duplicate record");
    let file = std::fs::read_to_string(h.input_dir().join("r.txt")).unwrap();
    assert_eq!(file, format!("Revision {winner}: {TEXT_A}"), "the input folder holds the admitted version");
    // once indexed, the next version is admitted
    let next = h.upload("r.txt", format!("Revision 9: {TEXT_A}").as_bytes(), &[]).await;
    assert_eq!(next.status, StatusCode::OK, "{}", next.text());
}
