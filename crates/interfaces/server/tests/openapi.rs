//! The OpenAPI document and Swagger UI; live responses against the schemas the document
//! declares. (The root redirect belongs to the web UI: `tests/webui.rs`.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use axum::http::{Method, StatusCode};
use common::{Harness, TEXT_A};
use serde_json::{Value, json};

/// The §1.3 routes this server documents (upload, scan, login and Ollama are added by their owners).
const DOCUMENTED: [(&str, &str, &str); 55] = [
    ("get", "/health", "system"),
    ("get", "/ui/customization", "system"),
    ("get", "/metrics", "system"),
    ("post", "/documents/text", "documents"),
    ("post", "/documents/texts", "documents"),
    ("post", "/documents/estimate", "documents"),
    ("get", "/documents", "documents"),
    ("delete", "/documents", "documents"),
    ("get", "/documents/pipeline_status", "documents"),
    ("delete", "/documents/delete_document", "documents"),
    ("post", "/documents/clear_cache", "documents"),
    ("get", "/documents/track_status/{track_id}", "documents"),
    ("post", "/documents/paginated", "documents"),
    ("get", "/documents/status_counts", "documents"),
    ("post", "/documents/reprocess_failed", "documents"),
    ("post", "/documents/cancel_pipeline", "documents"),
    ("post", "/query", "query"),
    ("post", "/query/stream", "query"),
    ("post", "/query/data", "query"),
    ("get", "/graph/label/list", "graph"),
    ("get", "/graph/label/popular", "graph"),
    ("get", "/graph/label/search", "graph"),
    ("get", "/graphs", "graph"),
    ("get", "/graph/entity/exists", "graph"),
    ("post", "/graph/entity/edit", "graph"),
    ("post", "/graph/relation/edit", "graph"),
    ("post", "/graph/entity/create", "graph"),
    ("post", "/graph/relation/create", "graph"),
    ("post", "/graph/entities/merge", "graph"),
    ("delete", "/graph/entity/delete", "graph"),
    ("delete", "/graph/relation/delete", "graph"),
    ("get", "/graph/entity/sources", "graph"),
    ("get", "/graph/relation/sources", "graph"),
    ("get", "/workspaces", "system"),
    ("post", "/documents/upload", "documents"),
    ("post", "/documents/scan", "documents"),
    ("get", "/auth-status", "system"),
    ("post", "/login", "system"),
    ("get", "/api/version", "ollama"),
    ("get", "/api/tags", "ollama"),
    ("get", "/api/ps", "ollama"),
    ("post", "/api/generate", "ollama"),
    ("post", "/api/chat", "ollama"),
    ("post", "/admin/import-lightrag", "admin"),
    ("get", "/admin/keys", "access"),
    ("post", "/admin/keys", "access"),
    ("delete", "/admin/keys", "access"),
    ("get", "/admin/accounts", "access"),
    ("post", "/admin/accounts", "access"),
    ("delete", "/admin/accounts", "access"),
    ("get", "/admin/grants", "access"),
    ("post", "/admin/grants", "access"),
    ("delete", "/admin/grants", "access"),
    ("post", "/admin/owners", "access"),
    ("get", "/admin/audit", "access"),
];

const METHODS: [&str; 5] = ["get", "post", "put", "delete", "patch"];

fn resolve<'a>(spec: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => {
            let name = r.strip_prefix("#/components/schemas/").unwrap();
            let target = &spec["components"]["schemas"][name];
            assert!(target.is_object(), "dangling reference {r}");
            target
        }
        None => schema,
    }
}

/// Checks `value` against `schema`: required properties present, no undeclared property, and the
/// same for nested objects and array items given by reference.
fn check(spec: &Value, schema: &Value, value: &Value, at: &str) {
    let schema = resolve(spec, schema);
    if value.is_null() {
        return;
    }
    if let Some(branches) = schema["oneOf"].as_array() {
        if let Some(branch) = branches.iter().find(|b| b.get("$ref").is_some()) {
            return check(spec, branch, value, at);
        }
        return;
    }
    if let Some(props) = schema["properties"].as_object() {
        let obj = value.as_object().unwrap_or_else(|| panic!("{at}: expected an object, got {value}"));
        for req in schema["required"].as_array().into_iter().flatten() {
            let req = req.as_str().unwrap();
            assert!(obj.contains_key(req), "{at}: required field '{req}' missing in {value}");
        }
        for (key, v) in obj {
            let prop = props.get(key).unwrap_or_else(|| panic!("{at}: field '{key}' is not in the schema"));
            check(spec, prop, v, &format!("{at}.{key}"));
        }
    } else if let (Some(items), Some(list)) = (schema.get("items"), value.as_array()) {
        for (i, v) in list.iter().enumerate() {
            check(spec, items, v, &format!("{at}[{i}]"));
        }
    } else if let (Some(extra), Some(obj)) = (schema.get("additionalProperties"), value.as_object()) {
        for (k, v) in obj {
            check(spec, extra, v, &format!("{at}.{k}"));
        }
    }
}

