//! Every check of the store and vector-index suites is one of the tests `store_conformance!` and
//! `vector_index_conformance!` generate: the functions of `src/conformance/` against the lists
//! in `src/conformance.rs` (read as text, so this runs without the `testing` feature).

#![allow(clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::Path;

/// The names of the `pub fn` / `pub async fn` `check_…` functions of `source` whose first
/// parameter is `&dyn {port}`.
fn checks_of(source: &str, port: &str) -> BTreeSet<String> {
    source
        .split("pub ")
        .filter_map(|item| item.strip_prefix("async ").or(Some(item)))
        .filter_map(|item| item.strip_prefix("fn "))
        .filter(|item| item.starts_with("check_"))
        .filter_map(|item| {
            let (name, rest) = item.split_once('(')?;
            let (_, ty) = rest.split_once(": &dyn ")?;
            ty.starts_with(port).then(|| name.to_string())
        })
        .collect()
}

/// The check names a macro of `conformance.rs` lists after `opening` (up to `);`).
fn listed(opening: &str) -> BTreeSet<String> {
    let source = include_str!("conformance.rs");
    let (_, after) = source.split_once(opening).expect("the macro's list");
    let (list, _) = after.split_once(");").expect("the end of the macro's list");
    list.split([',', ';']).map(str::trim).filter(|n| !n.is_empty()).map(str::to_string).collect()
}

fn suite_sources() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/conformance");
    let mut sources = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("src/conformance") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            sources.push(std::fs::read_to_string(&path).expect("a suite file"));
        }
    }
    sources
}

#[test]
fn every_store_check_is_a_generated_test() {
    let defined: BTreeSet<String> = suite_sources().iter().flat_map(|s| checks_of(s, "Store")).collect();
    assert!(defined.len() >= 40, "the store checks were found: {defined:?}");
    assert_eq!(listed("$crate::__store_checks!($backend, $make;"), defined, "store_conformance! lists every check");
}

#[test]
fn every_vector_index_check_is_a_generated_test() {
    let defined: BTreeSet<String> = suite_sources().iter().flat_map(|s| checks_of(s, "IndexHarness")).collect();
    assert!(defined.len() >= 9, "the vector-index checks were found: {defined:?}");
    assert_eq!(
        listed("$crate::__vector_index_checks!($name, $harness;"),
        defined,
        "vector_index_conformance! lists every check"
    );
}

#[test]
fn every_access_store_check_is_a_generated_test() {
    let defined: BTreeSet<String> = suite_sources().iter().flat_map(|s| checks_of(s, "AccessStore")).collect();
    assert!(defined.len() >= 3, "the access-store checks were found: {defined:?}");
    assert_eq!(listed("$crate::__access_checks!($backend, $make;"), defined, "access_conformance! lists every check");
}
