//! Authentication through the router: API key, password login and JWTs, guest tokens, the
//! whitelist, token renewal and the start-up checks (LightRAG's §1.2).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::BTreeMap;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use common::{Harness, Reply};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use lightrag_config::{RawConfig, Settings};
use lightrag_server::AppState;
use serde_json::{Value, json};

const SECRET: &str = "test-secret-of-some-length";
const PROTECTED: &str = "/documents/status_counts";

fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}

fn craft(claims: Value, secret: &str, alg: Algorithm) -> String {
    // the server's HMAC-only JWT cryptography (jsonwebtoken is built without a provider)
    lightrag_server::auth::hmac_jwt::install();
    jsonwebtoken::encode(&Header::new(alg), &claims, &EncodingKey::from_secret(secret.as_bytes()).unwrap()).unwrap()
}

/// A token as the server would issue it, expiring `exp_in` seconds from now.
fn token(sub: &str, role: &str, exp_in: i64) -> String {
    let exp = now().saturating_add_signed(exp_in);
    let mode = if role == "guest" { "disabled" } else { "enabled" };
    craft(json!({"sub": sub, "exp": exp, "role": role, "metadata": {"auth_mode": mode}}), SECRET, Algorithm::HS256)
}

fn decode(token: &str) -> Value {
    lightrag_server::auth::hmac_jwt::install();
    let mut validation = Validation::new(Algorithm::HS256);
    validation.leeway = 0;
    jsonwebtoken::decode::<Value>(token, &DecodingKey::from_secret(SECRET.as_bytes()).unwrap(), &validation)
        .unwrap()
        .claims
}

fn form_encode(pairs: &[(&str, &str)]) -> String {
    let enc = |s: &str| {
        s.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
                _ => format!("%{b:02X}"),
            })
            .collect::<String>()
    };
    pairs.iter().map(|(k, v)| format!("{}={}", enc(k), enc(v))).collect::<Vec<_>>().join("&")
}

/// `POST /login` with the form `pairs` (also used by the access tests).
pub(crate) async fn login(h: &Harness, pairs: &[(&str, &str)]) -> Reply {
    let request = Request::builder()
        .method(Method::POST)
        .uri("/login")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Body::from(form_encode(pairs)))
        .unwrap();
    h.send(request).await
}

async fn get_with(h: &Harness, uri: &str, headers: &[(&str, &str)]) -> Reply {
    h.call(Method::GET, uri, headers, None).await
}

async fn bearer(h: &Harness, uri: &str, token: &str) -> Reply {
    get_with(h, uri, &[("Authorization", &format!("Bearer {token}"))]).await
}

fn detail(reply: &Reply) -> String {
    reply.json()["detail"].as_str().unwrap_or_default().to_string()
}

fn assert_refused(reply: &Reply, status: StatusCode, message: &str) {
    assert_eq!(reply.status, status, "{}", reply.text());
    assert_eq!(detail(reply), message);
    if status == StatusCode::UNAUTHORIZED {
        assert_eq!(reply.headers.get("www-authenticate").unwrap(), "Bearer");
    }
}

