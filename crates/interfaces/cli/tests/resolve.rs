//! `lightrag graph resolve` through the binary: names that denote one entity are listed, merged
//! with `--apply`, and deleting a document afterwards rebuilds what a fresh build gives.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Kb, node, path_str};
use lightrag_scripted_llm::Fault;

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

/// Two writers each named in full and by surname alone in one sentence: the surname entity and the
/// full-name entity get the same description, so their vectors are close, but no string rule
/// links "Melville" to "Herman Melville".
const WRITERS: (&str, &str) = (
    "writers.txt",
    "Herman Melville wrote about whales at sea, and Melville sailed on whaling ships for years. \
     Nathaniel Hawthorne wrote about sin in old Salem, and Hawthorne worked at the Salem custom house.",
);

/// The aliases of `report`'s groups as (canonical, alias, rule).
fn links(report: &serde_json::Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for g in report["groups"].as_array().unwrap() {
        for a in g["aliases"].as_array().unwrap() {
            let s = |v: &serde_json::Value| v.as_str().unwrap().to_string();
            out.push((s(&g["canonical"]), s(&a["name"]), s(&a["rule"])));
        }
    }
    out
}

fn doc_id(kb: &Kb, file: &str) -> String {
    kb.doc_id(file).unwrap()
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

#[test]
fn the_embedding_rule_links_a_surname_to_the_full_name_and_can_be_turned_off() {
    let kb = offline();
    let docs = kb.write_docs(&[WRITERS]);
    kb.ok(&["insert", path_str(&docs)]);
    let graph = kb.graph();
    for name in ["Herman Melville", "Melville", "Nathaniel Hawthorne", "Hawthorne"] {
        assert!(node(&graph, name).is_some(), "{name} missing: {graph}");
    }
    // the string rules alone miss both pairs
    let strings_only = kb.json(&["graph", "resolve", "--json", "--embedding-similarity", "1.1"]);
    assert!(links(&strings_only).is_empty(), "{strings_only:#}");

    let report = kb.json(&["graph", "resolve", "--json"]);
    let found = links(&report);
    for (full, short) in [("Herman Melville", "Melville"), ("Nathaniel Hawthorne", "Hawthorne")] {
        assert!(found.contains(&(full.to_string(), short.to_string(), "embedding".to_string())), "{report:#}");
    }
    // never across the pairs: the names do not look alike, however close the vectors
    assert_eq!(found.len(), 2, "{report:#}");
    let alias = &report["groups"][0]["aliases"][0];
    let score = alias["score"].as_f64().unwrap();
    assert!((lightrag_engine::maintenance::resolve::DEFAULT_EMBEDDING_SIMILARITY..=1.0).contains(&score), "{alias}");
    assert!(report["confirmation"].is_null() && report["rejected"].as_array().unwrap().is_empty());

    let text = kb.ok(&["graph", "resolve"]);
    assert!(text.contains("Herman Melville\n  <- Melville (1 chunks; embedding 0."), "{text}");

    // a threshold above every pair's similarity links nothing; applying merges the surnames
    let strict = kb.json(&["graph", "resolve", "--json", "--embedding-similarity", "0.9999"]);
    assert!(links(&strict).is_empty(), "{strict:#}");
    kb.ok(&["graph", "resolve", "--apply"]);
    let merged = kb.graph();
    assert!(node(&merged, "Melville").is_none() && node(&merged, "Hawthorne").is_none(), "{merged}");
    assert!(node(&merged, "Herman Melville").is_some() && node(&merged, "Nathaniel Hawthorne").is_some());
}

#[test]
fn the_llm_confirms_one_link_and_rejects_another_and_answers_are_cached() {
    let mut kb = offline();
    let docs = kb.write_docs(&[WRITERS]);
    kb.ok(&["insert", path_str(&docs)]);
    // an LLM from now on, one call at a time so the scripted answers meet the links in order
    // (asked by name: Hawthorne's pair first)
    kb.set("LLM_BINDING", "openai").set("MAX_ASYNC", "1");
    kb.server.push_fault(Fault::reply("Yes.", 1));
    kb.server.push_fault(Fault::reply("<think>both wrote novels</think>\nno", 1));
    let report = kb.json(&["graph", "resolve", "--confirm", "--json"]);
    assert_eq!(
        links(&report),
        vec![("Nathaniel Hawthorne".to_string(), "Hawthorne".to_string(), "embedding".to_string())],
        "{report:#}"
    );
    assert_eq!(
        report["confirmation"],
        serde_json::json!({"asked": 2, "accepted": 1, "rejected": 1, "unparseable": 0}),
        "{report:#}"
    );
    let rejected = &report["rejected"].as_array().unwrap()[0];
    assert_eq!((rejected["a"].as_str(), rejected["b"].as_str()), (Some("Herman Melville"), Some("Melville")));
    assert_eq!((rejected["rule"].as_str(), rejected["verdict"].as_str()), (Some("embedding"), Some("no")));

    // the prompt carries both names and both descriptions
    let asked: Vec<String> = kb.server.requests().into_iter().map(|r| r.body.to_string()).collect();
    let melville = asked.iter().find(|b| b.contains("Name: Melville")).expect("Melville's pair was asked");
    assert!(melville.contains("Name: Herman Melville") && melville.contains("whaling ships"), "{melville}");

    // asked again: the cached answers, no new call
    let calls = kb.server.stats().chat_calls();
    let again = kb.json(&["graph", "resolve", "--confirm", "--json"]);
    assert_eq!(kb.server.stats().chat_calls(), calls, "answers come from the LLM cache");
    assert_eq!(links(&again), links(&report));

    // the text form names the rejected link; an answer that is neither yes nor no keeps the link out
    kb.set("ENABLE_LLM_CACHE_FOR_EXTRACT", "false");
    kb.server.push_fault(Fault::reply("They are probably the same person.", 1));
    kb.server.push_fault(Fault::reply("YES", 1));
    let text = kb.ok(&["graph", "resolve", "--confirm"]);
    assert!(text.contains("not confirmed by the LLM:\n  Hawthorne / Nathaniel Hawthorne (embedding 0."), "{text}");
    assert!(text.contains("unparseable answer \"They are probably the same person.\""), "{text}");
    assert!(text.contains("Herman Melville\n  <- Melville"), "{text}");
    assert!(text.contains("2 links: 1 confirmed, 0 rejected, 1 unparseable"), "{text}");
}

#[test]
fn confirm_without_an_llm_is_refused_with_a_clear_error() {
    let kb = offline();
    let docs = kb.write_docs(&[WRITERS]);
    kb.ok(&["insert", path_str(&docs)]);
    let graph = kb.graph();
    let out = kb.run(&["graph", "resolve", "--confirm", "--apply"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--confirm") && err.contains("LLM_BINDING=none"), "{err}");
    assert_eq!(kb.graph(), graph, "nothing merged");
    let out = kb.run(&["graph", "resolve", "--embedding-similarity", "0"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--embedding-similarity"));
}