/// The 200 response schema of an operation.
fn ok_schema<'a>(spec: &'a Value, method: &str, path: &str) -> &'a Value {
    let content = &spec["paths"][path][method]["responses"]["200"]["content"];
    let media = content.as_object().and_then(|m| m.values().next()).unwrap_or_else(|| panic!("{method} {path}"));
    &media["schema"]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_lists_every_annotated_route() {
    let h = Harness::new(&[]).await;
    let reply = h.get("/openapi.json").await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.headers["content-type"].to_str().unwrap().starts_with("application/json"));
    let spec = reply.json();
    assert!(spec["openapi"].as_str().unwrap().starts_with("3."), "{}", spec["openapi"]);
    assert_eq!(spec["info"]["title"], "LightRAG Server API");
    assert_eq!(spec["info"]["version"], lightrag_server::API_VERSION);
    assert!(spec.get("servers").is_none(), "no servers without LIGHTRAG_API_PREFIX");

    let mut documented = Vec::new();
    for (path, item) in spec["paths"].as_object().unwrap() {
        for method in METHODS {
            if item.get(method).is_some() {
                documented.push((method.to_string(), path.clone()));
            }
        }
    }
    let mut expected: Vec<(String, String)> =
        DOCUMENTED.iter().map(|(m, p, _)| (m.to_string(), p.to_string())).collect();
    expected.sort();
    documented.sort();
    assert_eq!(documented, expected);

    for (method, path, tag) in DOCUMENTED {
        let op = &spec["paths"][path][method];
        assert_eq!(op["tags"], json!([tag]), "{method} {path}");
        assert!(op["summary"].as_str().is_some_and(|s| !s.is_empty()), "{method} {path} has no summary");
        for code in ["200", "403", "500"] {
            assert!(op["responses"][code]["description"].is_string(), "{method} {path}: no {code}");
        }
        // every documented route is served (not the router's fallback, not a 405)
        let uri = path.replace("{track_id}", "some_track");
        let has_body = matches!(method, "post" | "delete");
        let reply = h.call(method.to_uppercase().parse().unwrap(), &uri, &[], has_body.then(|| json!({"x": 1}))).await;
        assert_ne!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
        assert!(reply.status != StatusCode::NOT_FOUND || !reply.body.is_empty(), "{method} {path} is not routed");
    }

    // /query's body: QueryRequest with query (required, ≥ 3 chars) and mode (an enum)
    let body = &spec["paths"]["/query"]["post"]["requestBody"]["content"]["application/json"]["schema"];
    let request = resolve(&spec, body);
    assert!(request["required"].as_array().unwrap().contains(&json!("query")), "{request}");
    assert_eq!(request["properties"]["query"]["minLength"], 3);
    let mode = &request["properties"]["mode"];
    let mode_ref = mode["oneOf"].as_array().and_then(|b| b.iter().find(|s| s.get("$ref").is_some())).unwrap_or(mode);
    let modes = resolve(&spec, mode_ref)["enum"].as_array().unwrap().clone();
    for m in ["local", "global", "hybrid", "naive", "mix", "bypass", "ppr", "auto"] {
        assert!(modes.contains(&json!(m)), "{modes:?}");
    }
    // path parameter and query parameters
    let params = &spec["paths"]["/documents/track_status/{track_id}"]["get"]["parameters"];
    assert_eq!(params[0]["name"], "track_id");
    assert_eq!(params[0]["in"], "path");
    let params = spec["paths"]["/graphs"]["get"]["parameters"].as_array().unwrap();
    let label = params.iter().find(|p| p["name"] == "label").unwrap();
    assert_eq!((label["in"].as_str(), label["required"].as_bool()), (Some("query"), Some(true)));
    // the API key scheme
    assert_eq!(spec["components"]["securitySchemes"]["api_key"]["name"], "X-API-Key");
    assert_eq!(spec["components"]["securitySchemes"]["api_key"]["in"], "header");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_prefix_becomes_the_server_url() {
    let h = Harness::new(&[("LIGHTRAG_API_PREFIX", "/lightrag")]).await;
    let spec = h.get("/openapi.json").await.json();
    assert_eq!(spec["servers"][0]["url"], "/lightrag");
    let init = h.get("/docs/swagger-initializer.js").await.text();
    assert!(init.contains("\"/lightrag/openapi.json\""), "{init}");
    let html = h.get("/docs").await.text();
    assert!(html.contains("<base href=\"/lightrag/docs/\">"), "{html}");
    let reply = h.get("/").await;
    assert_eq!(reply.status, StatusCode::TEMPORARY_REDIRECT);
    assert_eq!(reply.headers["location"], "/lightrag/webui/", "/ goes to the web UI now");
}

