//! JSON views of store records shared by the tools and the resources.

use lightrag_engine::time::iso;
use lightrag_ports::{DocStatus, DocStatusRecord};
use serde_json::{Value, json};

/// A document's status row, in the shape of LightRAG's `DocStatusResponse`.
pub fn doc_view(d: &DocStatusRecord) -> Value {
    json!({
        "id": d.id,
        "status": d.status.as_str(),
        "file_path": d.file_path,
        "track_id": d.track_id,
        "content_summary": d.content_summary,
        "content_length": d.content_length,
        "chunks_count": d.chunks_count,
        "error_msg": d.error_msg,
        "created_at": iso(d.created_at),
        "updated_at": iso(d.updated_at),
    })
}

/// `{"pending": n, …, "all": n}` over every status (absent ones count 0).
pub fn status_counts(counts: impl Iterator<Item = (DocStatus, usize)>) -> Value {
    let counts: Vec<(DocStatus, usize)> = counts.collect();
    let mut out = serde_json::Map::new();
    let mut all = 0;
    for status in DocStatus::ALL {
        let n: usize = counts.iter().filter(|(s, _)| *s == status).map(|(_, n)| n).sum();
        all += n;
        out.insert(status.as_str().to_string(), json!(n));
    }
    out.insert("all".into(), json!(all));
    Value::Object(out)
}
