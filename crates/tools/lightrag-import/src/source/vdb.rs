//! NanoVectorDB files (`vdb_chunks.json`, `vdb_entities.json`, `vdb_relationships.json`):
//! `{"embedding_dim": n, "data": [{"__id__", meta…, "vector"}], "matrix": base64}`.
//!
//! `matrix` is the little-endian float32 array of shape `(len(data), embedding_dim)`, row `i`
//! belonging to `data[i]` — the exact vectors. Each record's `vector` (newer releases) holds the
//! same vector as zlib-compressed float16; it is used only when the matrix is missing or has the
//! wrong size (a file cut short by a crash, LightRAG issue #2108).

use std::io::Read;
use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::kv::{FileState, read_json};

#[derive(Deserialize)]
struct RawFile {
    #[serde(default)]
    embedding_dim: Option<usize>,
    #[serde(default)]
    data: Vec<Map<String, Value>>,
    #[serde(default)]
    matrix: Option<String>,
}

/// One stored vector and the record it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorRow {
    /// `__id__`.
    pub id: String,
    /// The record's other fields (`content`, `entity_name`, `src_id`, `tgt_id`, …).
    pub meta: Map<String, Value>,
    /// The vector, when one could be read.
    pub vector: Option<Vec<f32>>,
}

impl VectorRow {
    /// A string field of the record.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.meta.get(name).and_then(Value::as_str)
    }
}

/// A vector file.
#[derive(Debug, Default)]
pub struct VectorFile {
    /// Dimension the file declares (or that its matrix implies).
    pub dim: Option<usize>,
    /// Records in file order.
    pub rows: Vec<VectorRow>,
    /// Whether the file was there and readable.
    pub state: Option<FileState>,
    /// Records whose vector could not be read.
    pub unreadable: usize,
}

/// Reads `dir/name`.
pub fn read_vectors(dir: &Path, name: &str) -> VectorFile {
    let raw: RawFile = match read_json(dir, name) {
        Ok(raw) => raw,
        Err(state) => return VectorFile { state: Some(state), ..VectorFile::default() },
    };
    let n = raw.data.len();
    let matrix = raw.matrix.as_deref().and_then(|m| decode_matrix(m, n, raw.embedding_dim));
    let dim = raw.embedding_dim.or_else(|| matrix.as_ref().and_then(|m| m.first().map(Vec::len)));
    let mut matrix_rows = matrix.map(Vec::into_iter);
    let mut file = VectorFile { dim, state: Some(FileState::Read { records: n }), ..VectorFile::default() };
    for mut meta in raw.data {
        let id = meta.remove("__id__").and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        let packed = meta.remove("vector");
        let from_matrix = matrix_rows.as_mut().and_then(Iterator::next);
        let vector = from_matrix.or_else(|| {
            packed.as_ref().and_then(Value::as_str).and_then(decode_packed).filter(|v| dim.is_none_or(|d| v.len() == d))
        });
        if vector.is_none() {
            file.unreadable += 1;
        }
        file.rows.push(VectorRow { id, meta, vector });
    }
    file
}

/// The matrix as rows, when its size fits `n` rows (of `dim` columns when declared).
fn decode_matrix(matrix: &str, n: usize, dim: Option<usize>) -> Option<Vec<Vec<f32>>> {
    let bytes = STANDARD.decode(matrix.trim()).ok()?;
    if n == 0 || !bytes.len().is_multiple_of(4) {
        return None;
    }
    let floats: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    if !floats.len().is_multiple_of(n) {
        return None;
    }
    let cols = floats.len() / n;
    if cols == 0 || dim.is_some_and(|d| d != cols) {
        return None;
    }
    Some(floats.chunks_exact(cols).map(<[f32]>::to_vec).collect())
}

/// A record's `vector`: base64 of zlib-compressed little-endian float16.
fn decode_packed(packed: &str) -> Option<Vec<f32>> {
    let compressed = STANDARD.decode(packed.trim()).ok()?;
    let mut bytes = Vec::new();
    flate2::read::ZlibDecoder::new(compressed.as_slice()).take(64 * 1024 * 1024).read_to_end(&mut bytes).ok()?;
    if bytes.is_empty() || !bytes.len().is_multiple_of(2) {
        return None;
    }
    Some(bytes.chunks_exact(2).map(|b| f16_to_f32(u16::from_le_bytes([b[0], b[1]]))).collect())
}

/// IEEE 754 half precision to single precision.
fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exponent = i32::from((h >> 10) & 0x1f);
    let mantissa = f32::from(h & 0x03ff);
    match exponent {
        0 => sign * mantissa * 2f32.powi(-24),
        31 if mantissa == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + mantissa / 1024.0) * 2f32.powi(e - 15),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::io::Write;

    fn packed(values: &[u16]) -> String {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(&bytes).unwrap();
        STANDARD.encode(z.finish().unwrap())
    }

    #[test]
    fn half_floats_decode() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x3800), 0.5);
        assert_eq!(f16_to_f32(0), 0.0);
        assert!((f16_to_f32(0x0001) - 5.96e-8).abs() < 1e-9);
    }

    #[test]
    fn the_matrix_wins_and_records_fall_back_to_their_packed_vector() {
        let dir = tempfile::tempdir().unwrap();
        let matrix: Vec<u8> = [0.6f32, 0.8, 1.0, 0.0].iter().flat_map(|f| f.to_le_bytes()).collect();
        let body = serde_json::json!({
            "embedding_dim": 2,
            "data": [{"__id__": "a", "content": "x", "vector": packed(&[0x3c00, 0])},
                     {"__id__": "b", "content": "y"}],
            "matrix": STANDARD.encode(&matrix),
        });
        std::fs::write(dir.path().join("vdb_chunks.json"), body.to_string()).unwrap();
        let file = read_vectors(dir.path(), "vdb_chunks.json");
        assert_eq!(file.dim, Some(2));
        assert_eq!(file.rows[0].vector, Some(vec![0.6, 0.8]));
        assert_eq!(file.rows[1].vector, Some(vec![1.0, 0.0]));
        assert_eq!(file.rows[0].field("content"), Some("x"));

        // matrix cut short: the packed vectors are used, records without one are counted
        let body = serde_json::json!({
            "embedding_dim": 2,
            "data": [{"__id__": "a", "vector": packed(&[0x3c00, 0xc000])}, {"__id__": "b"}],
            "matrix": STANDARD.encode(&matrix[..4]),
        });
        std::fs::write(dir.path().join("vdb_chunks.json"), body.to_string()).unwrap();
        let file = read_vectors(dir.path(), "vdb_chunks.json");
        assert_eq!(file.rows[0].vector, Some(vec![1.0, -2.0]));
        assert_eq!(file.rows[1].vector, None);
        assert_eq!(file.unreadable, 1);
    }
}
