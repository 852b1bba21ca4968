//! The route table: every (method, route) of the server and what it does ([`Class`]), with the
//! name the audit log records. The authentication middleware looks every request up here; a
//! protected route missing from the table is refused to everyone but owners (fail closed), and a
//! unit test checks that every route of `openapi.json` and every undocumented route has an entry.

use lightrag_application::access::Action;

/// What a route needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Open or outside any workspace (login flow, docs, web UI, Ollama's model list).
    Open,
    /// Any caller let in; the handler shows only what the caller may see (`/workspaces`).
    Caller,
    /// `/health`: open for the default workspace (whitelisted by default), a read elsewhere.
    Health,
    /// `/mcp`: each tool call is checked by the MCP host with the caller's rights.
    Mcp,
    /// Shows every workspace (`/metrics`): for callers with rights in all of them.
    EveryWorkspace,
    /// The action in the request's workspace (`LIGHTRAG-WORKSPACE`).
    Do(Action),
}

/// One route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteRule {
    /// `GET`, `POST`, `DELETE`, or `*` for any.
    pub method: &'static str,
    /// The route as the router writes it (`{x}` one segment, `{*x}` the rest).
    pub path: &'static str,
    /// What it needs.
    pub class: Class,
    /// Its name in the audit log.
    pub name: &'static str,
}

const fn rule(method: &'static str, path: &'static str, class: Class, name: &'static str) -> RouteRule {
    RouteRule { method, path, class, name }
}

const READ: Class = Class::Do(Action::Read);
const WRITE: Class = Class::Do(Action::Write);
const ADMIN: Class = Class::Do(Action::Admin);
const OWNER: Class = Class::Do(Action::Owner);

/// Every route of the server.
pub const ROUTES: &[RouteRule] = &[
    // documents
    rule("GET", "/documents", READ, "documents.list"),
    rule("DELETE", "/documents", ADMIN, "documents.clear"),
    rule("GET", "/documents/pipeline_status", READ, "documents.pipeline_status"),
    rule("DELETE", "/documents/delete_document", WRITE, "documents.delete"),
    rule("POST", "/documents/clear_cache", ADMIN, "documents.clear_cache"),
    rule("GET", "/documents/track_status/{track_id}", READ, "documents.track_status"),
    rule("POST", "/documents/paginated", READ, "documents.paginated"),
    rule("GET", "/documents/status_counts", READ, "documents.status_counts"),
    rule("POST", "/documents/reprocess_failed", WRITE, "documents.reprocess_failed"),
    rule("POST", "/documents/cancel_pipeline", WRITE, "documents.cancel_pipeline"),
    rule("POST", "/documents/text", WRITE, "documents.text"),
    rule("POST", "/documents/texts", WRITE, "documents.texts"),
    rule("POST", "/documents/upload", WRITE, "documents.upload"),
    rule("POST", "/documents/scan", WRITE, "documents.scan"),
    rule("POST", "/documents/estimate", READ, "documents.estimate"),
    // queries
    rule("POST", "/query", READ, "query"),
    rule("POST", "/query/stream", READ, "query.stream"),
    rule("POST", "/query/data", READ, "query.data"),
    // graph
    rule("GET", "/graph/label/list", READ, "graph.label.list"),
    rule("GET", "/graph/label/popular", READ, "graph.label.popular"),
    rule("GET", "/graph/label/search", READ, "graph.label.search"),
    rule("GET", "/graphs", READ, "graphs"),
    rule("GET", "/graph/entity/exists", READ, "graph.entity.exists"),
    rule("GET", "/graph/entity/sources", READ, "graph.entity.sources"),
    rule("GET", "/graph/relation/sources", READ, "graph.relation.sources"),
    rule("POST", "/graph/entity/edit", WRITE, "graph.entity.edit"),
    rule("POST", "/graph/relation/edit", WRITE, "graph.relation.edit"),
    rule("POST", "/graph/entity/create", WRITE, "graph.entity.create"),
    rule("POST", "/graph/relation/create", WRITE, "graph.relation.create"),
    rule("POST", "/graph/entities/merge", WRITE, "graph.entities.merge"),
    rule("DELETE", "/graph/entity/delete", WRITE, "graph.entity.delete"),
    rule("DELETE", "/graph/relation/delete", WRITE, "graph.relation.delete"),
    // Ollama emulation
    rule("GET", "/api/version", Class::Open, "ollama.version"),
    rule("GET", "/api/tags", Class::Open, "ollama.tags"),
    rule("GET", "/api/ps", Class::Open, "ollama.ps"),
    rule("POST", "/api/generate", READ, "ollama.generate"),
    rule("POST", "/api/chat", READ, "ollama.chat"),
    // administration
    rule("POST", "/admin/import-lightrag", ADMIN, "admin.import_lightrag"),
    rule("GET", "/admin/keys", OWNER, "admin.keys.list"),
    rule("POST", "/admin/keys", OWNER, "admin.keys.create"),
    rule("DELETE", "/admin/keys", OWNER, "admin.keys.revoke"),
    rule("GET", "/admin/accounts", OWNER, "admin.accounts.list"),
    rule("POST", "/admin/accounts", OWNER, "admin.accounts.add"),
    rule("DELETE", "/admin/accounts", OWNER, "admin.accounts.remove"),
    rule("GET", "/admin/grants", OWNER, "admin.grants.list"),
    rule("POST", "/admin/grants", OWNER, "admin.grants.set"),
    rule("DELETE", "/admin/grants", OWNER, "admin.grants.remove"),
    rule("POST", "/admin/owners", OWNER, "admin.owner"),
    rule("GET", "/admin/audit", OWNER, "admin.audit"),
    rule("GET", "/metrics", Class::EveryWorkspace, "metrics"),
    // system
    rule("GET", "/workspaces", Class::Caller, "workspaces"),
    rule("GET", "/health", Class::Health, "health"),
    rule("*", "/mcp", Class::Mcp, "mcp"),
    rule("GET", "/auth-status", Class::Open, "auth_status"),
    rule("POST", "/login", Class::Open, "login"),
    rule("GET", "/ui/customization", Class::Open, "ui.customization"),
    rule("GET", "/ui/customization/assets/{*asset}", Class::Open, "ui.asset"),
    rule("GET", "/openapi.json", Class::Open, "docs"),
    rule("GET", "/docs", Class::Open, "docs"),
    rule("GET", "/docs/", Class::Open, "docs"),
    rule("GET", "/docs/{*file}", Class::Open, "docs"),
    rule("GET", "/redoc", Class::Open, "docs"),
    rule("GET", "/redoc/redoc.standalone.js", Class::Open, "docs"),
    rule("GET", "/", Class::Open, "webui"),
    rule("GET", "/webui", Class::Open, "webui"),
    rule("GET", "/webui/", Class::Open, "webui"),
    rule("GET", "/webui/index.html", Class::Open, "webui"),
    rule("GET", "/webui/{*file}", Class::Open, "webui"),
];

