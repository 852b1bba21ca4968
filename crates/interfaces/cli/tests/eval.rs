//! `lightrag eval` end to end: a three-passage corpus indexed through the real binary against the
//! scripted model, two questions whose figures are worked out by hand, the files it writes, a
//! resumed run that indexes nothing again, answers with a judged faithfulness, and a comparison
//! with a baseline.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Kb, path_str};
use serde_json::Value;

const CORPUS: &str = r#"{"title": "Ada Lovelace", "text": "Ada Lovelace was an English mathematician. She worked with Charles Babbage on the Analytical Engine."}
{"title": "Charles Babbage", "text": "Charles Babbage was an English engineer. Charles Babbage designed the Analytical Engine."}
{"title": "Analytical Engine", "text": "The Analytical Engine was a mechanical computer. The Analytical Engine was designed by Charles Babbage."}
"#;

// Question 1 needs all three passages: with the whole (three-passage) context retrieved, two of
// them fit in the first 2, all three in the first 5 and 8, and the first passage is gold. Question
// 2's gold passage is not in the corpus: every figure is 0.
const QUESTIONS: &str = r#"{"question": "Who designed the Analytical Engine that Ada Lovelace worked on?", "gold_titles": ["Ada Lovelace", "Charles Babbage", "Analytical Engine"], "answer": "Charles Babbage"}
{"question": "What did Grace Hopper invent?", "gold_titles": ["Grace Hopper"], "answer": "a compiler"}
"#;

fn kb() -> (Kb, std::path::PathBuf, std::path::PathBuf) {
    let mut kb = Kb::new();
    // every chunk passes the similarity cut, so that naive mode returns the whole corpus
    kb.set("COSINE_THRESHOLD", "-1");
    let corpus = kb.dir.path().join("corpus.jsonl");
    let questions = kb.dir.path().join("questions.jsonl");
    std::fs::write(&corpus, CORPUS).unwrap();
    std::fs::write(&questions, QUESTIONS).unwrap();
    (kb, corpus, questions)
}

fn close(a: &Value, b: f64) -> bool {
    (a.as_f64().unwrap() - b).abs() < 1e-9
}

#[test]
fn eval_scores_by_hand_writes_its_files_and_resumes_without_reindexing() {
    let (kb, corpus, questions) = kb();
    let out = kb.dir.path().join("eval-out");
    let run = |extra: &[&str]| {
        let mut args = vec!["eval", "--corpus", path_str(&corpus), "--questions", path_str(&questions)];
        args.extend_from_slice(&["--modes", "naive", "--chunk-top-k", "10", "--out", path_str(&out)]);
        args.extend_from_slice(extra);
        kb.ok(&args)
    };
    let table = run(&[]);
    assert!(table.starts_with("| mode | questions | all gold @2 |"), "{table}");
    assert!(table.contains("| naive | 2 | 0.00 | 0.50 | 0.50 | 0.50 | 0.33 | 0.50 | 0.50 | 0.50 | 0.50 |"), "{table}");

    let results: Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let naive = &results["modes"][0];
    assert_eq!(naive["mode"], "naive");
    let q1 = &naive["questions"][0];
    assert_eq!(q1["passages"].as_array().unwrap().len(), 3, "the whole corpus: {q1}");
    assert_eq!(q1["score"]["all_gold_at"], serde_json::json!([false, true, true]));
    assert!(close(&q1["score"]["recall_at"][0], 2.0 / 3.0));
    assert!(close(&q1["score"]["reciprocal_rank"], 1.0));
    assert!(q1["context_tokens"].as_u64().unwrap() > 0);
    let q2 = &naive["questions"][1];
    assert_eq!(q2["gold"], serde_json::json!(["Grace Hopper"]));
    assert!(close(&q2["score"]["reciprocal_rank"], 0.0));
    let summary = &naive["summary"];
    assert_eq!(summary["all_gold_at"], serde_json::json!([0.0, 0.5, 0.5]));
    assert!(close(&summary["mrr"], 0.5));
    assert!(std::fs::read_to_string(out.join("results.md")).unwrap().contains("| naive | 2 |"));
    let chart = std::fs::read_to_string(out.join("chart.svg")).unwrap();
    assert!(chart.starts_with("<svg") && chart.contains("naive all gold @8: 0.50"), "{chart}");

    // a second run finds every passage indexed: no extraction call
    let extractions = kb.server.stats().extract;
    let before = out.join("results.json");
    let baseline = kb.dir.path().join("baseline.json");
    std::fs::copy(&before, &baseline).unwrap();
    let compared = run(&["--baseline", path_str(&baseline)]);
    assert_eq!(kb.server.stats().extract, extractions, "nothing indexed again");
    assert!(compared.contains("| naive | 0.50 → 0.50 | 0.50 → 0.50 | 0 | 0 |"), "{compared}");
}

