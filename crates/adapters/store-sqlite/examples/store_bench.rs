//! A small benchmark of the SQLite store: commit 500 documents' worth of change sets, reopen,
//! then search a 10k-vector set. Prints timings; asserts nothing.
//!
//! `cargo run --release -p lightrag-store-sqlite --example store_bench [-- <docs> <vectors> <dim>]`

use std::error::Error;
use std::time::Instant;

use lightrag_ports::conformance::{TestRng, chunk, entity, extraction, relation, status_row, vector};
use lightrag_ports::prelude::*;
use lightrag_ports::{ChangeSet, DocLinks, DocStatus, RelKey, VectorKind, VectorRecord, ids};
use lightrag_store_sqlite::SqliteStore;

fn arg(n: usize, default: usize) -> usize {
    std::env::args().nth(n).and_then(|a| a.parse().ok()).unwrap_or(default)
}

/// One document's commit: status, chunks, extractions, entities, relations, vectors, links.
fn doc_change_set(
    store_rng: &mut TestRng,
    d: usize,
    dim: usize,
    versions: &std::collections::HashMap<String, u64>,
) -> ChangeSet {
    let doc_id = format!("doc-{d:05}");
    let chunks: Vec<_> = (0..5).map(|i| chunk(&doc_id, i)).collect();
    let mut status = status_row(&doc_id, DocStatus::Processed, d as i64);
    status.chunks_count = Some(chunks.len());
    status.chunks_list = chunks.iter().map(|c| c.id.clone()).collect();
    // Ten entities per document drawn from a pool of 2000, so many are shared across documents.
    let names: Vec<String> = (0..10)
        .map(|_| format!("Entity {}", store_rng.next_u64() % 2000))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let rels: Vec<RelKey> = names.windows(2).map(|w| RelKey::new(w[0].clone(), w[1].clone())).collect();
    let mut vectors: Vec<VectorRecord> =
        chunks.iter().map(|c| vector(VectorKind::Chunk, &c.id, store_rng.vector(dim))).collect();
    vectors.extend(names.iter().map(|n| vector(VectorKind::Entity, n, store_rng.vector(dim))));
    vectors.extend(
        rels.iter().map(|k| vector(VectorKind::Relation, &VectorRecord::relation_key(k), store_rng.vector(dim))),
    );
    ChangeSet {
        expect_entities: names.iter().map(|n| (n.clone(), versions.get(n).copied())).collect(),
        doc_status: vec![status],
        extractions: chunks.iter().map(|c| extraction(&c.id, &doc_id, d as i64)).collect(),
        entities: names.iter().map(|n| entity(n, &[&chunks[0].id])).collect(),
        relations: rels.iter().map(|k| relation(&k.src, &k.tgt, &[&chunks[1].id])).collect(),
        vectors,
        doc_links: vec![DocLinks { doc_id: doc_id.clone(), entities: names.clone(), relations: rels.clone() }],
        chunks,
        ..ChangeSet::default()
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let docs = arg(1, 500);
    let n_vectors = arg(2, 10_000);
    let dim = arg(3, 384);
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("bench.sqlite");
    let store = SqliteStore::open(&path)?;
    let mut rng = TestRng::new(7);

    let start = Instant::now();
    let mut versions = std::collections::HashMap::new();
    for d in 0..docs {
        let changes = doc_change_set(&mut rng, d, dim, &versions);
        let names: Vec<String> = changes.entities.iter().map(|e| e.name.clone()).collect();
        store.apply(changes).await?;
        for n in names {
            *versions.entry(n).or_insert(0) += 1;
        }
    }
    let apply_time = start.elapsed();
    let counts = store.vector_counts().await?;
    println!(
        "apply: {docs} documents in {:.2?} ({:.2} ms/doc); vectors {counts:?}; graph {:?}",
        apply_time,
        apply_time.as_secs_f64() * 1000.0 / docs.max(1) as f64,
        store.graph_counts().await?
    );

    let start = Instant::now();
    let batch: Vec<VectorRecord> =
        (0..n_vectors).map(|i| vector(VectorKind::Chunk, &ids::chunk_id("bulk", i), rng.vector(dim))).collect();
    for part in batch.chunks(1000) {
        store.apply(ChangeSet { vectors: part.to_vec(), ..ChangeSet::default() }).await?;
    }
    println!("bulk insert: {n_vectors} chunk vectors (dim {dim}) in {:.2?}", start.elapsed());
    drop(store);

    let start = Instant::now();
    let store = SqliteStore::open(&path)?;
    println!(
        "reopen (loads every vector set): {:.2?}; file {} MB",
        start.elapsed(),
        std::fs::metadata(&path)?.len() / 1_000_000
    );

    let queries: Vec<Vec<f32>> = (0..100).map(|_| rng.vector(dim)).collect();
    let total = store.vector_counts().await?[&VectorKind::Chunk];
    let start = Instant::now();
    let mut hits = 0;
    for q in &queries {
        hits += store.search_vectors(VectorKind::Chunk, q, 10, -1.0).await?.len();
    }
    let t = start.elapsed();
    println!(
        "search: 100 queries top-10 over {total} chunk vectors: {:.2?} total, {:.3} ms/query ({hits} hits)",
        t,
        t.as_secs_f64() * 10.0
    );

    let names: Vec<String> = (0..200).map(|i| format!("Entity {i}")).collect();
    let start = Instant::now();
    let rels = store.relations_of(&names).await?;
    let degrees = store.node_degrees(&names).await?;
    let ents = store.get_entities(&names).await?;
    println!(
        "graph reads for 200 names: {:.2?} ({} relations, {} degrees, {} entities)",
        start.elapsed(),
        rels.len(),
        degrees.len(),
        ents.iter().flatten().count()
    );
    Ok(())
}
