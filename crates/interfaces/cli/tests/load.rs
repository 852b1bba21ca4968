//! The short mode of the HTTP load test (`lightrag-bench --http-load`, issue 13): a real
//! `lightrag serve` process on loopback under 8 concurrent clients for about ten seconds over a
//! small knowledge base, while a background stream keeps indexing. No request may fail and every
//! route class must have been exercised; nothing about timing is asserted.

use std::collections::BTreeSet;
use std::time::Duration;

use lightrag_bench::http_load::{self, Options, Route, clients};

/// A small corpus of State of the Union-like text: 12 files of a few hundred words each.
fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..12 {
        let text = format!(
            "In the year 17{i:02} George Washington addressed the Congress of the United States in New York. \
             The Navy guarded the Atlantic coast while Great Britain and France argued over neutral shipping. \
             Alexander Hamilton spoke of the public credit and the Bank of the United States in year {i}. \
             The Indian tribes of the western frontier met the commissioners at Fort Pitt. "
        )
        .repeat(8);
        std::fs::write(dir.path().join(format!("17{i:02}_address.txt")), text).unwrap();
    }
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_clients_for_ten_seconds_get_no_errors_on_any_route() {
    let corpus = corpus();
    let opts = Options {
        bin: env!("CARGO_BIN_EXE_lightrag").into(),
        corpus: Some(corpus.path().to_path_buf()),
        chunks: 50,
        dim: 64,
        clients: 8,
        duration: Duration::from_secs(10),
        warmup: Duration::from_secs(2),
        seed: 7,
        rss_every: Duration::from_secs(1),
        insert_every: Duration::from_secs(1),
        reads_only: false,
        sets: vec![("CHUNK_SIZE".into(), "60".into()), ("CHUNK_OVERLAP_SIZE".into(), "10".into())],
    };
    let report = http_load::run(&opts).await.unwrap();
    assert!(report.kb_chunks_estimated >= 50, "{report:?}");
    assert_eq!(report.errors, 0, "failed requests: {:#?}", report.failures);
    let seen: BTreeSet<String> = report.routes.iter().filter(|r| r.count > 0).map(|r| r.route.clone()).collect();
    let mut wanted: Vec<Route> = clients::client_routes();
    wanted.push(Route::BackgroundTexts);
    for route in wanted {
        assert!(seen.contains(&route.name()), "{} was never requested: {seen:?}", route.name());
    }
    assert!(report.background_documents >= 1, "the background insert stream posted nothing");
    assert!(!report.rss_mib.is_empty() && report.rss_end_mib > 0.0, "no RSS samples");
    assert!(report.server_exit.contains("exit status: 0"), "{}", report.server_exit);
}
