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

/// The default mode (auto) walks from the passages that hold the film's title whole: "Film" or
/// "Alto" alone would seed every film history and every saxophone passage.
#[test]
fn auto_seeds_the_walk_with_the_passages_holding_a_title_whole() {
    let mut kb = Kb::new();
    kb.set("CHUNK_TOP_K", "3");
    let docs = [
        (
            "Palo Alto (2013 film).txt",
            "Palo Alto (2013 film)\n\nPalo Alto is a 2013 drama. It was directed by Gia Coppola.",
        ),
        ("Gia Coppola.txt", "Gia Coppola\n\nGia Coppola was born in Los Angeles. Her father is Gian-Carlo Coppola."),
        (
            "Film history.txt",
            "Film history\n\nThe Film industry grew. Film after Film, the Film studios of 2013 made Film stars.",
        ),
        (
            "Film awards.txt",
            "Film awards\n\nFilm awards of 2013 went to a Film about Film. Film critics praised the Film.",
        ),
        (
            "Alto saxophone.txt",
            "Alto saxophone\n\nThe Alto saxophone is pitched in E flat. Alto players love the Alto.",
        ),
        ("Palo.txt", "Palo\n\nPalo is a village. Palo has a church, and Palo has a market."),
    ];
    let dir = kb.write_docs(&docs);
    kb.ok(&["insert", path_str(&dir)]);
    let out = kb.json(&[
        "query",
        "--only-context",
        "--json",
        "Who is the father of the director of film Palo Alto (2013 Film)?",
    ]);
    let files: Vec<&str> =
        out["data"]["chunks"].as_array().unwrap().iter().map(|c| c["file_path"].as_str().unwrap()).collect();
    assert_eq!(files.first(), Some(&"Palo Alto (2013 film).txt"), "{files:?}");
    assert!(files.contains(&"Gia Coppola.txt"), "{files:?}");
    assert_eq!(out["metadata"]["auto"]["mode"], "ppr", "{}", out["metadata"]);
}
