//! After importing `basic/`, every query mode returns the same entities, relationships and chunks
//! as LightRAG 1.5.7 returned on that working directory (`aquery_data` = `/query/data`, recorded
//! in `basic/_expected/query_data/`), compared as sets, for every question — with the default
//! parameters and with `top_k=5, chunk_top_k=2`, where vector ranking decides. The keywords come
//! from LightRAG's own answers in the imported cache: no keyword LLM call is made.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::BTreeSet;

use common::*;
use lightrag_engine::retrieval::query::{QueryMode, QueryParam};
use serde_json::Value;

fn names(list: &Value, field: &str) -> BTreeSet<String> {
    list.as_array()
        .map(|a| a.iter().filter_map(|v| v[field].as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

fn pairs(list: &Value) -> BTreeSet<(String, String)> {
    list.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|r| {
                    let (s, t) = (r["src_id"].as_str()?.to_string(), r["tgt_id"].as_str()?.to_string());
                    Some(if s <= t { (s, t) } else { (t, s) })
                })
                .collect()
        })
        .unwrap_or_default()
}

fn keywords(result: &Value) -> (Vec<String>, Vec<String>) {
    let k = &result["metadata"]["keywords"];
    let list = |v: &Value| {
        v.as_array().map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()).unwrap_or_default()
    };
    (list(&k["high_level"]), list(&k["low_level"]))
}

/// Differences between our result and LightRAG's for one question.
fn compare(label: &str, got: &Value, want: &Value, out: &mut Vec<String>) {
    if got["status"] != want["status"] {
        out.push(format!("{label}: status {} vs LightRAG {}", got["status"], want["status"]));
    }
    let (g, w) = (&got["data"], &want["data"]);
    let diff = |what: &str, got: BTreeSet<String>, want: BTreeSet<String>, out: &mut Vec<String>| {
        if got != want {
            let extra: Vec<_> = got.difference(&want).collect();
            let missing: Vec<_> = want.difference(&got).collect();
            out.push(format!("{label}: {what}: {} vs {}; extra {extra:?}, missing {missing:?}", got.len(), want.len()));
        }
    };
    diff("entities", names(&g["entities"], "entity_name"), names(&w["entities"], "entity_name"), out);
    let to_set = |p: BTreeSet<(String, String)>| p.into_iter().map(|(a, b)| format!("{a} ~ {b}")).collect();
    diff("relationships", to_set(pairs(&g["relationships"])), to_set(pairs(&w["relationships"])), out);
    diff("chunks", names(&g["chunks"], "chunk_id"), names(&w["chunks"], "chunk_id"), out);
    diff("references", names(&g["references"], "file_path"), names(&w["references"], "file_path"), out);
    if keywords(got) != keywords(want) {
        out.push(format!("{label}: keywords {:?} vs LightRAG {:?}", keywords(got), keywords(want)));
    }
}

async fn parity(variant: &str, top_k: Option<usize>, chunk_top_k: Option<usize>) {
    let h = Harness::start().await;
    let engine = h.engine(&[]).await;
    import(&engine, "basic").await;
    let mut differences = Vec::new();
    let mut compared = 0;
    let mut records = 0;
    for mode in ["local", "global", "hybrid", "naive", "mix"] {
        let file = fixture_json(&format!("basic/_expected/query_data/{variant}{mode}.json"));
        for case in file["results"].as_array().unwrap() {
            let question = case["query"].as_str().unwrap();
            let param = QueryParam { top_k, chunk_top_k, ..QueryParam::with_mode(mode.parse::<QueryMode>().unwrap()) };
            let data = engine.query_data(question, &param).await.unwrap();
            let got = serde_json::to_value(&data).unwrap();
            compare(&format!("[{mode}] {question}"), &got, &case["result"], &mut differences);
            let want = &case["result"]["data"];
            records += ["entities", "relationships", "chunks"]
                .iter()
                .map(|k| want[*k].as_array().map(Vec::len).unwrap_or(0))
                .sum::<usize>();
            compared += 1;
        }
    }
    assert_eq!(compared, 25);
    eprintln!("{variant}: {records} records compared");
    assert!(records > 200, "the expected results are not empty ({records} records)");
    assert!(differences.is_empty(), "{} difference(s) from LightRAG:\n{}", differences.len(), differences.join("\n"));
    let stats = h.server.stats();
    assert_eq!(stats.keywords, 0, "keywords come from the imported cache: {stats:?}");
    assert_eq!(stats.chat_calls(), 0, "{stats:?}");
}

#[tokio::test]
async fn every_mode_returns_lightrags_records_with_default_parameters() {
    parity("", None, None).await;
}

#[tokio::test]
async fn every_mode_returns_lightrags_records_where_vector_ranking_decides() {
    parity("small_top_k/", Some(5), Some(2)).await;
}
