//! Who may do what (issue 30) through the router: the matrix of principals × route classes ×
//! workspaces over REST and MCP from one table, a reader refused on every writing route and tool,
//! `/workspaces` filtered, query results kept to the key's workspace, revocation and removal at
//! the next request, the audit log (and no secret or document text in it), `ACCESS_CONTROL=roles`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use axum::http::{Method, StatusCode};
use lightrag_server::access::route_table::{Class, ROUTES};
use serde_json::{Value, json};

use crate::common::{Harness, TEXT_A, TEXT_B};
use crate::mcp::{call, post};

const MASTER: &str = "master-key-of-the-server";

/// Allowed, refused as unknown, refused as too low.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    Ok,
    NotFound,
    Forbidden,
}
use Want::{Forbidden as F, NotFound as N, Ok as Y};

async fn create_key(h: &Harness, name: &str, workspace: &str, role: &str) -> String {
    let body = json!({"name": name, "workspace": workspace, "role": role});
    let reply = h.call(Method::POST, "/admin/keys", &[("X-API-Key", MASTER)], Some(body)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let key = reply.json()["key"].as_str().unwrap().to_string();
    assert!(key.starts_with("lrk_"), "{key}");
    key
}

/// The status of one REST request of `class` (read, write, admin, owner) in `workspace`.
async fn rest(h: &Harness, key: Option<&str>, class: &str, workspace: &str, n: usize) -> StatusCode {
    let mut headers = vec![("LIGHTRAG-WORKSPACE", workspace)];
    if let Some(key) = key {
        headers.push(("X-API-Key", key));
    }
    let text = format!("Matrix document number {n} mentions the Harbour Lighthouse of Kelso.");
    let (method, uri, body) = match class {
        "read" => (Method::GET, "/documents/status_counts", None),
        "write" => (Method::POST, "/documents/text", Some(json!({"text": text, "file_source": format!("m{n}.txt")}))),
        "admin" => (Method::POST, "/documents/clear_cache", Some(json!({}))),
        _ => (Method::GET, "/admin/keys", None),
    };
    let reply = h.call(method, uri, &headers, body).await;
    reply.status
}

/// The status of a read of `workspace` with the header `name: value`.
async fn read_with(h: &Harness, name: &str, value: &str, workspace: &str) -> StatusCode {
    let headers = [(name, value), ("LIGHTRAG-WORKSPACE", workspace)];
    h.call(Method::GET, "/documents/status_counts", &headers, None).await.status
}

/// One principal of the matrix: its name, its key, for workspaces a, b, c the outcome of a read, a
/// write and an administration, then the outcome of an owner route.
type Row<'a> = (&'a str, Option<&'a str>, [[Want; 3]; 3], Want);

fn expect_status(want: Want) -> StatusCode {
    match want {
        Y => StatusCode::OK,
        N => StatusCode::NOT_FOUND,
        F => StatusCode::FORBIDDEN,
    }
}

/// Opens an MCP session with `key`; its headers.
async fn mcp_session(h: &Harness, key: &str) -> Vec<(&'static str, String)> {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
    let (status, session, _) = post(h, &[("X-API-Key", key)], init).await;
    assert_eq!(status, StatusCode::OK);
    let headers = vec![
        ("X-API-Key", key.to_string()),
        ("Mcp-Session-Id", session.expect("a session")),
        ("MCP-Protocol-Version", "2025-06-18".to_string()),
    ];
    let borrowed: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (status, _, _) = post(h, &borrowed, json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    headers
}

/// The outcome of one MCP tool call in `workspace`: allowed, or the refusal its message names.
async fn mcp_tool(h: &Harness, session: &[(&'static str, String)], tool: &str, args: Value, workspace: &str) -> Want {
    let mut headers: Vec<(&str, &str)> = session.iter().map(|(k, v)| (*k, v.as_str())).collect();
    headers.push(("LIGHTRAG-WORKSPACE", workspace));
    let (status, _, answer) = post(h, &headers, call(7, tool, args)).await;
    assert_eq!(status, StatusCode::OK);
    let answer = answer.expect("an answer");
    let result = &answer["result"];
    if result["isError"] != json!(true) {
        return Y;
    }
    let message = result["content"][0]["text"].as_str().unwrap_or_default().to_string();
    if message.contains("not found") {
        N
    } else if message.contains("needs the role") {
        F
    } else {
        panic!("{tool} in {workspace}: unexpected failure {message}")
    }
}

/// `Bearer <token>` of a login of `user` (asserting that it succeeds).
async fn bearer_of(h: &Harness, user: &str, password: &str) -> String {
    let reply = crate::auth::login(h, &[("username", user), ("password", password)]).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    format!("Bearer {}", reply.json()["access_token"].as_str().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_principal_gets_exactly_its_roles_on_every_route_class_and_workspace() {
    let h = Harness::new(&[("LIGHTRAG_API_KEY", MASTER)]).await;
    let master = [("X-API-Key", MASTER)];
    // workspaces a and b exist; c does not
    for ws in ["a", "b"] {
        let body = json!({"text": format!("Seed text of workspace {ws}."), "file_source": format!("seed_{ws}.txt")});
        let headers = [("X-API-Key", MASTER), ("LIGHTRAG-WORKSPACE", ws)];
        assert_eq!(h.call(Method::POST, "/documents/text", &headers, Some(body)).await.status, StatusCode::OK);
    }
    let reader_a = create_key(&h, "reader_a", "a", "reader").await;
    let editor_a = create_key(&h, "editor_a", "a", "editor").await;
    let admin_a = create_key(&h, "admin_a", "a", "admin").await;
    let reader_b = create_key(&h, "reader_b", "b", "reader").await;
    let owner = create_key(&h, "the_owner", "c", "reader").await;
    let reply = h.call(Method::POST, "/admin/owners", &master, Some(json!({"name": "the_owner", "owner": true}))).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());

    // principal → for workspace a, b, c: [read, write, admin]; then the owner route
    let table: [Row; 6] = [
        ("reader of a", Some(&reader_a), [[Y, F, F], [N, N, N], [N, N, N]], F),
        ("editor of a", Some(&editor_a), [[Y, Y, F], [N, N, N], [N, N, N]], F),
        ("admin of a", Some(&admin_a), [[Y, Y, Y], [N, N, N], [N, N, N]], F),
        ("reader of b", Some(&reader_b), [[N, N, N], [Y, F, F], [N, N, N]], F),
        ("owner", Some(&owner), [[Y, Y, Y], [Y, Y, Y], [Y, Y, Y]], Y),
        ("master key", Some(MASTER), [[Y, Y, Y], [Y, Y, Y], [Y, Y, Y]], Y),
    ];
    let mut n = 0;
    // what the audit log must hold afterwards: (principal, action, workspace, outcome) per write
    let mut writes: Vec<(String, &str, &str, u64)> = Vec::new();
    for (who, key, by_workspace, owner_route) in &table {
        let label = match *key {
            Some(MASTER) => "master".to_string(),
            _ => format!(
                "key:{}",
                who.replace("reader of ", "reader_")
                    .replace("editor of ", "editor_")
                    .replace("admin of ", "admin_")
                    .replace("owner", "the_owner")
            ),
        };
        for (ws, row) in ["a", "b", "c"].iter().zip(by_workspace) {
            for (class, want) in ["read", "write", "admin"].iter().zip(row) {
                n += 1;
                let got = rest(&h, *key, class, ws, n).await;
                assert_eq!(got, expect_status(*want), "REST {class} in {ws} by {who}");
                let action = match *class {
                    "write" => "documents.text",
                    "admin" => "documents.clear_cache",
                    _ => continue,
                };
                writes.push((label.clone(), action, ws, u64::from(got.as_u16())));
            }
        }
        let got = rest(&h, *key, "owner", "a", 0).await;
        assert_eq!(got, expect_status(*owner_route), "REST owner route by {who}");

        // MCP: reads and writes (the tools have no admin or owner action)
        let session = mcp_session(&h, key.unwrap()).await;
        for (ws, row) in ["a", "b", "c"].iter().zip(by_workspace) {
            let read = mcp_tool(&h, &session, "list_documents", json!({}), ws).await;
            assert_eq!(read, row[0], "MCP read in {ws} by {who}");
            n += 1;
            let args = json!({"text": format!("MCP matrix document {n} about the Quarry of Lund."), "file_name": format!("mcp{n}.txt")});
            let write = mcp_tool(&h, &session, "insert_text", args, ws).await;
            assert_eq!(write, row[1], "MCP write in {ws} by {who}");
            // a write refused as unknown never reaches the tool (the workspace is not opened)
            if write != N {
                writes.push((label.clone(), "mcp.insert", ws, if write == Y { 200 } else { 403 }));
            }
        }
    }
    // every write of the run, allowed or refused, is in the audit log with its principal and outcome
    let audit = h.call(Method::GET, "/admin/audit?limit=10000", &master, None).await;
    let entries = audit.json()["entries"].as_array().unwrap().clone();
    for (principal, action, ws, outcome) in &writes {
        let found = entries.iter().filter(|e| {
            e["principal"] == principal.as_str()
                && e["action"] == *action
                && e["workspace"] == *ws
                && e["outcome"] == *outcome
        });
        assert!(found.count() >= 1, "no audit entry for {principal} {action} in {ws} → {outcome}");
    }
    // no credentials: refused everywhere, as LightRAG refuses them (403 with LIGHTRAG_API_KEY set)
    for ws in ["a", "b", "c"] {
        for class in ["read", "write", "admin", "owner"] {
            assert_eq!(
                rest(&h, None, class, ws, 0).await,
                StatusCode::FORBIDDEN,
                "{class} in {ws} without credentials"
            );
        }
    }
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
    assert_eq!(post(&h, &[], init).await.0, StatusCode::FORBIDDEN, "MCP without credentials");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_cannot_write_or_delete_through_any_route_or_tool() {
    let h = Harness::new(&[("LIGHTRAG_API_KEY", MASTER)]).await;
    let reader = create_key(&h, "reader", "a", "reader").await;
    let mut checked = 0;
    for rule in ROUTES.iter().filter(|r| matches!(r.class, Class::Do(a) if a.is_audited())) {
        let method = Method::from_bytes(rule.method.as_bytes()).unwrap();
        let path = rule.path.replace("{track_id}", "t");
        let headers = [("X-API-Key", reader.as_str()), ("LIGHTRAG-WORKSPACE", "a")];
        let reply = h.call(method, &path, &headers, Some(json!({}))).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{} {}: {}", rule.method, rule.path, reply.text());
        checked += 1;
    }
    assert!(checked > 25, "every writing, administering and owner route was tried ({checked})");
    let session = mcp_session(&h, &reader).await;
    let tools = [
        ("insert_text", json!({"text": "Refused text."})),
        ("insert_file", json!({"content": "Refused file.", "file_name": "r.txt"})),
        ("delete_documents", json!({"doc_ids": ["doc-1"]})),
    ];
    for (tool, args) in tools {
        assert_eq!(mcp_tool(&h, &session, tool, args, "a").await, F, "{tool}");
    }
    // nothing was written
    let counts = h
        .call(Method::GET, "/documents/status_counts", &[("X-API-Key", MASTER), ("LIGHTRAG-WORKSPACE", "a")], None)
        .await;
    assert_eq!(counts.json()["status_counts"]["all"].as_u64().unwrap_or(0), 0, "{}", counts.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_sees_only_its_workspaces_and_their_documents() {
    let h = Harness::new(&[("LIGHTRAG_API_KEY", MASTER)]).await;
    h.insert(TEXT_A, "alice.txt", &[("X-API-Key", MASTER), ("LIGHTRAG-WORKSPACE", "a")]).await;
    h.insert(TEXT_B, "dmitri.txt", &[("X-API-Key", MASTER), ("LIGHTRAG-WORKSPACE", "b")]).await;
    let key_b = create_key(&h, "team_b", "b", "editor").await;
    let listed = h.call(Method::GET, "/workspaces", &[("X-API-Key", &key_b)], None).await;
    assert_eq!(listed.json()["workspaces"], json!(["b"]), "{}", listed.text());
    let all = h.call(Method::GET, "/workspaces", &[("X-API-Key", MASTER)], None).await;
    let names = all.json()["workspaces"].clone();
    assert!(
        names.as_array().unwrap().contains(&json!("a")) && names.as_array().unwrap().contains(&json!("b")),
        "{names}"
    );
    for mode in ["naive", "mix", "local", "global"] {
        let body = json!({"query": "Who works at Acme Corporation with Alice Smith?", "mode": mode});
        let headers = [("X-API-Key", key_b.as_str()), ("LIGHTRAG-WORKSPACE", "b")];
        let reply = h.call(Method::POST, "/query/data", &headers, Some(body.clone())).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
        // the retrieved data (not the echoed question's keywords) holds only workspace b
        let data = reply.json()["data"].to_string();
        assert!(data.contains("dmitri.txt") || mode != "naive", "b's own document is found ({mode}): {data}");
        assert!(!data.contains("Alice") && !data.contains("alice.txt"), "workspace a leaked into b ({mode}): {data}");
        let headers = [("X-API-Key", key_b.as_str()), ("LIGHTRAG-WORKSPACE", "a")];
        assert_eq!(h.call(Method::POST, "/query/data", &headers, Some(body)).await.status, StatusCode::NOT_FOUND);
    }
    let graph =
        h.call(Method::GET, "/graph/label/list", &[("X-API-Key", &key_b), ("LIGHTRAG-WORKSPACE", "b")], None).await;
    assert!(!graph.text().to_lowercase().contains("alice"), "{}", graph.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_key_and_a_removed_account_fail_at_their_next_request() {
    let h = Harness::new(&[("LIGHTRAG_API_KEY", MASTER)]).await;
    let master = [("X-API-Key", MASTER)];
    let key = create_key(&h, "short_lived", "a", "reader").await;
    assert_eq!(read_with(&h, "X-API-Key", &key, "a").await, StatusCode::OK);
    // the bearer form works too
    let bearer = format!("Bearer {key}");
    let reply = h
        .call(Method::GET, "/documents/status_counts", &[("Authorization", &bearer), ("LIGHTRAG-WORKSPACE", "a")], None)
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let revoked = h.call(Method::DELETE, "/admin/keys?name=short_lived", &master, None).await;
    assert_eq!(revoked.status, StatusCode::OK, "{}", revoked.text());
    assert_eq!(read_with(&h, "X-API-Key", &key, "a").await, StatusCode::UNAUTHORIZED);
    // a forged key with a known id is refused as well
    let forged = format!("{}x", &key[..key.len() - 1]);
    assert_eq!(read_with(&h, "X-API-Key", &forged, "a").await, StatusCode::UNAUTHORIZED);

    // a managed account: logs in, works, is removed, its token fails at once
    let added =
        h.call(Method::POST, "/admin/accounts", &master, Some(json!({"name": "bob", "password": "pw-of-bob"}))).await;
    assert_eq!(added.status, StatusCode::OK, "{}", added.text());
    let granted = h
        .call(Method::POST, "/admin/grants", &master, Some(json!({"name": "bob", "workspace": "a", "role": "reader"})))
        .await;
    assert_eq!(granted.status, StatusCode::OK, "{}", granted.text());
    let token = bearer_of(&h, "bob", "pw-of-bob").await;
    assert_eq!(read_with(&h, "Authorization", &token, "a").await, StatusCode::OK);
    assert_eq!(read_with(&h, "Authorization", &token, "b").await, StatusCode::NOT_FOUND);
    let removed = h.call(Method::DELETE, "/admin/accounts?name=bob", &master, None).await;
    assert_eq!(removed.status, StatusCode::OK, "{}", removed.text());
    assert_eq!(read_with(&h, "Authorization", &token, "a").await, StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_log_records_every_write_with_its_principal_and_no_secret() {
    let h = Harness::new(&[("LIGHTRAG_API_KEY", MASTER)]).await;
    let master = [("X-API-Key", MASTER)];
    let editor = create_key(&h, "writer", "a", "editor").await;
    let reader = create_key(&h, "looker", "a", "reader").await;
    let secret_text = "The Glasswing Protocol was signed by Ada Quill in Tromso.";
    let body = json!({"text": secret_text, "file_source": "glasswing.txt"});
    let headers = [("X-API-Key", editor.as_str()), ("LIGHTRAG-WORKSPACE", "a")];
    assert_eq!(h.call(Method::POST, "/documents/text", &headers, Some(body.clone())).await.status, StatusCode::OK);
    let headers = [("X-API-Key", reader.as_str()), ("LIGHTRAG-WORKSPACE", "a")];
    assert_eq!(h.call(Method::POST, "/documents/text", &headers, Some(body)).await.status, StatusCode::FORBIDDEN);
    let added = h
        .call(Method::POST, "/admin/accounts", &master, Some(json!({"name": "carol", "password": "carols-password"})))
        .await;
    assert_eq!(added.status, StatusCode::OK);
    let failed = crate::auth::login(&h, &[("username", "carol"), ("password", "wrong-password-guess")]).await;
    assert_eq!(failed.status, StatusCode::UNAUTHORIZED);
    // a read is not audited
    let headers = [("X-API-Key", editor.as_str()), ("LIGHTRAG-WORKSPACE", "a")];
    assert_eq!(h.call(Method::GET, "/documents/status_counts", &headers, None).await.status, StatusCode::OK);

    let audit = h.call(Method::GET, "/admin/audit?limit=1000", &master, None).await;
    assert_eq!(audit.status, StatusCode::OK, "{}", audit.text());
    let entries = audit.json()["entries"].as_array().unwrap().clone();
    let has = |principal: &str, action: &str, outcome: u64, ws: &str| {
        entries.iter().any(|e| {
            e["principal"] == principal && e["action"] == action && e["outcome"] == outcome && e["workspace"] == ws
        })
    };
    assert!(has("key:writer", "documents.text", 200, "a"), "{entries:?}");
    assert!(has("key:looker", "documents.text", 403, "a"), "{entries:?}");
    assert!(has("master", "admin.keys.create", 200, ""), "{entries:?}");
    assert!(has("master", "admin.accounts.add", 200, ""), "{entries:?}");
    assert!(has("user:carol", "login", 401, ""), "{entries:?}");
    assert!(!entries.iter().any(|e| e["action"] == "documents.status_counts"), "reads are not audited");
    // /admin/audit is for owners only
    let headers = [("X-API-Key", editor.as_str())];
    assert_eq!(h.call(Method::GET, "/admin/audit", &headers, None).await.status, StatusCode::FORBIDDEN);

    // the whole audit table (and the access store file) holds no key, password or document text
    let store = h.state.access_store().await.unwrap();
    let all = store.audit(&lightrag_ports::AuditFilter { limit: 100_000, ..Default::default() }).await.unwrap();
    let dump = serde_json::to_string(&all).unwrap();
    let file = std::fs::read(h.dir.path().join("rag").join("access.sqlite")).unwrap();
    let wal = std::fs::read(h.dir.path().join("rag").join("access.sqlite-wal")).unwrap_or_default();
    let raw = String::from_utf8_lossy(&[file, wal].concat()).into_owned();
    for secret in [editor.as_str(), reader.as_str(), MASTER, "carols-password", "wrong-password-guess", "Glasswing"] {
        assert!(!dump.contains(secret), "the audit log holds {secret}");
        assert!(!raw.contains(secret), "the access store file holds {secret}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_access_control_roles_logins_get_only_their_grants_and_guests_are_refused() {
    let h = Harness::new(&[
        ("ACCESS_CONTROL", "roles"),
        ("AUTH_ACCOUNTS", "alice:pw"),
        ("TOKEN_SECRET", "a-secret-for-tokens"),
    ])
    .await;
    // no credentials: refused, and no guest token is handed out
    let reply = h.get("/documents/status_counts").await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{}", reply.text());
    assert_eq!(h.get("/auth-status").await.json()["auth_configured"], json!(true));
    let token = bearer_of(&h, "alice", "pw").await;
    assert_eq!(
        read_with(&h, "Authorization", &token, "a").await,
        StatusCode::NOT_FOUND,
        "a login without grants reaches nothing"
    );
    let store = h.state.access_store().await.unwrap();
    lightrag_application::access::admin::grant(
        store.as_ref(),
        "alice",
        "a",
        lightrag_ports::AccessRole::Reader,
        &["alice".into()],
        0,
    )
    .await
    .unwrap();
    assert_eq!(
        read_with(&h, "Authorization", &token, "a").await,
        StatusCode::OK,
        "the grant counts at the next request"
    );
    assert_eq!(read_with(&h, "Authorization", &token, "b").await, StatusCode::NOT_FOUND);
}

/// Regression: with `ACCESS_CONTROL=off` an `AUTH_ACCOUNTS` login counted as an owner, so it
/// could mint keys and owners over HTTP that would outlive a move to `roles`. It keeps every
/// workspace (LightRAG's full rights) and `/metrics`, but the `/admin` routes are the owners'.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_access_control_off_logins_reach_every_workspace_but_cannot_manage_the_server() {
    let h = Harness::new(&[("AUTH_ACCOUNTS", "alice:pw"), ("TOKEN_SECRET", "a-secret-for-tokens")]).await;
    let token = bearer_of(&h, "alice", "pw").await;
    for ws in ["a", "b"] {
        assert_eq!(read_with(&h, "Authorization", &token, ws).await, StatusCode::OK, "{ws}");
    }
    let auth = [("Authorization", token.as_str())];
    assert_eq!(h.call(Method::GET, "/metrics", &auth, None).await.status, StatusCode::OK);
    let mint = h
        .call(Method::POST, "/admin/keys", &auth, Some(json!({"name": "mine", "workspace": "a", "role": "admin"})))
        .await;
    assert_eq!(mint.status, StatusCode::FORBIDDEN, "{}", mint.text());
    let owner = h.call(Method::POST, "/admin/owners", &auth, Some(json!({"name": "alice", "owner": true}))).await;
    assert_eq!(owner.status, StatusCode::FORBIDDEN, "{}", owner.text());
    assert_eq!(h.call(Method::GET, "/admin/audit", &auth, None).await.status, StatusCode::FORBIDDEN);
    // an unknown route is still the router's 404, as in LightRAG
    assert_eq!(h.call(Method::GET, "/no/such/route", &auth, None).await.status, StatusCode::NOT_FOUND);
    // made owner with the CLI's use case, she may
    let store = h.state.access_store().await.unwrap();
    lightrag_application::access::admin::set_owner(store.as_ref(), "alice", true, &["alice".into()], 0).await.unwrap();
    let mint = h
        .call(Method::POST, "/admin/keys", &auth, Some(json!({"name": "mine", "workspace": "a", "role": "admin"})))
        .await;
    assert_eq!(mint.status, StatusCode::OK, "{}", mint.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgresql_keys_live_in_the_databases_access_tables_and_nothing_is_written_beside_it() {
    use sqlx::Connection as _;
    // a database of its own: the shared one may hold another build's schema
    let admin_url = crate::common::pg::database_url();
    let mut admin = sqlx::PgConnection::connect(&admin_url).await.unwrap();
    let own = crate::store_unavailable::OwnDatabase::create(&mut admin, &admin_url).await;
    let url = crate::store_unavailable::with_database(&admin_url, &own.name);
    let workspace = crate::common::pg::unique("access");
    let h = Harness::new(&[
        ("LIGHTRAG_API_KEY", MASTER),
        ("DATABASE_URL", url.as_str()),
        ("POSTGRES_WORKSPACE", workspace.as_str()),
    ])
    .await;
    let name = crate::common::pg::unique("pgkey");
    let key = create_key(&h, &name, &workspace, "editor").await;
    let headers = [("X-API-Key", key.as_str()), ("LIGHTRAG-WORKSPACE", workspace.as_str())];
    let reply = h.call(Method::GET, "/documents/status_counts", &headers, None).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(read_with(&h, "X-API-Key", &key, "elsewhere").await, StatusCode::NOT_FOUND);
    // the key is a row of lightrag_access_principals, not a file of the working directory
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let stored: Option<(bool,)> = sqlx::query_as("SELECT revoked FROM lightrag_access_principals WHERE name = $1")
        .bind(&name)
        .fetch_optional(&pool)
        .await
        .unwrap();
    assert_eq!(stored, Some((false,)), "the key is stored in the database");
    assert!(!h.dir.path().join("rag").join("access.sqlite").exists(), "no SQLite access store beside PostgreSQL");
    let revoked = h.call(Method::DELETE, &format!("/admin/keys?name={name}"), &[("X-API-Key", MASTER)], None).await;
    assert_eq!(revoked.status, StatusCode::OK);
    assert_eq!(read_with(&h, "X-API-Key", &key, &workspace).await, StatusCode::UNAUTHORIZED);
}
