//! The conformance checks every chat, embedding and rerank client runs, whatever the provider:
//! what the [`Llm`], [`Embedder`] and [`Reranker`] contracts promise to the engine. The provider
//! behind the client must be deterministic (a scripted server in tests).

use futures::StreamExt;

use crate::{ChatRequest, Embedder, Llm, Reranker};

/// An extraction-shaped request (system prompt, a fenced `---Input Text---` block).
fn extraction_request() -> ChatRequest {
    ChatRequest {
        system: Some("List entities and relations.".into()),
        prompt: "---Input Text---\n```\nAda Lovelace worked with Charles Babbage in London.\n```\n".into(),
        ..ChatRequest::default()
    }
}

/// Chat: a stable identity, a non-empty answer, and a stream whose pieces add up to the same
/// answer.
pub async fn check_llm(llm: &dyn Llm) {
    let identity = llm.identity();
    assert!(!identity.is_empty() && identity == llm.identity(), "identity must be stable and non-empty");
    let request = extraction_request();
    let answer = llm.chat(&request).await.expect("chat");
    assert!(!answer.content.trim().is_empty(), "{identity}: empty answer");
    let mut stream = llm.chat_stream(&request).await.expect("chat_stream");
    let mut streamed = String::new();
    while let Some(piece) = stream.next().await {
        streamed.push_str(&piece.expect("stream piece"));
    }
    assert_eq!(streamed, answer.content, "{identity}: the stream must add up to the whole answer");
}

fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
}

/// Embeddings: no call for no text; one finite vector of the declared dimension per text, in
/// input order; the same text gives the same vector alone or in a batch.
pub async fn check_embedder(embedder: &dyn Embedder) {
    let identity = embedder.identity();
    assert!(embedder.embed(&[]).await.expect("embed nothing").is_empty());
    let texts: Vec<String> = ["Ada Lovelace", "the Analytical Engine", "London, 1843"].map(String::from).to_vec();
    let batch = embedder.embed(&texts).await.expect("embed batch");
    assert_eq!(batch.len(), texts.len(), "{identity:?}: one vector per text");
    for v in &batch {
        assert_eq!(v.len(), identity.dim, "{identity:?}: wrong dimension");
        assert!(v.iter().all(|x| x.is_finite()), "{identity:?}: non-finite value");
    }
    for (text, vector) in texts.iter().zip(&batch) {
        let alone = embedder.embed(std::slice::from_ref(text)).await.expect("embed one");
        assert!(close(&alone[0], vector), "{identity:?}: {text:?} embeds differently alone (order lost?)");
    }
    assert!(!close(&batch[0], &batch[1]), "{identity:?}: different texts gave the same vector");
}

/// Rerank: nothing for no document; valid, distinct indexes, best first; at most `top_n`; a
/// document sharing the query's words outranks one that shares none.
pub async fn check_reranker(reranker: &dyn Reranker) {
    let identity = reranker.identity();
    assert!(!identity.is_empty());
    assert!(reranker.rerank("anything", &[], Some(3)).await.expect("rerank nothing").is_empty());
    let docs: Vec<String> = [
        "Bananas grow in warm climates.",
        "Ada Lovelace wrote the first program for the Analytical Engine.",
        "The weather was mild.",
        "Lovelace and the Engine are often mentioned together.",
    ]
    .map(String::from)
    .to_vec();
    let hits =
        reranker.rerank("Who wrote the first program for the Analytical Engine?", &docs, None).await.expect("rerank");
    assert!(!hits.is_empty(), "{identity}: no hits");
    let mut seen = std::collections::HashSet::new();
    for h in &hits {
        assert!(h.index < docs.len(), "{identity}: index out of range");
        assert!(seen.insert(h.index), "{identity}: index {} twice", h.index);
        assert!(h.relevance_score.is_finite());
    }
    assert!(hits.windows(2).all(|w| w[0].relevance_score >= w[1].relevance_score), "{identity}: not best first");
    assert_eq!(hits[0].index, 1, "{identity}: the matching document must come first");
    let top = reranker.rerank("Analytical Engine", &docs, Some(2)).await.expect("rerank top_n");
    assert!(top.len() <= 2, "{identity}: top_n not respected");
}