#[test]
fn eval_run_again_over_its_corpus_records_no_failed_duplicates() {
    let (kb, corpus, questions) = kb();
    let args = ["eval", "--corpus", path_str(&corpus), "--questions", path_str(&questions), "--modes", "naive"];
    kb.ok(&args);
    kb.ok(&args);
    let counts = kb.json(&["status", "--json"])["status_counts"].clone();
    assert_eq!(counts["processed"], 3, "{counts}");
    assert_eq!(counts["failed"].as_u64().unwrap_or(0), 0, "a passage indexed already was enqueued again: {counts}");
}

#[test]
fn eval_with_answers_scores_them_and_asks_the_judge() {
    let (kb, corpus, questions) = kb();
    let out = kb.dir.path().join("eval-out");
    let args = [
        "eval",
        "--corpus",
        path_str(&corpus),
        "--questions",
        path_str(&questions),
        "--modes",
        "naive,local",
        "--chunk-top-k",
        "10",
        "--answers",
        "--out",
        path_str(&out),
    ];
    let table = kb.ok(&args);
    assert!(table.contains("answer EM | answer F1 | faithfulness (judged)"), "{table}");
    assert_eq!(kb.server.stats().judge, 4, "one verdict per question and mode");
    let results: Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    for mode in results["modes"].as_array().unwrap() {
        for q in mode["questions"].as_array().unwrap() {
            let answer = q["answer"].as_str().unwrap();
            assert!(answer.starts_with("Answer based on"), "the scripted model's answer: {answer}");
            let expected = q["expected_answer"].as_str().unwrap();
            assert!(close(&q["f1"], lightrag_eval::metrics::f1(answer, expected)));
            assert_eq!(q["exact_match"], false);
            let faithfulness = q["faithfulness"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&faithfulness), "{q}");
        }
    }
}

#[test]
fn eval_refuses_an_empty_knowledge_base_and_bad_files() {
    let (kb, _, questions) = kb();
    let out = kb.run(&["eval", "--questions", path_str(&questions)]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("pass --corpus FILE"), "{out:?}");
    let bad = kb.dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"question\": \"Who?\"}\n").unwrap();
    let out = kb.run(&["eval", "--questions", path_str(&bad)]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1"), "{out:?}");
    let out = kb.run(&["eval", "--questions", path_str(&questions), "--modes", "bypass"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("bypass retrieves nothing"), "{out:?}");
}

#[test]
fn eval_measures_the_bm25_baseline_beside_the_modes() {
    let (kb, corpus, questions) = kb();
    let out = kb.dir.path().join("eval-out");
    let args = ["eval", "--corpus", path_str(&corpus), "--questions", path_str(&questions), "--modes", "naive,bm25"];
    let table = kb.ok(&[&args[..], &["--out", path_str(&out)]].concat());
    assert!(table.contains("| bm25 | 2 |"), "{table}");
    let results: Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let bm25 = &results["modes"][1];
    assert_eq!(bm25["mode"], "bm25");
    // question 1's words (designed, analytical, engine, ada, lovelace, worked) are in every
    // passage, most of them in Ada Lovelace's
    let q1 = &bm25["questions"][0];
    let passages: Vec<&str> = q1["passages"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert_eq!(passages.len(), 3, "{q1}");
    assert_eq!(passages[0], "Ada Lovelace", "{q1}");
    assert_eq!(q1["score"]["all_gold_at"], serde_json::json!([false, true, true]));
    // no passage holds "grace", "hopper" or "invent"
    assert_eq!(bm25["questions"][1]["passages"], serde_json::json!([]));
    assert_eq!(bm25["summary"]["all_gold_at"], serde_json::json!([0.0, 0.5, 0.5]));
    // an unknown name still says what is accepted
    let bad = kb.run(&["eval", "--questions", path_str(&questions), "--modes", "bm26"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("bm25"), "{bad:?}");
}
