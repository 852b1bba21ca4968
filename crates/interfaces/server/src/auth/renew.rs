//! Token auto-renewal (`TOKEN_AUTO_RENEW`, `TOKEN_RENEW_THRESHOLD`): a request with a valid
//! token that has less than `threshold × lifetime` left gets a fresh token in the
//! `X-New-Token` response header — except on the status routes the web UI polls, and at most
//! once a minute per user.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::jwt::{Claims, Tokens};

/// The response header that carries a renewed token.
pub const NEW_TOKEN_HEADER: &str = "X-New-Token";

/// Polled routes that never renew (they would renew on every poll).
pub const NO_RENEW_PATHS: [&str; 3] = ["/health", "/documents/paginated", "/documents/pipeline_status"];

/// The shortest time between two renewals for one user.
pub const RENEW_INTERVAL: Duration = Duration::from_secs(60);

/// Renewal policy plus when each user was last renewed.
pub struct Renewer {
    enabled: bool,
    threshold: f64,
    last: Mutex<HashMap<String, Instant>>,
}

impl Renewer {
    /// A policy: renew when `enabled` and less than `threshold` (a fraction) of the lifetime is left.
    pub fn new(enabled: bool, threshold: f64) -> Self {
        Self { enabled, threshold, last: Mutex::new(HashMap::new()) }
    }

    /// Whether `claims` (valid at `now`, Unix seconds) are due for renewal on `path`. Ignores the
    /// per-user interval: see [`Renewer::claim_slot`].
    pub fn is_due(&self, tokens: &Tokens, claims: &Claims, path: &str, now: u64) -> bool {
        if !self.enabled || NO_RENEW_PATHS.contains(&path) {
            return false;
        }
        let total = tokens.lifetime_secs(claims.role()) as f64;
        let remaining = claims.exp.saturating_sub(now) as f64;
        remaining < self.threshold * total
    }

    /// Records a renewal for `user` at `at` unless one happened less than [`RENEW_INTERVAL`] ago.
    /// Returns whether the caller may renew.
    pub fn claim_slot(&self, user: &str, at: Instant) -> bool {
        let mut last = self.last.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if last.get(user).is_some_and(|prev| at.saturating_duration_since(*prev) < RENEW_INTERVAL) {
            return false;
        }
        // Forget users whose interval is over, so the map stays small.
        last.retain(|_, prev| at.saturating_duration_since(*prev) < RENEW_INTERVAL);
        last.insert(user.to_string(), at);
        true
    }

    /// A fresh token for the holder of `claims` if one is due on `path` and the user's interval
    /// allows it.
    pub fn renew(&self, tokens: &Tokens, claims: &Claims, path: &str, now: u64, at: Instant) -> Option<String> {
        if !self.is_due(tokens, claims, path, now) || !self.claim_slot(&claims.sub, at) {
            return None;
        }
        match tokens.renewal(claims, now) {
            Ok(token) => token,
            Err(e) => {
                tracing::warn!(error = %e, "could not renew a token");
                None
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::auth::jwt::Role;

    fn tokens() -> Tokens {
        Tokens::new(b"k", &crate::auth::test_settings(&[("TOKEN_EXPIRE_HOURS", "10")])).unwrap()
    }

    fn claims(exp: u64) -> Claims {
        Claims { sub: "alice".into(), exp, role: "user".into(), metadata: serde_json::json!({}), auth_time: None }
    }

    #[test]
    fn due_below_the_threshold_and_not_on_polled_routes() {
        let t = tokens();
        let r = Renewer::new(true, 0.5);
        // lifetime 36000 s; 17999 s left < 18000 → due; 18000 left → not due
        assert!(r.is_due(&t, &claims(17_999), "/query", 0));
        assert!(!r.is_due(&t, &claims(18_000), "/query", 0));
        for path in NO_RENEW_PATHS {
            assert!(!r.is_due(&t, &claims(10), path, 0), "{path}");
        }
        assert!(!Renewer::new(false, 0.5).is_due(&t, &claims(10), "/query", 0));
        assert!(!Renewer::new(true, 0.0).is_due(&t, &claims(10), "/query", 0));
    }

    #[test]
    fn one_renewal_per_user_per_minute() {
        let r = Renewer::new(true, 0.5);
        let t0 = Instant::now();
        assert!(r.claim_slot("alice", t0));
        assert!(!r.claim_slot("alice", t0 + Duration::from_secs(59)));
        assert!(r.claim_slot("bob", t0 + Duration::from_secs(59)));
        assert!(r.claim_slot("alice", t0 + Duration::from_secs(60)));
    }

    #[test]
    fn renewed_tokens_keep_the_user_and_role() {
        let t = tokens();
        let r = Renewer::new(true, 0.5);
        let mut old = claims(100);
        old.role = "guest".into();
        let fresh = r.renew(&t, &old, "/query", 50, Instant::now()).unwrap();
        let new = t.validate(&fresh, 50).unwrap();
        assert_eq!(new.sub, "alice");
        assert_eq!(new.role(), Role::Guest);
        assert_eq!(new.exp, 50 + 24 * 3600);
        assert!(r.renew(&t, &old, "/query", 50, Instant::now()).is_none(), "second renewal within a minute");
    }

    /// Regression: renewing through `X-New-Token` kept a (stolen) token alive forever.
    #[test]
    fn renewals_end_at_the_maximum_lifetime_after_login() {
        let settings = crate::auth::test_settings(&[("TOKEN_EXPIRE_HOURS", "10"), ("TOKEN_MAX_LIFETIME_HOURS", "25")]);
        let t = Tokens::new(b"k", &settings).unwrap();
        let hour = 3600;
        let login = t.validate(&t.issue("alice", Role::User, 0).unwrap(), 0).unwrap();
        assert_eq!(login.auth_time, Some(0));
        // renewed at hour 8: ten more hours, the login time kept
        let second = t.validate(&t.renewal(&login, 8 * hour).unwrap().unwrap(), 8 * hour).unwrap();
        assert_eq!((second.exp, second.auth_time), (18 * hour, Some(0)));
        // at hour 17 the renewal stops at hour 25, and after that there is none
        let third = t.validate(&t.renewal(&second, 17 * hour).unwrap().unwrap(), 17 * hour).unwrap();
        assert_eq!(third.exp, 25 * hour);
        assert!(t.renewal(&third, 24 * hour).unwrap().is_none(), "the chain ends 25 h after login");
        assert_eq!(t.validate(&t.sign(&third).unwrap(), 25 * hour + 1), Err(crate::auth::TokenError::Expired));
        // a token without a login time counts from its own issue (exp - lifetime)
        let old = claims(10 * hour);
        let renewed = t.validate(&t.renewal(&old, 9 * hour).unwrap().unwrap(), 9 * hour).unwrap();
        assert_eq!((renewed.exp, renewed.auth_time), (19 * hour, Some(0)));
    }
}
