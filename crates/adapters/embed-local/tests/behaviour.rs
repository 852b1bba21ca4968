//! Batching, edge inputs, the async port and load errors.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may fail loudly

use crate::common;

use common::{load, load_in, load_with, model_dir, norm, references};

use lightrag_embed_local::{INSTALL_COMMAND, LoadOptions, LocalEmbedder, LongTexts, MODEL_NAME, Precision};
use lightrag_ports::{EmbedError, Embedder, TextKind};

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

#[test]
fn batch_equals_one_by_one_and_thread_count_does_not_matter() {
    let dir = model_dir();
    let (refs, _, _) = references();
    let texts: Vec<String> = refs.iter().map(|r| r.text.clone()).collect();
    for precision in [Precision::F32, Precision::Int8] {
        let multi = load_in(&dir, 2, precision);
        let single = load_in(&dir, 1, precision);
        let batch = multi.embed_blocking(&texts).expect("batch embeds");
        let batch_single = single.embed_blocking(&texts).expect("batch embeds");
        let mut worst = 0.0f32;
        for (i, t) in texts.iter().enumerate() {
            let alone = single.embed_blocking(std::slice::from_ref(t)).expect("single embeds");
            worst = worst.max(max_abs_diff(&batch[i], &alone[0])).max(max_abs_diff(&batch_single[i], &alone[0]));
        }
        eprintln!("{precision:?}: batch vs one-by-one: max |diff| {worst:.2e}");
        assert!(worst <= 1e-5, "{precision:?}: batch and one-by-one differ by {worst}");
        // A batch with duplicates keeps order and gives equal vectors for equal texts.
        let dup = vec![texts[0].clone(), texts[5].clone(), texts[0].clone()];
        let v = multi.embed_blocking(&dup).expect("embeds");
        assert!(max_abs_diff(&v[0], &v[2]) <= 1e-6);
        assert!(max_abs_diff(&v[0], &v[1]) > 1e-3);
    }
}

#[test]
fn empty_and_very_long_inputs_give_unit_vectors() {
    let dir = model_dir();
    let emb = load(&dir, 0);
    let huge = "word ".repeat(50_000) + &"é😀".repeat(1000);
    let texts = vec![String::new(), huge.clone(), " \n\t ".to_owned()];
    let v = emb.embed_blocking(&texts).expect("embeds");
    assert_eq!(v.len(), 3);
    for (t, x) in texts.iter().zip(&v) {
        assert_eq!(x.len(), 384);
        assert!(x.iter().all(|f| f.is_finite()));
        assert!((norm(x) - 1.0).abs() < 1e-5, "not unit length for {:?}", &t[..t.len().min(20)]);
    }
    assert_eq!(emb.token_count(&huge).expect("tokenizes"), emb.max_seq_length());
    assert_eq!(emb.token_count("").expect("tokenizes"), 2);
    assert!(emb.embed_blocking(&[]).expect("empty batch").is_empty());
}

#[tokio::test]
async fn async_port_matches_blocking_call() {
    let dir = model_dir();
    let emb = load(&dir, 0);
    let id = emb.identity();
    assert_eq!(id.model, MODEL_NAME);
    assert_eq!(id.dim, 384);
    let texts = vec!["graph retrieval".to_owned(), "knowledge graph".to_owned()];
    let a = emb.embed(&texts).await.expect("async embed");
    let b = emb.embed_blocking(&texts).expect("blocking embed");
    assert_eq!(a, b);
    assert!(emb.embed(&[]).await.expect("empty").is_empty());
    // Concurrent calls share the worker pool and stay correct.
    let (x, y) = tokio::join!(emb.embed(&texts[..1]), emb.embed(&texts[1..]));
    assert_eq!(x.expect("x")[0], a[0]);
    assert_eq!(y.expect("y")[0], a[1]);
}

#[test]
fn missing_model_names_the_install_script() {
    let empty = tempfile::tempdir().expect("tempdir");
    let err = LocalEmbedder::load(empty.path()).expect_err("no model there");
    let EmbedError::Model(msg) = &err else { panic!("expected EmbedError::Model, got {err:?}") };
    assert!(msg.contains(INSTALL_COMMAND), "{msg}");
    assert!(msg.contains("scripts/install-model.sh"), "{msg}");
    assert!(msg.contains("not installed"), "{msg}");
    assert!(!err.is_retryable());
}

#[test]
fn truncated_weights_are_a_clear_error() {
    let dir = model_dir();
    let broken = tempfile::tempdir().expect("tempdir");
    for f in ["config.json", "tokenizer.json", "sentence_bert_config.json"] {
        std::fs::copy(dir.join(f), broken.path().join(f)).expect("copy");
    }
    let weights = std::fs::read(dir.join("model.safetensors")).expect("read weights");
    std::fs::write(broken.path().join("model.safetensors"), &weights[..weights.len() / 2]).expect("write");
    let err = LocalEmbedder::load(broken.path()).expect_err("truncated");
    let msg = err.to_string();
    assert!(msg.contains("model.safetensors") && msg.contains("truncated"), "{msg}");
    assert!(msg.contains("scripts/install-model.sh"), "{msg}");

    // A config that disagrees with the weights is refused too, naming the tensor.
    std::fs::write(broken.path().join("model.safetensors"), &weights).expect("write");
    let cfg = std::fs::read_to_string(dir.join("config.json")).expect("read config");
    let cfg = cfg.replace("\"intermediate_size\": 1536", "\"intermediate_size\": 1024");
    std::fs::write(broken.path().join("config.json"), cfg).expect("write");
    let msg = LocalEmbedder::load(broken.path()).expect_err("shape mismatch").to_string();
    assert!(msg.contains("intermediate.dense.weight"), "{msg}");
}