fn attribute_values(html: &str, attr: &str) -> Vec<String> {
    let needle = format!("{attr}=\"");
    html.match_indices(&needle)
        .map(|(i, _)| {
            let rest = &html[i + needle.len()..];
            rest[..rest.find('"').unwrap()].to_string()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn swagger_ui_is_served_offline() {
    let h = Harness::new(&[]).await;
    for page in ["/docs", "/docs/"] {
        let reply = h.get(page).await;
        assert_eq!(reply.status, StatusCode::OK, "{page}");
        assert!(reply.headers["content-type"].to_str().unwrap().starts_with("text/html"), "{page}");
        let html = reply.text();
        assert!(html.contains("swagger-ui"), "{html}");
        assert!(html.contains("<base href=\"/docs/\">"), "{html}");
        assert!(!html.contains("http://") && !html.contains("https://"), "external URL in {html}");
        let assets: Vec<String> =
            attribute_values(&html, "src").into_iter().chain(attribute_values(&html, "href")).collect();
        assert!(assets.iter().any(|a| a.ends_with("swagger-ui-bundle.js")), "{assets:?}");
        assert!(assets.iter().any(|a| a.ends_with("swagger-ui.css")), "{assets:?}");
        for asset in assets.iter().filter(|a| !a.starts_with('/')) {
            let reply = h.get(&format!("/docs/{}", asset.trim_start_matches("./"))).await;
            assert_eq!(reply.status, StatusCode::OK, "{asset}");
            assert!(!reply.body.is_empty(), "{asset}");
        }
    }
    let js = h.get("/docs/swagger-ui-bundle.js").await;
    assert!(js.headers["content-type"].to_str().unwrap().contains("javascript"));
    assert!(js.body.len() > 100_000);
    let init = h.get("/docs/swagger-initializer.js").await.text();
    assert!(init.contains("\"/openapi.json\""), "{init}");
    assert!(init.contains("\"validatorUrl\": \"none\""), "{init}");
    assert_eq!(h.get("/docs/nothing-here.js").await.status, StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_responses_match_their_schemas() {
    let h = Harness::new(&[]).await;
    let spec = h.get("/openapi.json").await.json();
    let inserted = h.post("/documents/text", json!({"text": TEXT_A, "file_source": "alice.txt"})).await;
    check(&spec, ok_schema(&spec, "post", "/documents/text"), &inserted.json(), "insert");
    let track = inserted.json()["track_id"].as_str().unwrap().to_string();
    let status = h.wait_track(&track, &[]).await;
    check(&spec, ok_schema(&spec, "get", "/documents/track_status/{track_id}"), &status, "track_status");

    let cases: Vec<(&str, &str, Option<Value>)> = vec![
        ("get", "/health", None),
        ("get", "/documents", None),
        ("get", "/documents/pipeline_status", None),
        ("get", "/documents/status_counts", None),
        ("post", "/documents/paginated", Some(json!({}))),
        ("post", "/query", Some(json!({"query": "Who works at Acme Corporation?", "include_chunk_content": true}))),
        ("post", "/query/data", Some(json!({"query": "Who is Alice Smith?"}))),
        ("post", "/query", Some(json!({"query": "Who works at Acme Corporation?", "include_trace": true}))),
        ("post", "/query/data", Some(json!({"query": "Who is Alice Smith?", "include_trace": true}))),
        ("get", "/graph/label/list", None),
        ("get", "/graphs", None),
        ("get", "/graph/entity/exists", None),
        ("get", "/graph/entity/sources", None),
        ("get", "/graph/relation/sources", None),
        ("get", "/workspaces", None),
        (
            "post",
            "/graph/entity/create",
            Some(json!({"entity_name": "Zed", "entity_data": {"description": "A firm."}})),
        ),
        ("delete", "/graph/entity/delete", Some(json!({"entity_name": "Zed"}))),
        ("post", "/documents/cancel_pipeline", None),
        ("post", "/documents/reprocess_failed", None),
    ];
    for (method, path, body) in cases {
        let uri = match path {
            "/graphs" => "/graphs?label=Alice%20Smith".to_string(),
            "/graph/entity/exists" => "/graph/entity/exists?name=Alice%20Smith".to_string(),
            "/graph/entity/sources" => "/graph/entity/sources?name=Alice%20Smith".to_string(),
            "/graph/relation/sources" => {
                "/graph/relation/sources?source_entity=Alice%20Smith&target_entity=Acme%20Corporation".to_string()
            }
            p => p.to_string(),
        };
        let reply = h.call(method.to_uppercase().parse::<Method>().unwrap(), &uri, &[], body).await;
        assert_eq!(reply.status, StatusCode::OK, "{method} {path}: {}", reply.text());
        check(&spec, ok_schema(&spec, method, path), &reply.json(), path);
    }
    // error bodies
    let reply = h.post("/query", json!({"query": "ab"})).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    let schema = &spec["paths"]["/query"]["post"]["responses"]["422"]["content"]["application/json"]["schema"];
    check(&spec, schema, &reply.json(), "422");
    let reply = h.post("/query/data", json!({"query": "ab"})).await;
    let schema = &spec["paths"]["/query/data"]["post"]["responses"]["400"]["content"]["application/json"]["schema"];
    check(&spec, schema, &reply.json(), "query/data 400");
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

#[test]
#[should_panic(expected = "required field 'track_id' missing")]
fn schema_check_catches_a_missing_field() {
    let spec = serde_json::to_value(lightrag_server::openapi::document("")).unwrap();
    check(&spec, &schema_ref("InsertResponse"), &json!({"status": "success", "message": "m"}), "insert");
}

#[test]
#[should_panic(expected = "field 'extra' is not in the schema")]
fn schema_check_catches_an_undeclared_nested_field() {
    let spec = serde_json::to_value(lightrag_server::openapi::document("")).unwrap();
    let page = json!({
        "documents": [{"id": "d", "content_summary": "", "content_length": 1, "status": "processed",
                       "created_at": "", "updated_at": "", "file_path": "a.txt", "extra": 1}],
        "pagination": {"page": 1, "page_size": 10, "total_count": 1, "total_pages": 1,
                       "has_next": false, "has_prev": false},
        "status_counts": {"all": 1},
    });
    check(&spec, &schema_ref("PaginatedDocsResponse"), &page, "page");
}

/// The recipe given for the upload route (owned by another module) renders a multipart body
/// with a binary `file` field.
#[test]
fn upload_recipe_renders_a_multipart_file_field() {
    use lightrag_server::schemas::{ErrorResponse, InsertResponse, UploadForm};
    use utoipa::OpenApi;

    #[utoipa::path(post, path = "/documents/upload", tag = "documents",
        request_body(content = UploadForm, content_type = "multipart/form-data"),
        responses(
            (status = 200, description = "Saved and enqueued", body = InsertResponse),
            (status = 400, description = "Unsupported file type or malformed upload", body = ErrorResponse),
        ))]
    #[allow(dead_code)]
    async fn upload() {}

    #[derive(OpenApi)]
    #[openapi(paths(upload))]
    struct Doc;

    let spec = serde_json::to_value(Doc::openapi()).unwrap();
    let body = &spec["paths"]["/documents/upload"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"];
    let form = resolve(&spec, body);
    assert_eq!(form["required"], json!(["file"]), "{spec}");
    assert_eq!(form["properties"]["file"]["format"], "binary", "{spec}");
    assert_eq!(form["properties"]["file"]["type"], "string", "{spec}");
}
