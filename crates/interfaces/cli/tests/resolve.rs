//! `lightrag graph resolve` through the binary: names that denote one entity are listed, merged
//! with `--apply`, and deleting a document afterwards rebuilds what a fresh build gives.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Kb, node, path_str};

const KING: (&str, &str) =
    ("king.txt", "Lothair II ruled Lotharingia for many years. Lothair II married Teutberga of Arles.");
const LOVER: (&str, &str) =
    ("lover.txt", "Waldrada of Lotharingia loved Lothair Ii. Waldrada of Lotharingia bore him a son.");
const OTHER: (&str, &str) = ("other.txt", "Moby Dick is a novel by Herman Melville about a whale.");

fn offline() -> Kb {
    let mut kb = Kb::new();
    kb.set("LLM_BINDING", "none").set("EXTRACTION", "nlp");
    kb
}

fn doc_id(kb: &Kb, file: &str) -> String {
    let status = kb.json(&["status", "--json"]);
    let docs = status["documents"].as_array().unwrap();
    docs.iter().find(|d| d["file_path"] == file).map(|d| d["id"].as_str().unwrap().to_string()).unwrap()
}

#[test]
fn resolve_lists_then_merges_variant_names_and_deletion_rebuilds_like_a_fresh_build() {
    let kb = offline();
    let docs = kb.write_docs(&[KING, LOVER, OTHER]);
    kb.ok(&["insert", path_str(&docs)]);
    let graph = kb.graph();
    assert!(node(&graph, "Lothair II").is_some() && node(&graph, "Lothair Ii").is_some(), "{graph}");

    // listing changes nothing
    let report = kb.json(&["graph", "resolve", "--json"]);
    let groups = report["groups"].as_array().unwrap();
    let group = groups.iter().find(|g| g["canonical"] == "Lothair II").expect("a Lothair group");
    assert_eq!(group["aliases"][0]["name"], "Lothair Ii");
    assert_eq!(group["aliases"][0]["rule"], "normalisation");
    assert!(report["merged"].as_array().unwrap().is_empty());
    assert_eq!(kb.graph(), graph, "listing does not change the graph");
    let text = kb.ok(&["graph", "resolve"]);
    assert!(text.contains("Lothair II\n  <- Lothair Ii") && text.contains("--apply"), "{text}");

    // --apply merges: one entity with both documents' chunks, Waldrada's relation re-pointed
    let applied = kb.json(&["graph", "resolve", "--apply", "--json"]);
    assert_eq!(applied["merged"].as_array().unwrap().len(), groups.len());
    let merged = kb.graph();
    assert!(node(&merged, "Lothair Ii").is_none());
    let king = node(&merged, "Lothair II").unwrap();
    assert_eq!(king["source_id"].as_str().unwrap().split("<SEP>").count(), 2, "{king}");
    let edges = merged["edges"].as_array().unwrap();
    assert!(
        edges.iter().any(|e| (e["source"] == "Lothair II" && e["target"] == "Waldrada of Lotharingia")
            || (e["target"] == "Lothair II" && e["source"] == "Waldrada of Lotharingia")),
        "{merged}"
    );
    assert!(kb.json(&["graph", "resolve", "--json"])["groups"].as_array().unwrap().is_empty(), "nothing left");

    // deleting the alias's document leaves what a fresh build of the others gives
    kb.ok(&["delete", &doc_id(&kb, LOVER.0)]);
    let fresh = offline();
    let others = fresh.write_docs(&[KING, OTHER]);
    fresh.ok(&["insert", path_str(&others)]);
    fresh.ok(&["graph", "resolve", "--apply"]);
    assert_eq!(kb.graph(), fresh.graph());
}

#[test]
fn resolve_refuses_a_similarity_of_zero() {
    let kb = offline();
    let out = kb.run(&["graph", "resolve", "--similarity", "0"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--similarity"));
}

/// Regression: the reason a knowledge base cannot be opened was printed twice (the engine error
/// was both the message and the source of the app error).
#[test]
fn an_embedding_model_mismatch_is_reported_once() {
    let mut kb = offline();
    let docs = kb.write_docs(&[OTHER]);
    kb.ok(&["insert", path_str(&docs)]);
    kb.set("EMBEDDING_DIM", "32");
    let out = kb.run(&["graph", "stats"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("this store was built with embedding model").count(), 1, "{err}");
}

const RIVALS: (&str, &str) = ("rivals.txt", "Lothair II won at Metz. Lothair II wrote to Waldrada of Lotharingia.");

fn fresh_graph(docs: &[(&str, &str)]) -> serde_json::Value {
    let kb = offline();
    let dir = kb.write_docs(docs);
    kb.ok(&["insert", path_str(&dir)]);
    kb.graph()
}

#[test]
fn unmerge_after_resolve_gives_back_the_graph_of_a_fresh_build() {
    let kb = offline();
    let all = [KING, LOVER, RIVALS, OTHER];
    let docs = kb.write_docs(&all);
    kb.ok(&["insert", path_str(&docs)]);
    let before = kb.graph();
    kb.ok(&["graph", "resolve", "--apply"]);
    assert!(node(&kb.graph(), "Lothair Ii").is_none());

    // the merged entity remembers the name it was merged from
    let aliases = kb.json(&["graph", "aliases", "Lothair II", "--json"]);
    assert_eq!(aliases[0]["name"], "Lothair Ii", "{aliases}");
    assert_eq!(aliases[0]["chunks"], 1, "LOVER's chunk wrote it: {aliases}");
    assert!(kb.ok(&["graph", "aliases", "Moby Dick"]).contains("was not merged"));

    // undoing it rebuilds both entities and Waldrada's relation (a relation between the two
    // names, folded by the merge, is covered by the engine's graph_edit tests)
    let out = kb.json(&["graph", "unmerge", "Lothair II", "Lothair Ii", "--json"]);
    assert_eq!(out["restored_entity"]["name"], "Lothair Ii", "{out}");
    assert_eq!(out["chunks_restored"], 1, "{out}");
    assert_eq!(kb.graph(), before, "after unmerge the graph equals the build before the merge");
    assert_eq!(kb.graph(), fresh_graph(&all));
    assert!(kb.json(&["graph", "aliases", "Lothair II", "--json"]).as_array().unwrap().is_empty());

    // merged again and the rivals' document deleted: what a fresh build of the rest gives
    kb.ok(&["graph", "resolve", "--apply"]);
    kb.ok(&["delete", &doc_id(&kb, RIVALS.0)]);
    let fresh = offline();
    let rest = fresh.write_docs(&[KING, LOVER, OTHER]);
    fresh.ok(&["insert", path_str(&rest)]);
    fresh.ok(&["graph", "resolve", "--apply"]);
    assert_eq!(kb.graph(), fresh.graph());
    // and undone once more: the fresh build of those three documents
    kb.ok(&["graph", "unmerge", "Lothair II", "Lothair Ii"]);
    assert_eq!(kb.graph(), fresh_graph(&[KING, LOVER, OTHER]));
}

#[test]
fn unmerge_of_a_name_never_merged_says_where_to_look() {
    let kb = offline();
    let docs = kb.write_docs(&[KING, OTHER]);
    kb.ok(&["insert", path_str(&docs)]);
    let before = kb.graph();
    let out = kb.run(&["graph", "unmerge", "Lothair II", "Lothar"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("written as 'Lothar'") && err.contains("graph aliases"), "{err}");
    let out = kb.run(&["graph", "unmerge", "Nobody", "Lothar"]);
    assert!(!out.status.success());
    assert_eq!(kb.graph(), before, "a refused unmerge changes nothing");
}