#[test]
fn texts_that_share_their_first_tokens_past_the_limit_are_the_same_input() {
    let dir = model_dir();
    let model = load(&dir, 2);
    let long = "The whaling ship sailed from Nantucket with a crew of thirty. ".repeat(60);
    let grown = format!("{long}<SEP>A new sentence at the very end.");
    for kind in [TextKind::Passage, TextKind::Description, TextKind::Query] {
        assert!(model.same_input(kind, &long, &grown), "the model never sees the added tail");
    }
    let a = model.embed_blocking(std::slice::from_ref(&long)).expect("embeds");
    let b = model.embed_blocking(std::slice::from_ref(&grown)).expect("embeds");
    assert!(max_abs_diff(&a[0], &b[0]) <= 1e-6, "same input, same vector");
    let short = TextKind::Description;
    assert!(
        !model.same_input(short, "Queequeg", "Queequeg, harpooneer"),
        "short texts that differ are different inputs"
    );
    assert!(model.same_input(short, "same", "same"));
}

fn cos(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn pooled_long_texts_see_every_window() {
    let dir = model_dir();
    let pooled = load_with(&dir, 2, Precision::Auto, LongTexts::Pool);
    let truncated = load(&dir, 2);
    assert_eq!(LoadOptions::default().long_texts, LongTexts::Truncate, "truncation is the default");
    let head = "The whaling ship sailed from Nantucket with a crew of thirty harpooneers. ".repeat(25);
    let tail = "Parliament debated the new tax on imported tea and the price of bread in London. ".repeat(25);
    let long = format!("{head}{tail}");
    assert!(truncated.token_count(&long).expect("tokenizes") == truncated.max_seq_length(), "longer than one window");
    let texts = vec![long.clone(), tail.clone(), "A short sentence.".to_owned()];
    let p = pooled.embed_blocking(&texts).expect("embeds");
    let t = truncated.embed_blocking(&texts).expect("embeds");
    for v in &p {
        assert!((norm(v) - 1.0).abs() < 1e-5, "unit length");
    }
    // a text within the limit gets the same vector either way
    assert!(max_abs_diff(&p[2], &t[2]) <= 1e-6);
    // the truncated vector never sees the tail; the pooled one does
    assert!(
        cos(&p[0], &p[1]) > cos(&t[0], &t[1]) + 0.1,
        "pooled {} vs truncated {}",
        cos(&p[0], &p[1]),
        cos(&t[0], &t[1])
    );
    // texts that differ only past the limit are different inputs to the pooled model
    let grown = format!("{long} And a final sentence about the Senate.");
    assert!(!pooled.same_input(TextKind::Passage, &long, &grown));
    assert!(truncated.same_input(TextKind::Passage, &long, &grown));
    // pooling is deterministic and batch-independent
    let alone = pooled.embed_blocking(std::slice::from_ref(&long)).expect("embeds");
    assert!(max_abs_diff(&alone[0], &p[0]) <= 1e-6);
}

/// With `LongTexts::Pool` only passages (chunks) are pooled: a long description or query is cut to
/// its first window, exactly as the truncating model embeds it, and a description that grows past
/// the limit is still the same input.
#[tokio::test]
async fn pool_pools_passages_only() {
    let dir = model_dir();
    let pooled = load_with(&dir, 2, Precision::Auto, LongTexts::Pool);
    let truncated = load(&dir, 2);
    let head = "Starbuck kept the log of the voyage and counted the barrels of oil below deck. ".repeat(20);
    let tail = "The orchestra rehearsed the symphony in Vienna before the winter concert season. ".repeat(20);
    let long = format!("{head}{tail}");
    assert_eq!(pooled.token_count(&long).expect("tokenizes"), pooled.max_seq_length(), "longer than one window");
    let texts = vec![long.clone(), tail.clone(), "A short sentence about whales.".to_owned()];
    let cut = truncated.embed_blocking(&texts).expect("embeds");
    let whole = pooled.embed_as(&texts, TextKind::Passage).await.expect("embeds");
    let description = pooled.embed_as(&texts, TextKind::Description).await.expect("embeds");
    let query = pooled.embed_as(&texts, TextKind::Query).await.expect("embeds");
    for i in 0..texts.len() {
        assert!(max_abs_diff(&description[i], &cut[i]) <= 1e-6, "description {i} is truncated");
        assert!(max_abs_diff(&query[i], &cut[i]) <= 1e-6, "query {i} is truncated");
    }
    // the passage's vector sees the tail, the description's does not
    assert!(
        cos(&whole[0], &whole[1]) > cos(&description[0], &description[1]) + 0.1,
        "passage {} vs description {}",
        cos(&whole[0], &whole[1]),
        cos(&description[0], &description[1])
    );
    assert!(max_abs_diff(&whole[0], &cut[0]) > 1e-2, "the long passage is pooled");
    // short texts get one vector whatever their kind
    assert!(max_abs_diff(&whole[2], &cut[2]) <= 1e-6);
    // `embed` (no kind) and the blocking calls follow the same rule
    assert_eq!(pooled.embed(&texts).await.expect("embeds"), whole);
    assert_eq!(pooled.embed_blocking_as(&texts, TextKind::Description).expect("embeds"), description);
    // a description grown past the limit needs no new vector; a grown passage does
    let grown = format!("{long} One more line about the harbour.");
    assert!(pooled.same_input(TextKind::Description, &long, &grown));
    assert!(pooled.same_input(TextKind::Query, &long, &grown));
    assert!(!pooled.same_input(TextKind::Passage, &long, &grown));
    assert!(LongTexts::Pool.pools(TextKind::Passage));
    assert!(!LongTexts::Pool.pools(TextKind::Description) && !LongTexts::Truncate.pools(TextKind::Passage));
}
