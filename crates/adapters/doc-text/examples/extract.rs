//! Prints the text `lightrag-doc-text` extracts from each file given on the command line
//! (`cargo run -p lightrag-doc-text --example extract -- FILE...`); `--stats` prints only sizes,
//! timings and the first line.

use std::time::Instant;

fn main() {
    let mut stats = false;
    for arg in std::env::args().skip(1) {
        if arg == "--stats" {
            stats = true;
            continue;
        }
        let started = Instant::now();
        let result = std::fs::read(&arg)
            .map_err(|e| e.to_string())
            .and_then(|bytes| lightrag_doc_text::extract_text(&arg, &bytes).map_err(|e| e.to_string()));
        let elapsed = started.elapsed();
        match result {
            Ok(text) if stats => {
                let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or_default();
                println!("{arg}: {} chars in {elapsed:.2?}; first line: {first}", text.chars().count());
            }
            Ok(text) => println!("{text}"),
            Err(e) => eprintln!("{arg}: {e}"),
        }
    }
}