/// Whether `path` matches the route `pattern`.
fn matches(pattern: &str, path: &str) -> bool {
    let mut given = path.split('/');
    for part in pattern.split('/') {
        if part.starts_with("{*") {
            return given.next().is_some_and(|s| !s.is_empty());
        }
        match given.next() {
            Some(segment) if part.starts_with('{') => {
                if segment.is_empty() {
                    return false;
                }
            }
            Some(segment) if segment == part => {}
            _ => return false,
        }
    }
    given.next().is_none()
}

/// The rule of a request (`HEAD` counts as `GET`; `OPTIONS` preflights are answered by CORS
/// before this). `None`: no such route.
pub fn lookup(method: &str, path: &str) -> Option<&'static RouteRule> {
    let method = if method == "HEAD" { "GET" } else { method };
    ROUTES.iter().find(|r| (r.method == "*" || r.method == method) && matches(r.path, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_are_matched_by_method_and_pattern() {
        assert_eq!(lookup("GET", "/documents").map(|r| r.name), Some("documents.list"));
        assert_eq!(lookup("DELETE", "/documents").map(|r| r.class), Some(ADMIN));
        assert_eq!(lookup("GET", "/documents/track_status/abc").map(|r| r.class), Some(READ));
        assert_eq!(lookup("GET", "/documents/track_status/"), None);
        assert_eq!(lookup("GET", "/webui/assets/x.js").map(|r| r.class), Some(Class::Open));
        assert_eq!(lookup("HEAD", "/graphs").map(|r| r.class), Some(READ));
        assert_eq!(lookup("POST", "/mcp").map(|r| r.class), Some(Class::Mcp));
        assert_eq!(lookup("POST", "/documents"), None);
        assert_eq!(lookup("GET", "/documentsx"), None);
    }

    /// Fail closed: a route added to the router without an entry here would be refused to all but
    /// owners; this test names it first. Every operation of `openapi.json` (the documented
    /// routes) and every undocumented route must have a rule.
    #[test]
    fn every_route_of_the_router_has_an_access_rule() {
        use utoipa::OpenApi as _;
        let doc = crate::openapi::ApiDoc::openapi();
        let mut missing = Vec::new();
        for (path, item) in &doc.paths.paths {
            let methods = [
                ("GET", item.get.is_some()),
                ("POST", item.post.is_some()),
                ("DELETE", item.delete.is_some()),
                ("PUT", item.put.is_some()),
                ("PATCH", item.patch.is_some()),
            ];
            for (method, present) in methods {
                // `{x}` of the docs is a segment like any other
                let concrete = path.replace("{track_id}", "t");
                if present && lookup(method, &concrete).is_none() {
                    missing.push(format!("{method} {path}"));
                }
            }
        }
        let undocumented = [
            ("GET", "/metrics"),
            ("POST", "/mcp"),
            ("GET", "/mcp"),
            ("DELETE", "/mcp"),
            ("GET", "/docs"),
            ("GET", "/docs/index.css"),
            ("GET", "/redoc"),
            ("GET", "/redoc/redoc.standalone.js"),
            ("GET", "/openapi.json"),
            ("GET", "/"),
            ("GET", "/webui"),
            ("GET", "/webui/"),
            ("GET", "/webui/assets/a.js"),
            ("GET", "/ui/customization/assets/logo.png"),
        ];
        for (method, path) in undocumented {
            if lookup(method, path).is_none() {
                missing.push(format!("{method} {path}"));
            }
        }
        assert!(missing.is_empty(), "routes without an access rule: {missing:?}");
        assert!(doc.paths.paths.len() > 40, "the documented routes were read");
    }
}
