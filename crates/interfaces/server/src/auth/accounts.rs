//! The `AUTH_ACCOUNTS` logins and their password check: a plaintext password, or a bcrypt hash
//! written `{bcrypt}$2b$…` (what `lightrag hash-password` prints).

use lightrag_config::{AuthAccount, ConfigError, Secret};

/// The prefix that marks a bcrypt hash in `AUTH_ACCOUNTS`.
pub const BCRYPT_PREFIX: &str = "{bcrypt}";

/// The bcrypt cost [`hash_password`] uses by default (as LightRAG's `lightrag-hash-password`).
pub const DEFAULT_HASH_COST: u32 = 12;

/// Why a password could not be hashed.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    /// Empty password.
    #[error("the password is empty; AUTH_ACCOUNTS needs a non-empty password")]
    Empty,
    /// bcrypt refused: a password over 72 bytes, or a cost outside 4–31.
    #[error("cannot hash the password: {0} (bcrypt takes passwords shorter than 72 bytes and a cost from 4 to 31)")]
    Bcrypt(#[from] bcrypt::BcryptError),
}

/// An `AUTH_ACCOUNTS` password entry for `password`: `{bcrypt}$2b$<cost>$…`.
pub fn hash_password(password: &str, cost: u32) -> Result<String, HashError> {
    if password.is_empty() {
        return Err(HashError::Empty);
    }
    Ok(format!("{BCRYPT_PREFIX}{}", bcrypt::non_truncating_hash(password, cost)?))
}

/// How a stored password is checked.
#[derive(Clone)]
enum Stored {
    Plain(Secret),
    Bcrypt(Secret),
}

/// The configured logins.
#[derive(Clone, Default)]
pub struct Accounts {
    entries: Vec<(String, Stored)>,
    /// The bcrypt hash of highest cost among the entries: checked against when there is no
    /// bcrypt check to make, so that every attempt costs the same time.
    decoy: Option<Secret>,
}

impl Accounts {
    /// Reads `AUTH_ACCOUNTS` entries; a `{bcrypt}` entry must hold a well-formed bcrypt hash.
    pub fn new(accounts: &[AuthAccount]) -> Result<Self, ConfigError> {
        let mut entries = Vec::with_capacity(accounts.len());
        for account in accounts {
            let stored = match account.password.expose().strip_prefix(BCRYPT_PREFIX) {
                Some(hash) => {
                    if hash.parse::<bcrypt::HashParts>().is_err() {
                        return Err(ConfigError::Conflict(format!(
                            "AUTH_ACCOUNTS: the {BCRYPT_PREFIX} password of user {:?} is not a bcrypt hash; \
                             generate one with `lightrag hash-password <password>`",
                            account.username
                        )));
                    }
                    Stored::Bcrypt(Secret::new(hash))
                }
                None => Stored::Plain(account.password.clone()),
            };
            entries.push((account.username.clone(), stored));
        }
        let decoy = entries
            .iter()
            .filter_map(|(_, stored)| match stored {
                Stored::Bcrypt(hash) => Some(hash),
                Stored::Plain(_) => None,
            })
            .max_by_key(|hash| hash.expose().parse::<bcrypt::HashParts>().map(|p| p.get_cost()).unwrap_or(0))
            .cloned();
        Ok(Self { entries, decoy })
    }

    /// Spends the time of the costliest bcrypt check of the accounts (nothing when none is
    /// hashed: plain checks all take the same short time).
    fn spend_a_check(&self, password: &str) {
        if let Some(hash) = &self.decoy {
            let _ = bcrypt::verify(password, hash.expose());
        }
    }

    /// Whether any login is configured (login mode) or none (guest mode).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `username` is one of the accounts.
    pub fn contains(&self, username: &str) -> bool {
        self.entries.iter().any(|(name, _)| name == username)
    }

    /// Whether `username` exists and `password` is its password. A bcrypt check costs tens to
    /// hundreds of milliseconds: call it off the async threads.
    pub fn verify(&self, username: &str, password: &str) -> bool {
        // Every attempt costs one bcrypt check of the same cost, so response times tell neither
        // which user names exist nor how their passwords are stored.
        let Some((_, stored)) = self.entries.iter().find(|(name, _)| name == username) else {
            self.spend_a_check(password);
            return false;
        };
        match stored {
            Stored::Plain(expected) => {
                self.spend_a_check(password);
                super::same_secret(password.as_bytes(), expected.expose().as_bytes())
            }
            Stored::Bcrypt(hash) => bcrypt::verify(password, hash.expose()).unwrap_or_else(|e| {
                tracing::warn!(user = username, error = %e, "bcrypt check failed");
                false
            }),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn account(user: &str, password: &str) -> AuthAccount {
        AuthAccount { username: user.into(), password: Secret::new(password) }
    }

    #[test]
    fn plaintext_and_bcrypt_passwords_check() {
        let hash = bcrypt::hash("pw2", 4).unwrap();
        let accounts =
            Accounts::new(&[account("alice", "pw1"), account("bob", &format!("{BCRYPT_PREFIX}{hash}"))]).unwrap();
        assert!(!accounts.is_empty());
        assert!(accounts.verify("alice", "pw1"));
        assert!(!accounts.verify("alice", "pw2"));
        assert!(!accounts.verify("alice", "pw"));
        assert!(accounts.verify("bob", "pw2"));
        assert!(!accounts.verify("bob", "pw1"));
        assert!(!accounts.verify("bob", &format!("{BCRYPT_PREFIX}{hash}")));
        assert!(!accounts.verify("carol", "pw1"));
        assert!(Accounts::new(&[]).unwrap().is_empty());
    }

    #[test]
    fn hashed_entries_verify() {
        let entry = hash_password("secret pass", 4).unwrap();
        assert!(entry.starts_with("{bcrypt}$2b$04$"), "{entry}");
        let accounts = Accounts::new(&[account("alice", &entry)]).unwrap();
        assert!(accounts.verify("alice", "secret pass"));
        assert!(!accounts.verify("alice", "secret"));
        assert!(matches!(hash_password("", 4), Err(HashError::Empty)));
        assert!(hash_password(&"x".repeat(73), 4).is_err());
        assert!(hash_password("x", 3).is_err());
    }

    #[test]
    fn a_malformed_bcrypt_entry_is_a_config_error() {
        let err = Accounts::new(&[account("bob", "{bcrypt}nothash")]).err().unwrap();
        let text = err.to_string();
        assert!(text.contains("AUTH_ACCOUNTS") && text.contains("bob") && text.contains("hash-password"), "{text}");
    }
}
