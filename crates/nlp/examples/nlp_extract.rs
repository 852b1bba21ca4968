//! Prints what rule-based extraction finds in one text file (or standard input), and the query
//! keywords of any further arguments.
//!
//! ```text
//! cargo run -p lightrag-nlp --example nlp_extract -- <file|-> ["a question" ...]
//! ```

use std::io::Read;

use lightrag_nlp::{NlpOptions, extract, query_keywords};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(source) = args.first() else {
        eprintln!("usage: nlp_extract <file|-> [question ...]");
        std::process::exit(2);
    };
    let mut text = String::new();
    let read = if source == "-" {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(source).map(|t| text = t)
    };
    if let Err(e) = read {
        eprintln!("cannot read {source}: {e}");
        std::process::exit(1);
    }
    let out = extract(&text, &NlpOptions::default());
    for e in &out.entities {
        println!("entity  {} [{}]\n        {}", e.name, e.entity_type, e.description);
    }
    for r in &out.relations {
        println!("relation {} -- {} (w={:.2}; {})\n        {}", r.src, r.tgt, r.weight, r.keywords, r.description);
    }
    for q in &args[1..] {
        let k = query_keywords(q);
        println!("query {q:?}\n  low:  {:?}\n  high: {:?}", k.low_level, k.high_level);
    }
}
