//! `lightrag admin …` against a running `lightrag serve` (issue 30): keys and accounts made and
//! revoked by the CLI take effect on the server at its next request; the audit log read back by
//! the CLI holds the writes and no secret.

use std::io::Write;
use std::process::Stdio;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::Kb;
use crate::common::server::Server;

const MASTER: &str = "the-master-key-of-this-server";

async fn insert(http: &reqwest::Client, server: &Server, key: &str, workspace: &str, n: u32) -> StatusCode {
    let body =
        json!({"text": format!("Document {n} tells of the Copper Mill of Falun."), "file_source": format!("d{n}.txt")});
    let request = http
        .post(server.url("/documents/text"))
        .header("X-API-Key", key)
        .header("LIGHTRAG-WORKSPACE", workspace)
        .json(&body);
    request.send().await.unwrap().status()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_and_accounts_changed_by_the_cli_take_effect_on_a_running_server_at_once() {
    let mut kb = Kb::new();
    kb.set("LIGHTRAG_API_KEY", MASTER);
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::new();
    let server = Server::start(&kb, &[], "http", &http).await;

    let out = kb.ok(&["admin", "key", "create", "ci", "--workspace", "team_a", "--role", "editor"]);
    let key = out.split_whitespace().last().unwrap().to_string();
    assert!(key.starts_with("lrk_"), "the key is the last word: {out}");
    assert_eq!(insert(&http, &server, &key, "team_a", 1).await, StatusCode::OK);
    assert_eq!(insert(&http, &server, &key, "team_b", 2).await, StatusCode::NOT_FOUND);
    let listed = kb.ok(&["admin", "key", "list"]);
    assert!(listed.contains("ci") && listed.contains("team_a=editor"), "{listed}");
    assert!(!listed.contains(&key), "a listing never shows the key: {listed}");

    kb.ok(&["admin", "key", "revoke", "ci"]);
    assert_eq!(insert(&http, &server, &key, "team_a", 3).await, StatusCode::UNAUTHORIZED, "revoked at once");

    // a managed account: password on stdin, a grant, a login, then removal
    let mut add =
        kb.cmd().args(["admin", "account", "add", "bob", "--password-stdin"]).stdin(Stdio::piped()).spawn().unwrap();
    add.stdin.take().unwrap().write_all(b"bobs-long-password\n").unwrap();
    assert!(add.wait().unwrap().success());
    kb.ok(&["admin", "grant", "bob", "--workspace", "team_b", "--role", "reader"]);
    let login = http
        .post(server.url("/login"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("username=bob&password=bobs-long-password")
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), StatusCode::OK);
    let token = login.json::<Value>().await.unwrap()["access_token"].as_str().unwrap().to_string();
    let read = |ws: &'static str| {
        http.get(server.url("/documents/status_counts")).bearer_auth(&token).header("LIGHTRAG-WORKSPACE", ws).send()
    };
    assert_eq!(read("team_b").await.unwrap().status(), StatusCode::OK);
    assert_eq!(read("team_a").await.unwrap().status(), StatusCode::NOT_FOUND);
    kb.ok(&["admin", "account", "remove", "bob"]);
    assert_eq!(read("team_b").await.unwrap().status(), StatusCode::UNAUTHORIZED, "removed at once");

    // the audit log, read by the CLI: the writes with their principal, no secret
    let audit = kb.ok(&["admin", "audit", "--json", "--limit", "1000"]);
    let entries: Vec<Value> = audit.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let has = |principal: &str, action: &str, outcome: u64| {
        entries.iter().any(|e| e["principal"] == principal && e["action"] == action && e["outcome"] == outcome)
    };
    assert!(has("key:ci", "documents.text", 200), "{audit}");
    assert!(has("key:ci", "documents.text", 404), "{audit}");
    assert!(has("unauthenticated", "documents.text", 401), "{audit}");
    assert!(has("cli", "admin.keys.create", 200), "{audit}");
    assert!(has("cli", "admin.keys.revoke", 200), "{audit}");
    for secret in [key.as_str(), MASTER, "bobs-long-password", "Copper Mill"] {
        assert!(!audit.contains(secret), "the audit log holds {secret}");
    }
    let only_a = kb.ok(&["admin", "audit", "--workspace", "team_a", "--json"]);
    assert!(only_a.lines().all(|l| l.contains("\"workspace\":\"team_a\"")), "{only_a}");
    server.stop().await;
}

#[test]
fn admin_commands_explain_themselves_and_refuse_bad_input() {
    let kb = Kb::new();
    for args in [
        vec!["admin", "--help"],
        vec!["admin", "key", "create", "--help"],
        vec!["admin", "account", "add", "--help"],
        vec!["admin", "audit", "--help"],
    ] {
        kb.ok(&args);
    }
    let bad_role = kb.run(&["admin", "key", "create", "x", "--workspace", "a", "--role", "boss"]);
    assert!(!bad_role.status.success());
    assert!(String::from_utf8_lossy(&bad_role.stderr).contains("reader, editor or admin"));
    let missing = kb.run(&["admin", "grant", "ghost", "--workspace", "a", "--role", "reader"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("ghost"));
}
