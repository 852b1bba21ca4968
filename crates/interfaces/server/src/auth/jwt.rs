//! Login tokens: HMAC-signed JWTs shaped like LightRAG's,
//! `{"sub", "exp", "role": "user"|"guest", "metadata": {"auth_mode"}}`, signed with
//! `TOKEN_SECRET` and `JWT_ALGORITHM`.

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use lightrag_config::{ConfigError, JwtAlgorithm, ServerSettings};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The role of a token holder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Logged in with an `AUTH_ACCOUNTS` login.
    User,
    /// Guest access, handed out when no accounts are configured.
    Guest,
}

impl Role {
    /// `"user"` or `"guest"`, as in the token.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Guest => "guest",
        }
    }

    /// `"enabled"` for users, `"disabled"` for guests (the token's `metadata.auth_mode`).
    pub fn auth_mode(self) -> &'static str {
        match self {
            Role::User => "enabled",
            Role::Guest => "disabled",
        }
    }
}

/// The payload of a token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claims {
    /// The user name (`guest` for guest tokens).
    pub sub: String,
    /// Expiry, seconds since the Unix epoch.
    pub exp: u64,
    /// `"user"` or `"guest"`; LightRAG reads a missing role as `"user"`.
    #[serde(default = "user_role")]
    pub role: String,
    /// `{"auth_mode": "enabled"|"disabled"}`.
    #[serde(default)]
    pub metadata: Value,
    /// When the login that started this chain of renewals happened (Unix seconds; ours, absent
    /// from LightRAG's tokens). Renewals keep it; none reaches past `TOKEN_MAX_LIFETIME_HOURS`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_time: Option<u64>,
}

fn user_role() -> String {
    Role::User.as_str().to_string()
}

/// The `metadata.principal` of tokens of managed accounts (the access store's, not `AUTH_ACCOUNTS`).
pub const MANAGED_ACCOUNT: &str = "account";

impl Claims {
    /// Whether the token is a managed account's (checked against the access store on every
    /// request) rather than an `AUTH_ACCOUNTS` login's.
    pub fn is_managed(&self) -> bool {
        self.role() == Role::User && self.metadata.get("principal").and_then(|v| v.as_str()) == Some(MANAGED_ACCOUNT)
    }

    /// The role; anything but `"guest"` counts as a user, like LightRAG.
    pub fn role(&self) -> Role {
        if self.role == Role::Guest.as_str() { Role::Guest } else { Role::User }
    }
}

/// Why a token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Well-formed and correctly signed, but past its `exp`.
    #[error("Token expired")]
    Expired,
    /// Malformed, wrongly signed, another algorithm, or missing claims.
    #[error("Invalid token")]
    Invalid,
}

/// Issues and checks tokens with one secret and algorithm.
pub struct Tokens {
    algorithm: Algorithm,
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    user_lifetime_secs: u64,
    guest_lifetime_secs: u64,
    max_lifetime_secs: u64,
}

fn hours_to_secs(hours: f64) -> u64 {
    // Settings guarantee a positive number; the cast saturates on absurd values.
    (hours * 3600.0).round().max(1.0) as u64
}

impl Tokens {
    /// Keys from `secret`, lifetimes and algorithm from `server`.
    pub fn new(secret: &[u8], server: &ServerSettings) -> Result<Self, ConfigError> {
        super::hmac_jwt::install();
        let algorithm = match server.jwt_algorithm {
            JwtAlgorithm::Hs256 => Algorithm::HS256,
            JwtAlgorithm::Hs384 => Algorithm::HS384,
            JwtAlgorithm::Hs512 => Algorithm::HS512,
        };
        let bad_secret = |e: jsonwebtoken::errors::Error| {
            ConfigError::Conflict(format!("TOKEN_SECRET cannot be used as an HMAC key ({e}); set another value"))
        };
        let encoding = EncodingKey::from_secret(secret).map_err(bad_secret)?;
        let decoding = DecodingKey::from_secret(secret).map_err(bad_secret)?;
        let mut validation = Validation::new(algorithm);
        // `exp` is required but checked by `validate` against the caller's clock.
        validation.validate_exp = false;
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp", "sub"]);
        Ok(Self {
            algorithm,
            encoding,
            decoding,
            validation,
            user_lifetime_secs: hours_to_secs(server.token_expire_hours),
            guest_lifetime_secs: hours_to_secs(server.guest_token_expire_hours),
            max_lifetime_secs: hours_to_secs(server.token_max_lifetime_hours),
        })
    }

    /// The full lifetime of a fresh token of `role` (`TOKEN_EXPIRE_HOURS` or
    /// `GUEST_TOKEN_EXPIRE_HOURS`), in seconds.
    pub fn lifetime_secs(&self, role: Role) -> u64 {
        match role {
            Role::User => self.user_lifetime_secs,
            Role::Guest => self.guest_lifetime_secs,
        }
    }

