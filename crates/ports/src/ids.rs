//! Identifier helpers compatible with LightRAG (`prefix + md5 hex`).

use md5::{Digest, Md5};

/// Lower-case hex MD5 of `text`.
pub fn md5_hex(text: &str) -> String {
    let mut hasher = Md5::new();
    hasher.update(text.as_bytes());
    hex::encode(hasher.finalize())
}

/// `prefix` followed by the MD5 of `text` (LightRAG's `compute_mdhash_id`).
pub fn mdhash_id(text: &str, prefix: &str) -> String {
    format!("{prefix}{}", md5_hex(text))
}

/// Chunk id for chunk number `order` of document `doc_id`: `{doc_id}-chunk-{order:03}`.
pub fn chunk_id(doc_id: &str, order: usize) -> String {
    format!("{doc_id}-chunk-{order:03}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_matches_known_value() {
        assert_eq!(md5_hex("hello"), "5d41402abc4b2a76b9719d911017c592");
        assert_eq!(mdhash_id("hello", "ent-"), "ent-5d41402abc4b2a76b9719d911017c592");
    }

    #[test]
    fn chunk_ids_are_zero_padded() {
        assert_eq!(chunk_id("doc-1", 7), "doc-1-chunk-007");
        assert_eq!(chunk_id("doc-1", 1234), "doc-1-chunk-1234");
    }
}
