//! The embedder reproduces sentence-transformers' own vectors (fixtures/reference_vectors.json).

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may fail loudly

use crate::common;

use common::{cosine, load, load_in, model_dir, references};
use lightrag_embed_local::Precision;

#[test]
fn f32_vectors_match_sentence_transformers() {
    let dir = model_dir();
    let emb = load_in(&dir, 0, Precision::F32);
    assert_eq!(emb.precision(), Precision::F32);
    let (refs, dim, max_seq) = references();
    assert_eq!(emb.max_seq_length(), max_seq);
    let texts: Vec<String> = refs.iter().map(|r| r.text.clone()).collect();
    let got = emb.embed_blocking(&texts).expect("embedding succeeds");
    assert_eq!(got.len(), refs.len());

    let mut min_cos = f32::INFINITY;
    let mut max_diff = 0.0f32;
    for (r, v) in refs.iter().zip(&got) {
        assert_eq!(v.len(), dim, "{}: dimension", r.name);
        assert_eq!(
            emb.token_count(&r.text).expect("tokenizes"),
            r.tokens,
            "{}: token count differs from sentence-transformers",
            r.name
        );
        let c = cosine(v, &r.vector);
        let d = v.iter().zip(&r.vector).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        eprintln!("{:>16}: {:>3} tokens, cosine {c:.9}, max |diff| {d:.2e}", r.name, r.tokens);
        assert!(c >= 0.999, "{}: cosine {c} < 0.999", r.name);
        // Far tighter than the required cosine: catches subtle regressions (measured ~3e-7).
        assert!(d <= 1e-4, "{}: component differs by {d}", r.name);
        min_cos = min_cos.min(c);
        max_diff = max_diff.max(d);
    }
    eprintln!("minimum cosine {min_cos:.9}, maximum |diff| {max_diff:.2e}");
}

#[test]
fn int8_vectors_stay_within_cosine_0_99_of_sentence_transformers() {
    let dir = model_dir();
    let emb = load_in(&dir, 0, Precision::Int8);
    assert_eq!(emb.precision(), Precision::Int8);
    let (refs, _, _) = references();
    let texts: Vec<String> = refs.iter().map(|r| r.text.clone()).collect();
    let got = emb.embed_blocking(&texts).expect("embedding succeeds");
    let cosines: Vec<f32> = refs.iter().zip(&got).map(|(r, v)| cosine(v, &r.vector)).collect();
    for (r, c) in refs.iter().zip(&cosines) {
        eprintln!("{:>16}: {:>3} tokens, cosine {c:.6}", r.name, r.tokens);
    }
    let min = cosines.iter().copied().fold(f32::INFINITY, f32::min);
    let mean = cosines.iter().sum::<f32>() / cosines.len() as f32;
    eprintln!("int8: minimum cosine {min:.6}, mean {mean:.6}");
    for (r, c) in refs.iter().zip(&cosines) {
        assert!(*c >= 0.99, "{}: cosine {c} < 0.99", r.name);
    }
}

#[test]
fn the_long_fixture_really_exercises_truncation() {
    let dir = model_dir();
    let emb = load(&dir, 1);
    let (refs, _, max_seq) = references();
    let long = refs.iter().find(|r| r.name == "long_truncated").expect("fixture has the long sentence");
    assert_eq!(long.tokens, max_seq);
    // Cutting the text in half still leaves more than the limit: the vector must not change.
    let half = &long.text[..long.text.len() / 2 + 200];
    let a = emb.embed_blocking(&[long.text.clone(), half.to_owned()]).expect("embedding succeeds");
    assert!(cosine(&a[0], &a[1]) > 0.999_999, "truncated inputs differ");
    // ... while a short prefix gives a different vector.
    let short = emb.embed_blocking(&[long.text[..100].to_owned()]).expect("embedding succeeds");
    assert!(cosine(&a[0], &short[0]) < 0.99);
}