fn new_token(reply: &Reply) -> Option<String> {
    reply.headers.get("x-new-token").map(|v| v.to_str().unwrap().to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_configured_is_open_and_hands_out_guest_tokens() {
    let h = Harness::new(&[("WEBUI_TITLE", "My RAG")]).await;
    assert_eq!(h.get(PROTECTED).await.status, StatusCode::OK);

    let reply = h.get("/auth-status").await;
    assert_eq!(reply.status, StatusCode::OK);
    let v = reply.json();
    assert_eq!(v["auth_configured"], false);
    assert_eq!(v["token_type"], "bearer");
    assert_eq!(v["auth_mode"], "disabled");
    assert_eq!(v["message"], "Authentication is disabled. Using guest access.");
    assert_eq!(v["core_version"], lightrag_server::API_VERSION);
    assert_eq!(v["api_version"], lightrag_server::API_VERSION);
    assert_eq!(v["webui_title"], "My RAG");
    assert_eq!(v["webui_description"], "Simple and Fast Graph Based RAG System");
    let guest = v["access_token"].as_str().unwrap().to_string();
    let claims = jsonwebtoken::dangerous::insecure_decode::<Value>(&guest).unwrap().claims;
    assert_eq!(claims["sub"], "guest");
    assert_eq!(claims["role"], "guest");
    assert_eq!(claims["metadata"], json!({"auth_mode": "disabled"}));
    let exp = claims["exp"].as_u64().unwrap();
    assert!(exp.abs_diff(now() + 24 * 3600) <= 5, "guest lifetime is GUEST_TOKEN_EXPIRE_HOURS: {claims}");
    // the guest token validates (signed with the per-process secret)
    assert_eq!(bearer(&h, PROTECTED, &guest).await.status, StatusCode::OK);
    // a bad token is refused even where nothing is configured
    assert_refused(&bearer(&h, PROTECTED, "not-a-jwt").await, StatusCode::UNAUTHORIZED, "Invalid token");

    // guest mode login: any credentials give a guest token
    let reply = login(&h, &[("username", "whoever"), ("password", "whatever")]).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let v = reply.json();
    assert_eq!(v["auth_mode"], "disabled");
    assert_eq!(v["token_type"], "bearer");
    assert_eq!(v["message"], "Authentication is disabled. Using guest access.");
    assert_eq!(v["webui_title"], "My RAG");
    let token = v["access_token"].as_str().unwrap();
    assert_eq!(jsonwebtoken::dangerous::insecure_decode::<Value>(token).unwrap().claims["role"], "guest");
    assert_eq!(bearer(&h, PROTECTED, token).await.status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_key_only() {
    let h = Harness::new(&[("LIGHTRAG_API_KEY", "s3cret")]).await;
    assert_refused(&h.get(PROTECTED).await, StatusCode::FORBIDDEN, "API Key required");
    assert_refused(&get_with(&h, PROTECTED, &[("X-API-Key", "nope")]).await, StatusCode::FORBIDDEN, "Invalid API Key");
    assert_eq!(get_with(&h, PROTECTED, &[("X-API-Key", "s3cret")]).await.status, StatusCode::OK);
    // whitelisted and login routes are open
    assert_eq!(h.get("/health").await.status, StatusCode::OK);
    let ollama = h.get("/api/version").await.status;
    assert!(ollama != StatusCode::FORBIDDEN && ollama != StatusCode::UNAUTHORIZED, "{ollama}");
    let status = h.get("/auth-status").await;
    assert_eq!(status.status, StatusCode::OK);
    assert_eq!(status.json()["auth_configured"], false);
    // the guest token anyone can fetch does not replace the key
    let guest = status.json()["access_token"].as_str().unwrap().to_string();
    assert_refused(&bearer(&h, PROTECTED, &guest).await, StatusCode::FORBIDDEN, "API Key required");
    let auth = format!("Bearer {guest}");
    let both = get_with(&h, PROTECTED, &[("Authorization", &auth), ("X-API-Key", "s3cret")]).await;
    assert_eq!(both.status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_plaintext_and_bcrypt_logins() {
    let hash = bcrypt::hash("bobs-pass", 4).unwrap();
    let accounts = format!("alice:alice-pass,bob:{{bcrypt}}{hash}");
    let h = Harness::new(&[("AUTH_ACCOUNTS", &accounts), ("TOKEN_SECRET", SECRET), ("LIGHTRAG_API_KEY", "k")]).await;

    assert_refused(&h.get(PROTECTED).await, StatusCode::UNAUTHORIZED, "No credentials provided. Please login.");
    assert_eq!(h.get("/health").await.status, StatusCode::OK);
    let v = h.get("/auth-status").await.json();
    assert_eq!(
        v,
        json!({
            "auth_configured": true,
            "auth_mode": "enabled",
            "core_version": lightrag_server::API_VERSION,
            "api_version": lightrag_server::API_VERSION,
            "webui_title": "LightRAG",
            "webui_description": "Simple and Fast Graph Based RAG System",
        })
    );

    for (user, pass) in [("alice", "bobs-pass"), ("bob", "alice-pass"), ("carol", "alice-pass"), ("alice", "")] {
        let reply = login(&h, &[("username", user), ("password", pass)]).await;
        assert_refused(&reply, StatusCode::UNAUTHORIZED, "Incorrect credentials");
    }
    for (user, pass) in [("alice", "alice-pass"), ("bob", "bobs-pass")] {
        let reply =
            login(&h, &[("grant_type", "password"), ("username", user), ("password", pass), ("scope", "")]).await;
        assert_eq!(reply.status, StatusCode::OK, "{user}: {}", reply.text());
        let v = reply.json();
        assert_eq!(v["token_type"], "bearer");
        assert_eq!(v["auth_mode"], "enabled");
        assert!(v.get("message").is_none(), "{v}");
        assert_eq!(v["core_version"], lightrag_server::API_VERSION);
        assert_eq!(v["webui_title"], "LightRAG");
        let token = v["access_token"].as_str().unwrap();
        let claims = decode(token);
        assert_eq!(claims["sub"], user);
        assert_eq!(claims["role"], "user");
        assert_eq!(claims["metadata"], json!({"auth_mode": "enabled"}));
        assert!(claims["exp"].as_u64().unwrap().abs_diff(now() + 48 * 3600) <= 5, "{claims}");
        let reply = bearer(&h, PROTECTED, token).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
        assert!(new_token(&reply).is_none(), "a fresh token is not renewed");
    }

    // the API key still works alongside accounts; a wrong one reads as "no credentials"
    assert_eq!(get_with(&h, PROTECTED, &[("X-API-Key", "k")]).await.status, StatusCode::OK);
    let reply = get_with(&h, PROTECTED, &[("X-API-Key", "wrong")]).await;
    assert_refused(&reply, StatusCode::UNAUTHORIZED, "No credentials provided. Please login.");

    // missing form fields → 422 like FastAPI
    let reply = login(&h, &[("username", "alice")]).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(reply.json()["detail"][0]["loc"], json!(["body", "password"]));
    let reply = h.post("/login", json!({"username": "alice", "password": "alice-pass"})).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(reply.json()["detail"].as_array().unwrap().len(), 2);

    // the web UI posts multipart form data
    let body = "--B\r\nContent-Disposition: form-data; name=\"username\"\r\n\r\nalice\r\n\
                --B\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nalice-pass\r\n--B--\r\n";
    let request = Request::builder()
        .method(Method::POST)
        .uri("/login")
        .header("content-type", "multipart/form-data; boundary=B")
        .body(Body::from(body))
        .unwrap();
    let reply = h.send(request).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(decode(reply.json()["access_token"].as_str().unwrap())["sub"], "alice");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_expired_and_wrong_kind_tokens_are_401() {
    let h = Harness::new(&[("AUTH_ACCOUNTS", "alice:pw"), ("TOKEN_SECRET", SECRET)]).await;
    assert_eq!(bearer(&h, PROTECTED, &token("alice", "user", 3600)).await.status, StatusCode::OK);
    assert_refused(
        &bearer(&h, PROTECTED, &token("alice", "user", -5)).await,
        StatusCode::UNAUTHORIZED,
        "Token expired",
    );

    let good = token("alice", "user", 3600);
    let (head, signature) = good.rsplit_once('.').unwrap();
    let flipped = if signature.starts_with('A') { "B" } else { "A" };
    let tampered = format!("{head}.{flipped}{}", &signature[1..]);
    assert_refused(&bearer(&h, PROTECTED, &tampered).await, StatusCode::UNAUTHORIZED, "Invalid token");
    // another payload under the original signature
    let parts: Vec<&str> = good.split('.').collect();
    let admin = craft(json!({"sub": "admin", "exp": now() + 3600, "role": "user"}), SECRET, Algorithm::HS256);
    let forged_payload = format!("{}.{}.{}", parts[0], admin.split('.').nth(1).unwrap(), parts[2]);
    assert_refused(&bearer(&h, PROTECTED, &forged_payload).await, StatusCode::UNAUTHORIZED, "Invalid token");
    let other_secret = craft(json!({"sub": "alice", "exp": now() + 3600, "role": "user"}), "other", Algorithm::HS256);
    assert_refused(&bearer(&h, PROTECTED, &other_secret).await, StatusCode::UNAUTHORIZED, "Invalid token");
    let other_alg = craft(json!({"sub": "alice", "exp": now() + 3600, "role": "user"}), SECRET, Algorithm::HS512);
    assert_refused(&bearer(&h, PROTECTED, &other_alg).await, StatusCode::UNAUTHORIZED, "Invalid token");

    // guest tokens are not accepted once accounts exist
    let reply = bearer(&h, PROTECTED, &token("guest", "guest", 3600)).await;
    assert_refused(&reply, StatusCode::UNAUTHORIZED, "Invalid token. Please login again.");
    // nor is a guest token from /login of another server mode
    let guest_elsewhere = Harness::new(&[("TOKEN_SECRET", SECRET)]).await;
    let guest = login(&guest_elsewhere, &[("username", "x"), ("password", "y")]).await.json()["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(bearer(&guest_elsewhere, PROTECTED, &guest).await.status, StatusCode::OK);
    let reply = bearer(&h, PROTECTED, &guest).await;
    assert_refused(&reply, StatusCode::UNAUTHORIZED, "Invalid token. Please login again.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_tokens_are_refused_without_accounts() {
    let h = Harness::new(&[("TOKEN_SECRET", SECRET)]).await;
    let reply = bearer(&h, PROTECTED, &token("alice", "user", 3600)).await;
    assert_refused(&reply, StatusCode::UNAUTHORIZED, "Invalid token. Please login again.");
    assert_eq!(bearer(&h, PROTECTED, &token("guest", "guest", 3600)).await.status, StatusCode::OK);
    // the configured secret signs guest tokens
    let guest = h.get("/auth-status").await.json()["access_token"].as_str().unwrap().to_string();
    assert_eq!(decode(&guest)["role"], "guest");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_near_expiry_are_renewed() {
    // /health is not whitelisted here, so the no-renewal list itself is what keeps it quiet
    let h = Harness::new(&[
        ("AUTH_ACCOUNTS", "alice:pw,bob:pw,carol:pw"),
        ("TOKEN_SECRET", SECRET),
        ("WHITELIST_PATHS", "/api/*"),
    ])
    .await;
    // 48 h lifetime, threshold 0.5: a token with 1 h left is due
    let old = token("alice", "user", 3600);
    let reply = bearer(&h, PROTECTED, &old).await;
    assert_eq!(reply.status, StatusCode::OK);
    let fresh = new_token(&reply).expect("X-New-Token on a token near expiry");
    let claims = decode(&fresh);
    assert_eq!(claims["sub"], "alice");
    assert_eq!(claims["role"], "user");
    assert_eq!(claims["metadata"], json!({"auth_mode": "enabled"}));
    assert!(claims["exp"].as_u64().unwrap().abs_diff(now() + 48 * 3600) <= 5, "{claims}");
    assert_eq!(bearer(&h, PROTECTED, &fresh).await.status, StatusCode::OK);
    // not twice within 60 s for one user…
    assert!(new_token(&bearer(&h, PROTECTED, &old).await).is_none(), "second renewal within a minute");
    // …but other users have their own minute
    assert!(new_token(&bearer(&h, PROTECTED, &token("bob", "user", 3600)).await).is_some());
    // a token with more than half its life left is not renewed
    assert!(new_token(&bearer(&h, PROTECTED, &token("carol", "user", 30 * 3600)).await).is_none());

    // polled routes never renew (and do not use up the user's minute)
    let carol = token("carol", "user", 3600);
    for uri in ["/health", "/documents/pipeline_status"] {
        let reply = bearer(&h, uri, &carol).await;
        assert_eq!(reply.status, StatusCode::OK, "{uri}: {}", reply.text());
        assert!(new_token(&reply).is_none(), "{uri}");
    }
    let request = Request::builder()
        .method(Method::POST)
        .uri("/documents/paginated")
        .header("authorization", format!("Bearer {carol}"))
        .header("content-type", "application/json")
        .body(Body::from("{}"))
        .unwrap();
    let reply = h.send(request).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert!(new_token(&reply).is_none(), "/documents/paginated");
    assert!(new_token(&bearer(&h, PROTECTED, &carol).await).is_some());

    // TOKEN_AUTO_RENEW=false turns it off
    let off =
        Harness::new(&[("AUTH_ACCOUNTS", "alice:pw"), ("TOKEN_SECRET", SECRET), ("TOKEN_AUTO_RENEW", "false")]).await;
    let reply = bearer(&off, PROTECTED, &token("alice", "user", 60)).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(new_token(&reply).is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jwt_algorithm_is_used_for_tokens() {
    let h = Harness::new(&[("AUTH_ACCOUNTS", "alice:pw"), ("TOKEN_SECRET", SECRET), ("JWT_ALGORITHM", "HS384")]).await;
    let reply = login(&h, &[("username", "alice"), ("password", "pw")]).await;
    let issued = reply.json()["access_token"].as_str().unwrap().to_string();
    assert_eq!(jsonwebtoken::decode_header(&issued).unwrap().alg, Algorithm::HS384);
    assert_eq!(bearer(&h, PROTECTED, &issued).await.status, StatusCode::OK);
    assert_refused(
        &bearer(&h, PROTECTED, &token("alice", "user", 3600)).await,
        StatusCode::UNAUTHORIZED,
        "Invalid token",
    );
}

fn state_for(extra: &[(&str, &str)]) -> Result<AppState, String> {
    let dir = tempfile::tempdir().unwrap();
    let mut env: Vec<(String, String)> = vec![
        ("LLM_BINDING".into(), "none".into()),
        ("EMBEDDING_BINDING".into(), "openai".into()),
        ("EMBEDDING_BINDING_HOST".into(), "http://127.0.0.1:9".into()),
        ("EMBEDDING_MODEL".into(), "unused".into()),
        ("EMBEDDING_DIM".into(), "64".into()),
        ("WORKING_DIR".into(), dir.path().join("rag").to_string_lossy().into_owned()),
    ];
    env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let raw = RawConfig::from_sources(env, None, None, BTreeMap::new()).unwrap();
    let settings = Settings::from_raw(&raw).unwrap();
    AppState::from_settings(settings).map_err(|e| e.to_string())
}

#[test]
fn bad_auth_settings_stop_the_server() {
    let missing = state_for(&[("AUTH_ACCOUNTS", "alice:pw")]).err().unwrap();
    assert!(missing.contains("TOKEN_SECRET is not set"), "{missing}");
    let default = state_for(&[("AUTH_ACCOUNTS", "alice:pw"), ("TOKEN_SECRET", "lightrag-jwt-default-secret-key!")])
        .err()
        .unwrap();
    assert!(default.contains("TOKEN_SECRET") && default.contains("default"), "{default}");
    let bad_hash = state_for(&[("AUTH_ACCOUNTS", "alice:{bcrypt}xyz"), ("TOKEN_SECRET", SECRET)]).err().unwrap();
    assert!(bad_hash.contains("alice") && bad_hash.contains("bcrypt"), "{bad_hash}");
    assert!(state_for(&[("AUTH_ACCOUNTS", "alice:pw"), ("TOKEN_SECRET", SECRET)]).is_ok());
    assert!(state_for(&[]).is_ok(), "guest mode needs no TOKEN_SECRET");
}

/// Regression: no login throttling (3,236 wrong passwords/s were checked). After five failures
/// a user name waits, doubling with each further failure, and is told so with 429 and
/// `Retry-After`; other users are not affected; the wait ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_wrong_passwords_are_throttled_per_user() {
    let h = Harness::new(&[("AUTH_ACCOUNTS", "alice:alice-pass,bob:bob-pass"), ("TOKEN_SECRET", SECRET)]).await;
    for _ in 0..5 {
        let reply = login(&h, &[("username", "alice"), ("password", "guess")]).await;
        assert_refused(&reply, StatusCode::UNAUTHORIZED, "Incorrect credentials");
    }
    let reply = login(&h, &[("username", "alice"), ("password", "guess")]).await;
    assert_eq!(reply.status, StatusCode::TOO_MANY_REQUESTS, "{}", reply.text());
    assert_eq!(reply.headers.get("retry-after").map(|v| v.as_bytes()), Some(b"2".as_slice()));
    // the right password waits too (a guesser must not learn it is right); other users do not
    let reply = login(&h, &[("username", "alice"), ("password", "alice-pass")]).await;
    assert_eq!(reply.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(login(&h, &[("username", "bob"), ("password", "bob-pass")]).await.status, StatusCode::OK);
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    assert_eq!(login(&h, &[("username", "alice"), ("password", "alice-pass")]).await.status, StatusCode::OK);
}

/// Regression: an account removed from `AUTH_ACCOUNTS` kept access with the token it had.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_account_loses_access_with_its_old_token() {
    let before = Harness::new(&[("AUTH_ACCOUNTS", "alice:alice-pass,bob:bob-pass"), ("TOKEN_SECRET", SECRET)]).await;
    let reply = login(&before, &[("username", "bob"), ("password", "bob-pass")]).await;
    let token = reply.json()["access_token"].as_str().unwrap().to_string();
    assert_eq!(bearer(&before, PROTECTED, &token).await.status, StatusCode::OK);
    let after = Harness::new(&[("AUTH_ACCOUNTS", "alice:alice-pass"), ("TOKEN_SECRET", SECRET)]).await;
    let reply = bearer(&after, PROTECTED, &token).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{}", reply.text());
    assert!(reply.text().contains("no longer exists"), "{}", reply.text());
}
