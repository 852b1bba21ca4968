//! Record builders and helpers shared by the checks (public ones can be reused by backends).

use crate::*;

/// A document with a content hash derived from its content.
pub fn document(id: &str, content: &str, created_at: i64) -> Document {
    Document {
        id: id.to_string(),
        content: content.to_string(),
        file_path: format!("{id}.txt"),
        content_hash: ids::md5_hex(content),
        chunking: ChunkingOptions::default(),
        created_at,
    }
}

/// A document to enqueue under `track_id`.
pub fn new_document(id: &str, content: &str, created_at: i64, track_id: &str) -> NewDocument {
    NewDocument {
        document: document(id, content, created_at),
        track_id: track_id.to_string(),
        metadata: Default::default(),
        admission: Admission::Record,
    }
}

/// A status row.
pub fn status_row(id: &str, status: DocStatus, created_at: i64) -> DocStatusRecord {
    DocStatusRecord {
        id: id.to_string(),
        status,
        file_path: format!("{id}.txt"),
        track_id: "track-test".to_string(),
        content_summary: format!("summary of {id}"),
        content_length: 42,
        content_hash: ids::md5_hex(id),
        chunks_count: None,
        chunks_list: Vec::new(),
        error_msg: None,
        metadata: serde_json::Map::new(),
        created_at,
        updated_at: created_at,
        lease_owner: None,
        lease_until: None,
    }
}

/// A chunk of `doc_id`.
pub fn chunk(doc_id: &str, order: u32) -> Chunk {
    Chunk {
        id: ids::chunk_id(doc_id, order as usize),
        doc_id: doc_id.to_string(),
        order,
        tokens: 10 + order,
        content: format!("content {order} of {doc_id}"),
        file_path: format!("{doc_id}.txt"),
    }
}

/// An entity showing `chunk_ids` as its sources (version 0, i.e. not stored yet; no chunk list).
pub fn entity(name: &str, chunk_ids: &[&str]) -> Entity {
    let ids: Vec<String> = chunk_ids.iter().map(|s| s.to_string()).collect();
    Entity {
        name: name.to_string(),
        entity_type: "concept".to_string(),
        description: format!("{name} is a thing"),
        source_ids: ids,
        chunk_count: 0,
        file_paths: vec!["a.txt".to_string()],
        created_at: 1000,
        truncate: String::new(),
        version: 0,
    }
}

/// A relation between `a` and `b` (given in any order).
pub fn relation(a: &str, b: &str, chunk_ids: &[&str]) -> Relation {
    let ids: Vec<String> = chunk_ids.iter().map(|s| s.to_string()).collect();
    Relation {
        key: RelKey::new(a, b),
        weight: 1.5,
        keywords: "k1,k2".to_string(),
        description: format!("{a} relates to {b}"),
        source_ids: ids,
        chunk_count: 0,
        file_paths: vec!["a.txt".to_string()],
        created_at: 1000,
        truncate: String::new(),
        version: 0,
    }
}

/// An extraction record for a chunk.
pub fn extraction(chunk_id: &str, doc_id: &str, created_at: i64) -> ChunkExtraction {
    ChunkExtraction {
        chunk_id: chunk_id.to_string(),
        doc_id: doc_id.to_string(),
        entities: vec![ExtractedEntity {
            name: "Alpha".to_string(),
            entity_type: "person".to_string(),
            description: format!("Alpha in {chunk_id}"),
            written_as: None,
        }],
        relations: vec![ExtractedRelation {
            src: "Beta".to_string(),
            tgt: "Alpha".to_string(),
            keywords: "knows".to_string(),
            description: "Beta knows Alpha".to_string(),
            weight: 2.0,
            src_written_as: None,
            tgt_written_as: None,
        }],
        cache_keys: vec![format!("default:extract:{chunk_id}")],
        created_at,
        folded_relations: Vec::new(),
    }
}

/// A vector record.
pub fn vector(kind: VectorKind, key: &str, v: Vec<f32>) -> VectorRecord {
    VectorRecord { kind, key: key.to_string(), content: format!("text of {key}"), vector: v }
}

/// A small deterministic pseudo-random generator (xorshift64*), so the suite needs no `rand`.
#[derive(Debug, Clone)]
pub struct TestRng(u64);

impl TestRng {
    /// Seeded generator (seed 0 is replaced by a constant).
    pub fn new(seed: u64) -> Self {
        TestRng(if seed == 0 { 0x9E37_79B9_7F4A_7C15 } else { seed })
    }
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [-1, 1).
    pub fn next_f32(&mut self) -> f32 {
        ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
    /// A random vector of `dim` components.
    pub fn vector(&mut self, dim: usize) -> Vec<f32> {
        (0..dim).map(|_| self.next_f32()).collect()
    }
}

pub(super) fn unit(v: &[f32]) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / n).collect()
}

pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

pub(super) fn s(v: &str) -> String {
    v.to_string()
}

pub(super) fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

pub(super) async fn apply_ok(store: &dyn Store, changes: ChangeSet, what: &str) {
    if let Err(e) = store.apply(changes).await {
        panic!("apply({what}) failed: {e}");
    }
}

/// Writes one processed document with `n` chunks, chunk vectors (dim 4) and extraction records.
pub(super) async fn put_doc(store: &dyn Store, doc_id: &str, n: u32) {
    let chunks: Vec<Chunk> = (0..n).map(|i| chunk(doc_id, i)).collect();
    let mut status = status_row(doc_id, DocStatus::Processed, 100);
    status.chunks_count = Some(n as usize);
    status.chunks_list = chunks.iter().map(|c| c.id.clone()).collect();
    let changes = ChangeSet {
        doc_status: vec![status],
        extractions: chunks.iter().map(|c| extraction(&c.id, doc_id, 500)).collect(),
        vectors: chunks
            .iter()
            .enumerate()
            .map(|(i, c)| vector(VectorKind::Chunk, &c.id, vec![1.0, i as f32, 0.5, 0.0]))
            .collect(),
        doc_links: vec![DocLinks {
            doc_id: doc_id.to_string(),
            entities: names(&["Alpha"]),
            relations: vec![RelKey::new("Alpha", "Beta")],
        }],
        chunks,
        ..ChangeSet::default()
    };
    apply_ok(store, changes, &format!("document {doc_id}")).await;
}
