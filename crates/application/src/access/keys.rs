//! API keys: `lrk_<id>_<secret>`, the id 8 random bytes in hex (found in the store, not secret),
//! the secret 32 random bytes in base64url. The store keeps the SHA-256 of the whole key (right
//! for a high-entropy secret; a password hash would only slow every request) and compares in
//! constant time. A key is shown once, when made, and never logged.

use base64::Engine as _;
use sha2::{Digest, Sha256};

/// The prefix of every key of the access store.
pub const KEY_PREFIX: &str = "lrk_";

/// A new key: `(key id, the whole key)`.
pub fn generate() -> (String, String) {
    let id = hex::encode(rand::random::<[u8; 8]>());
    let secret = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>());
    let key = format!("{KEY_PREFIX}{id}_{secret}");
    (id, key)
}

/// The key id of a presented key, when it has the shape of one.
pub fn key_id(presented: &str) -> Option<&str> {
    let rest = presented.strip_prefix(KEY_PREFIX)?;
    let (id, secret) = rest.split_once('_')?;
    (id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()) && !secret.is_empty()).then_some(id)
}

/// Whether `presented` looks like a key of the access store (and so is checked there).
pub fn is_store_key(presented: &str) -> bool {
    presented.starts_with(KEY_PREFIX)
}

/// The stored hash of `key` (hex SHA-256).
pub fn hash(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// Whether `presented` hashes to `stored`, compared in constant time.
pub fn matches(presented: &str, stored: &str) -> bool {
    let given = hash(presented);
    let (a, b) = (given.as_bytes(), stored.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_key_parses_and_matches_only_its_hash() {
        let (id, key) = generate();
        assert_eq!(key_id(&key), Some(id.as_str()));
        let stored = hash(&key);
        assert!(matches(&key, &stored));
        assert!(!matches(&format!("{key}x"), &stored));
        assert!(!stored.contains(&key[KEY_PREFIX.len() + 17..]), "the hash does not hold the secret");
        assert_eq!(key_id("lrk_nothex0000000000_x"), None);
        assert_eq!(key_id("sk-123"), None);
        assert_ne!(generate().1, key, "keys are random");
    }
}
