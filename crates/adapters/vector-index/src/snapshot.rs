//! Snapshot files: a fixed header (format, index type, encoding, dimension, watermark, count)
//! followed by the exact index's rows, or by the name of the HNSW payload file beside it.
//! Every file is written to a temporary name, synced and renamed over the old one.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use lightrag_ports::{VectorEncoding, VectorIndexError, Watermark};

use crate::encoding::Matrix;
use crate::exact::Rows;

const MAGIC: &[u8; 8] = b"LRVIDX01";
const HEADER_LEN: usize = 8 + 4 + 4 + 8 + 8 + 8;

/// Which implementation wrote a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexType {
    /// [`crate::ExactIndex`].
    Exact,
    /// [`crate::HnswIndex`].
    Hnsw,
}

/// The fixed part of a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Which implementation.
    pub index_type: IndexType,
    /// How vectors are held.
    pub encoding: VectorEncoding,
    /// Dimension.
    pub dim: usize,
    /// Change-feed position the contents reflect.
    pub mark: Watermark,
    /// Number of vectors.
    pub count: u64,
}

impl Header {
    fn to_bytes(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN);
        out.extend_from_slice(MAGIC);
        out.push(match self.index_type {
            IndexType::Exact => 0,
            IndexType::Hnsw => 1,
        });
        out.push(match self.encoding {
            VectorEncoding::F32 => 0,
            VectorEncoding::F16 => 1,
            VectorEncoding::I8 => 2,
        });
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&(self.dim as u32).to_le_bytes());
        out.extend_from_slice(&self.mark.epoch.to_le_bytes());
        out.extend_from_slice(&self.mark.seq.to_le_bytes());
        out.extend_from_slice(&self.count.to_le_bytes());
        out
    }

    fn parse(bytes: &[u8], path: &Path) -> Result<Header, VectorIndexError> {
        if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
            return Err(bad(path, "not a lightrag-rs vector index snapshot of this format"));
        }
        let index_type = match bytes[8] {
            0 => IndexType::Exact,
            1 => IndexType::Hnsw,
            t => return Err(bad(path, &format!("unknown index type {t}"))),
        };
        let encoding = match bytes[9] {
            0 => VectorEncoding::F32,
            1 => VectorEncoding::F16,
            2 => VectorEncoding::I8,
            e => return Err(bad(path, &format!("unknown encoding {e}"))),
        };
        Ok(Header {
            index_type,
            encoding,
            dim: u32_at(bytes, 12) as usize,
            mark: Watermark { epoch: u64_at(bytes, 16), seq: u64_at(bytes, 24) },
            count: u64_at(bytes, 32),
        })
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

pub(crate) fn bad(path: &Path, reason: &str) -> VectorIndexError {
    VectorIndexError::BadSnapshot { path: path.display().to_string(), reason: reason.to_string() }
}

pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> VectorIndexError + '_ {
    move |source| VectorIndexError::Io { path: path.display().to_string(), source }
}

/// A temporary name beside `path`, unique to this process and call.
pub(crate) fn temp_beside(path: &Path, tag: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut name = path.file_name().map(|s| s.to_os_string()).unwrap_or_default();
    name.push(format!(".{tag}-{}-{n}.tmp", std::process::id()));
    path.with_file_name(name)
}

