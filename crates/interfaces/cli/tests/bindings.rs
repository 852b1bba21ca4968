//! End to end through the real binary with every non-OpenAI binding (each against the scripted
//! server's routes for that provider's wire format), with chunk reranking on, and with JSON
//! extraction: each builds the same graph as the OpenAI-compatible run, since the scripted
//! extraction only depends on the text.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{HARBOR, Kb, WHALING, path_str};
use lightrag_scripted_llm::{AwsTestCredentials, ScriptConfig, rerank_score};

const KEY: &str = "binding-key";

/// Settings of one case: `(name, value)` pairs.
type Settings<'a> = Vec<(&'a str, &'a str)>;

/// A knowledge base whose scripted server checks keys and AWS signatures, configured by `env`
/// (`{root}` and `{base}` stand for the server's root and OpenAI base URLs).
fn kb_with(env: &[(&str, &str)]) -> Kb {
    let mut kb = Kb::with_config(ScriptConfig {
        api_key: Some(KEY.into()),
        aws: Some(AwsTestCredentials::default()),
        ..ScriptConfig::default()
    });
    let (root, base) = (kb.server.root_url(), kb.server.base_url());
    kb.set("LLM_BINDING_API_KEY", KEY).set("EMBEDDING_BINDING_API_KEY", KEY);
    for (k, v) in env {
        let v = v.replace("{root}", &root).replace("{base}", &base);
        kb.set(k, &v);
    }
    kb
}

fn aws() -> Vec<(&'static str, &'static str)> {
    vec![
        ("AWS_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", "AKIDSCRIPTED"),
        ("AWS_SECRET_ACCESS_KEY", "scripted/secret/key"),
    ]
}

/// Inserts the two documents and asks one question; returns the graph.
fn build_and_ask(kb: &Kb, name: &str) -> serde_json::Value {
    let docs = kb.write_docs(&[("whaling.txt", WHALING), ("harbor.txt", HARBOR)]);
    let summary = kb.json(&["insert", path_str(&docs), "--json"]);
    assert_eq!(summary["documents_processed"], 2, "{name}: {summary}");
    assert_eq!(summary["documents_failed"], 0, "{name}: {summary}");
    let answer = kb.json(&["query", "--mode", "mix", "--json", "Who sailed on the Pequod from Nantucket?"]);
    assert!(answer["response"].as_str().unwrap().starts_with("Answer based on"), "{name}: {answer}");
    assert!(!answer["data"]["chunks"].as_array().unwrap().is_empty(), "{name}: {answer}");
    let streamed = kb.ok(&["query", "--stream", "Who is Queequeg?"]);
    assert!(streamed.contains("Answer based on"), "{name}: {streamed}");
    kb.graph()
}

#[test]
fn insert_and_query_through_every_non_openai_binding() {
    let reference = build_and_ask(&kb_with(&[]), "openai");
    let gemini = [
        ("LLM_BINDING", "gemini"),
        ("LLM_BINDING_HOST", "{root}"),
        ("LLM_MODEL", "gemini-test"),
        ("EMBEDDING_BINDING", "gemini"),
        ("EMBEDDING_BINDING_HOST", "{root}"),
        ("EMBEDDING_MODEL", "gemini-embedding-001"),
    ];
    let mut bedrock = vec![
        ("LLM_BINDING", "aws_bedrock"),
        ("LLM_BINDING_HOST", "{root}"),
        ("LLM_MODEL", "anthropic.claude-test-v1:0"),
        ("EMBEDDING_BINDING", "bedrock"),
        ("EMBEDDING_BINDING_HOST", "{root}"),
        ("EMBEDDING_MODEL", "amazon.titan-embed-text-v2:0"),
        ("EMBEDDING_SEND_DIM", "true"),
    ];
    bedrock.extend(aws());
    let lollms = [
        ("LLM_BINDING", "lollms"),
        ("LLM_BINDING_HOST", "{root}"),
        ("EMBEDDING_BINDING", "lollms"),
        ("EMBEDDING_BINDING_HOST", "{root}"),
    ];
    let services = [
        ("LLM_BINDING", "gemini"),
        ("LLM_BINDING_HOST", "{root}"),
        ("EMBEDDING_BINDING", "jina"),
        ("EMBEDDING_BINDING_HOST", "{root}/jina/v1"),
    ];
    let voyage = [("EMBEDDING_BINDING", "voyageai"), ("EMBEDDING_BINDING_HOST", "{root}/voyage/v1")];
    let openai_ollama = [("LLM_BINDING", "openai-ollama"), ("EMBEDDING_BINDING_HOST", "{root}")];
    let cases: Vec<(&str, Settings, &str)> = vec![
        ("gemini", gemini.to_vec(), ":generateContent"),
        ("bedrock", bedrock, "/converse"),
        ("lollms", lollms.to_vec(), "/lollms_generate"),
        ("gemini + jina", services.to_vec(), "/jina/v1/embeddings"),
        ("voyageai", voyage.to_vec(), "/voyage/v1/embeddings"),
        ("openai-ollama", openai_ollama.to_vec(), "/api/embed"),
    ];
    for (name, env, path) in cases {
        let kb = kb_with(&env);
        let graph = build_and_ask(&kb, name);
        assert_eq!(graph, reference, "{name}: the same extraction builds the same graph");
        let stats = kb.server.stats();
        assert_eq!(stats.status_count(401) + stats.status_count(403), 0, "{name}: every request authenticated");
        assert!(kb.server.requests().iter().any(|r| r.path.contains(path)), "{name}: nothing sent to {path}");
    }
}