    /// A token for the managed account `sub` (its `metadata.principal` says so), valid from `now`
    /// for `TOKEN_EXPIRE_HOURS`.
    pub fn issue_managed(&self, sub: &str, now: u64) -> Result<String, jsonwebtoken::errors::Error> {
        let claims = Claims {
            sub: sub.to_string(),
            exp: now.saturating_add(self.lifetime_secs(Role::User)),
            role: Role::User.as_str().to_string(),
            metadata: json!({ "auth_mode": Role::User.auth_mode(), "principal": MANAGED_ACCOUNT }),
            auth_time: Some(now),
        };
        self.sign(&claims)
    }

    /// A token for `sub` with `role`, valid from `now` (Unix seconds) for the role's lifetime.
    pub fn issue(&self, sub: &str, role: Role, now: u64) -> Result<String, jsonwebtoken::errors::Error> {
        let claims = Claims {
            sub: sub.to_string(),
            exp: now.saturating_add(self.lifetime_secs(role)),
            role: role.as_str().to_string(),
            metadata: json!({ "auth_mode": role.auth_mode() }),
            auth_time: Some(now),
        };
        self.sign(&claims)
    }

    /// A renewal of `claims` at `now`: the role's lifetime from now, but never past the
    /// login's time plus `TOKEN_MAX_LIFETIME_HOURS` (a token without its login time counts from
    /// its own issue). `Ok(None)` when that would not extend the token: a stolen token cannot be
    /// kept alive forever by renewing it.
    pub fn renewal(&self, claims: &Claims, now: u64) -> Result<Option<String>, jsonwebtoken::errors::Error> {
        let lifetime = self.lifetime_secs(claims.role());
        let auth_time = claims.auth_time.unwrap_or_else(|| claims.exp.saturating_sub(lifetime));
        let exp = now.saturating_add(lifetime).min(auth_time.saturating_add(self.max_lifetime_secs));
        if exp <= claims.exp {
            return Ok(None);
        }
        self.sign(&Claims { exp, auth_time: Some(auth_time), ..claims.clone() }).map(Some)
    }

    /// Signs arbitrary claims (tests craft expired or odd tokens with it).
    pub fn sign(&self, claims: &Claims) -> Result<String, jsonwebtoken::errors::Error> {
        jsonwebtoken::encode(&Header::new(self.algorithm), claims, &self.encoding)
    }

    /// The claims of `token` if its signature and algorithm are right and it has not expired at
    /// `now` (Unix seconds).
    pub fn validate(&self, token: &str, now: u64) -> Result<Claims, TokenError> {
        let data =
            jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation).map_err(|_| TokenError::Invalid)?;
        if data.claims.exp < now {
            return Err(TokenError::Expired);
        }
        Ok(data.claims)
    }
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::auth::test_settings as server;

    #[test]
    fn issued_tokens_validate_and_carry_lightrag_claims() {
        let tokens = Tokens::new(b"k", &server(&[("TOKEN_EXPIRE_HOURS", "2")])).unwrap();
        let token = tokens.issue("alice", Role::User, 1_000).unwrap();
        let claims = tokens.validate(&token, 1_000).unwrap();
        assert_eq!(claims.sub, "alice");
        assert_eq!(claims.exp, 1_000 + 7_200);
        assert_eq!(claims.role(), Role::User);
        assert_eq!(claims.metadata, json!({"auth_mode": "enabled"}));
        let guest = tokens.validate(&tokens.issue("guest", Role::Guest, 0).unwrap(), 0).unwrap();
        assert_eq!(guest.role, "guest");
        assert_eq!(guest.exp, 24 * 3600);
        assert_eq!(guest.metadata, json!({"auth_mode": "disabled"}));
    }

    #[test]
    fn expiry_signature_and_algorithm_are_checked() {
        let tokens = Tokens::new(b"k", &server(&[])).unwrap();
        let token = tokens.issue("alice", Role::User, 1_000).unwrap();
        let exp = 1_000 + 48 * 3600;
        assert!(tokens.validate(&token, exp).is_ok());
        assert_eq!(tokens.validate(&token, exp + 1), Err(TokenError::Expired));
        let other_key = Tokens::new(b"other", &server(&[])).unwrap();
        assert_eq!(other_key.validate(&token, 1_000), Err(TokenError::Invalid));
        let other_alg = Tokens::new(b"k", &server(&[("JWT_ALGORITHM", "HS512")])).unwrap();
        assert_eq!(other_alg.validate(&token, 1_000), Err(TokenError::Invalid));
        assert_eq!(tokens.validate("not.a.token", 1_000), Err(TokenError::Invalid));
        assert_eq!(tokens.validate("", 1_000), Err(TokenError::Invalid));
    }

    #[test]
    fn a_missing_role_reads_as_user() {
        let claims: Claims = serde_json::from_value(json!({"sub": "a", "exp": 5})).unwrap();
        assert_eq!(claims.role(), Role::User);
    }
}