/// Writes `body` to a temporary file beside `path`, syncs it, and renames it over `path`.
pub(crate) fn write_atomic(
    path: &Path,
    body: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<(), VectorIndexError> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    let tmp = temp_beside(path, "write");
    let result = (|| {
        let file = File::create(&tmp)?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        body(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io(path))
}

/// Reads only the header of a snapshot.
pub fn read_header(path: &Path) -> Result<Header, VectorIndexError> {
    let mut file = File::open(path).map_err(io(path))?;
    let mut head = [0u8; HEADER_LEN];
    file.read_exact(&mut head).map_err(|_| bad(path, "shorter than its header"))?;
    Header::parse(&head, path)
}

/// Writes an exact index's rows.
pub(crate) fn write_exact(path: &Path, header: &Header, rows: &Rows) -> Result<(), VectorIndexError> {
    write_atomic(path, |w| {
        w.write_all(&header.to_bytes())?;
        for id in &rows.ids {
            w.write_all(&id.to_le_bytes())?;
        }
        match &rows.matrix {
            Matrix::F32(d) => {
                for x in d {
                    w.write_all(&x.to_le_bytes())?;
                }
            }
            Matrix::F16(d) => {
                for x in d {
                    w.write_all(&x.0.to_le_bytes())?;
                }
            }
            Matrix::I8 { data, scales } => {
                let bytes: Vec<u8> = data.iter().map(|x| x.to_le_bytes()[0]).collect();
                w.write_all(&bytes)?;
                for s in scales {
                    w.write_all(&s.to_le_bytes())?;
                }
            }
        }
        Ok(())
    })
}

/// Reads an exact index's snapshot.
pub(crate) fn read_exact(path: &Path) -> Result<(Header, Rows), VectorIndexError> {
    let bytes = std::fs::read(path).map_err(io(path))?;
    let header = Header::parse(&bytes, path)?;
    if header.index_type != IndexType::Exact {
        return Err(bad(path, "not an exact index snapshot"));
    }
    let (n, dim) = (header.count as usize, header.dim);
    let per_vector =
        8 + dim * header.encoding.bytes_per_dim() + if header.encoding == VectorEncoding::I8 { 4 } else { 0 };
    if bytes.len() != HEADER_LEN + n * per_vector {
        return Err(bad(path, "its length does not match its vector count (truncated or damaged)"));
    }
    let mut at = HEADER_LEN;
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        ids.push(u64_at(&bytes, at));
        at += 8;
    }
    let values = n * dim;
    let matrix = match header.encoding {
        VectorEncoding::F32 => Matrix::F32(
            bytes[at..at + values * 4].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
        ),
        VectorEncoding::F16 => Matrix::F16(
            bytes[at..at + values * 2]
                .chunks_exact(2)
                .map(|b| simsimd::f16(u16::from_le_bytes([b[0], b[1]])))
                .collect(),
        ),
        VectorEncoding::I8 => {
            let data = bytes[at..at + values].iter().map(|b| i8::from_le_bytes([*b])).collect();
            let s = at + values;
            let scales =
                bytes[s..s + n * 4].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
            Matrix::I8 { data, scales }
        }
    };
    let mut slots = std::collections::HashMap::with_capacity(n);
    for (row, id) in ids.iter().enumerate() {
        if slots.insert(*id, row as u32).is_some() {
            return Err(bad(path, &format!("id {id} appears twice")));
        }
    }
    Ok((header, Rows { ids, slots, matrix }))
}

/// Writes the header of an HNSW snapshot, naming its payload file (a sibling of `path`).
pub(crate) fn write_hnsw_header(path: &Path, header: &Header, payload: &str) -> Result<(), VectorIndexError> {
    write_atomic(path, |w| {
        w.write_all(&header.to_bytes())?;
        w.write_all(&(payload.len() as u32).to_le_bytes())?;
        w.write_all(payload.as_bytes())
    })
}

/// Reads an HNSW snapshot's header and the path of its payload.
pub(crate) fn read_hnsw_header(path: &Path) -> Result<(Header, PathBuf), VectorIndexError> {
    let bytes = std::fs::read(path).map_err(io(path))?;
    let header = Header::parse(&bytes, path)?;
    if header.index_type != IndexType::Hnsw || bytes.len() < HEADER_LEN + 4 {
        return Err(bad(path, "not an HNSW index snapshot"));
    }
    let len = u32_at(&bytes, HEADER_LEN) as usize;
    let name = bytes
        .get(HEADER_LEN + 4..HEADER_LEN + 4 + len)
        .and_then(|b| std::str::from_utf8(b).ok())
        .filter(|n| !n.contains('/') && !n.contains('\\') && !n.is_empty())
        .ok_or_else(|| bad(path, "unreadable payload name"))?;
    Ok((header, path.with_file_name(name)))
}

/// Removes payload files of older snapshots of `path` (siblings named `<file>.<n>.usearch`), and
/// temporary files left by interrupted writes, except `keep`.
pub(crate) fn remove_stale_payloads(path: &Path, keep: &Path) {
    let (Some(dir), Some(stem)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else { return };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let p = entry.path();
        let Some(name) = p.file_name().and_then(|n| n.to_str()) else { continue };
        if !name.starts_with(&format!("{stem}.")) || p == keep {
            continue;
        }
        // A temporary file may belong to a write still running in another process.
        let old = || {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age.as_secs() > 600)
        };
        if name.ends_with(".usearch") || (name.ends_with(".tmp") && old()) {
            let _ = std::fs::remove_file(&p);
        }
    }
}