#[test]
fn json_extraction_builds_the_same_graph_as_records() {
    let records = build_and_ask(&kb_with(&[]), "records");
    let kb = kb_with(&[("ENTITY_EXTRACTION_USE_JSON", "true")]);
    let json = build_and_ask(&kb, "json");
    assert_eq!(json, records, "JSON answers parse into the same entities and relations");
    let extraction = kb
        .server
        .requests()
        .into_iter()
        .find(|r| r.prompt == Some(lightrag_scripted_llm::PromptKind::Extract))
        .expect("an extraction request was recorded");
    assert_eq!(extraction.body["response_format"]["type"], "json_object", "JSON mode asked of the provider");
    // the same in Gemini's wire format (`responseMimeType`)
    let gemini =
        kb_with(&[("ENTITY_EXTRACTION_USE_JSON", "true"), ("LLM_BINDING", "gemini"), ("LLM_BINDING_HOST", "{root}")]);
    assert_eq!(build_and_ask(&gemini, "gemini json"), records);
}

/// Chunks of a `query --json` answer and their scripted rerank scores.
fn chunk_scores(kb: &Kb, mode: &str, question: &str) -> Vec<f64> {
    let out = kb.json(&["query", "--mode", mode, "--json", question]);
    out["data"]["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| rerank_score(question, c["content"].as_str().unwrap()))
        .collect()
}

#[test]
fn reranking_reorders_chunks_by_the_services_scores_and_filters_by_min_score() {
    let docs = [
        ("whaling.txt", WHALING),
        ("harbor.txt", HARBOR),
        ("port.txt", "Nantucket had many ships. The port was busy in winter and quiet in summer."),
        ("crew.txt", "Queequeg and Ishmael shared a room before the voyage of the Pequod began."),
        // close to the question in character trigrams (the scripted vectors) but sharing one
        // word with it (the scripted rerank score)
        ("echo.txt", "Nantucketers sailing voyages: Pequods, Queequegs, sailors from Nantucketers."),
    ];
    let question = "Who sailed with Queequeg on the Pequod voyage from Nantucket?";
    let rerank = [
        ("RERANK_BINDING", "cohere"),
        ("RERANK_BINDING_HOST", "{root}/cohere/v2/rerank"),
        ("RERANK_BINDING_API_KEY", KEY),
        ("CHUNK_SIZE", "30"),
        ("CHUNK_OVERLAP_SIZE", "5"),
    ];
    let kb = kb_with(&rerank);
    kb.ok(&["insert", path_str(&kb.write_docs(&docs))]);
    for mode in ["naive", "mix", "local"] {
        let before = kb.server.stats().rerank;
        let scores = chunk_scores(&kb, mode, question);
        assert!(scores.len() > 1, "{mode}: {scores:?}");
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{mode}: chunks not in rerank order: {scores:?}");
        assert_eq!(kb.server.stats().rerank, before + 1, "{mode}: one rerank call");
    }
    // RERANK_BY_DEFAULT=false: the retrieval order, no rerank call
    let mut off = kb_with(&rerank);
    off.set("RERANK_BY_DEFAULT", "false");
    off.ok(&["insert", path_str(&off.write_docs(&docs))]);
    let unranked = chunk_scores(&off, "naive", question);
    assert_eq!(off.server.stats().rerank, 0);
    let reranked = chunk_scores(&kb, "naive", question);
    let mut sorted = unranked.clone();
    sorted.sort_by(|a, b| b.total_cmp(a));
    assert_eq!(reranked, sorted, "reranking sorts the same chunks by score");
    assert_ne!(unranked, sorted, "the documents are chosen so that the retrieval order differs: {unranked:?}");
    // MIN_RERANK_SCORE drops the chunks scored below it
    let mut strict = kb_with(&rerank);
    strict.set("MIN_RERANK_SCORE", "0.5");
    strict.ok(&["insert", path_str(&strict.write_docs(&docs))]);
    let kept = chunk_scores(&strict, "naive", question);
    assert!(!kept.is_empty() && kept.iter().all(|s| *s >= 0.5), "{kept:?}");
    assert!(kept.len() < reranked.len(), "{kept:?} vs {reranked:?}");
    // the usage ledger counts the rerank calls
    let status = kb.json(&["status", "--json"]);
    assert_eq!(status["usage"]["rerank"]["calls"].as_u64(), Some(4), "{}", status["usage"]);
}
