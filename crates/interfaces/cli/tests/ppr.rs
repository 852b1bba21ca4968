//! The `ppr` query mode through the binary: a two-hop question whose second passage shares few
//! words with it is answered from both passages, ahead of look-alike distractors.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Kb, path_str};

#[test]
fn ppr_reaches_the_bridge_entitys_passage_ahead_of_look_alikes() {
    let mut kb = Kb::new();
    kb.set("CHUNK_TOP_K", "3");
    let mut docs: Vec<(String, String)> = vec![
        ("Fortunella.txt".into(), "Fortunella is a comedy film. The film was directed by Eduardo De Filippo.".into()),
        (
            "Eduardo De Filippo.txt".into(),
            "Eduardo De Filippo came from Naples. Eduardo De Filippo wrote plays.".into(),
        ),
    ];
    for (i, (name, town)) in
        [("Marco Rossi", "Turin"), ("Luca Bianchi", "Milan"), ("Paolo Verdi", "Rome"), ("Carlo Neri", "Genoa")]
            .iter()
            .enumerate()
    {
        docs.push((
            format!("director{i}.txt"),
            format!("{name} was a film director. {name} was born in {town}. The director of the film was {name}."),
        ));
    }
    let refs: Vec<(&str, &str)> = docs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let dir = kb.write_docs(&refs);
    kb.ok(&["insert", path_str(&dir)]);
    let out = kb.json(&[
        "query",
        "--mode",
        "ppr",
        "--only-context",
        "--json",
        "Where was the director of film Fortunella born?",
    ]);
    let files: Vec<&str> =
        out["data"]["chunks"].as_array().unwrap().iter().map(|c| c["file_path"].as_str().unwrap()).collect();
    assert!(files.contains(&"Fortunella.txt") && files.contains(&"Eduardo De Filippo.txt"), "{files:?}");
    assert_eq!(out["metadata"]["query_mode"], "ppr");
}
