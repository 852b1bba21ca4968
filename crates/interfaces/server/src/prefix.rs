//! `LIGHTRAG_API_PREFIX`: a reverse proxy may serve us under a path prefix (e.g. `/lightrag`).
//! LightRAG keeps its routes at their natural paths and only advertises the prefix in OpenAPI;
//! proxies that forward the prefix unchanged work too: a request path that starts with the
//! prefix is answered as if the prefix were absent.

use axum::Router;
use axum::extract::Request;
use axum::http::Uri;
use axum::http::uri::PathAndQuery;

/// The path with `prefix` removed, when it starts with it (`prefix` is `/name`, no trailing `/`).
pub fn strip(path: &str, prefix: &str) -> Option<String> {
    if prefix.is_empty() {
        return None;
    }
    let rest = path.strip_prefix(prefix)?;
    match rest {
        "" => Some("/".to_string()),
        r if r.starts_with('/') => Some(r.to_string()),
        _ => None,
    }
}

fn rewrite(mut request: Request, prefix: &str) -> Request {
    let Some(path) = strip(request.uri().path(), prefix) else { return request };
    let with_query = match request.uri().query() {
        Some(q) => format!("{path}?{q}"),
        None => path,
    };
    let mut parts = request.uri().clone().into_parts();
    if let Ok(pq) = with_query.parse::<PathAndQuery>() {
        parts.path_and_query = Some(pq);
        if let Ok(uri) = Uri::from_parts(parts) {
            *request.uri_mut() = uri;
        }
    }
    request
}

/// `router`, also answering under `prefix` (unchanged when the prefix is empty).
pub fn wrap(router: Router, prefix: &str) -> Router {
    if prefix.is_empty() {
        return router;
    }
    let prefix = prefix.to_string();
    let service = tower::ServiceBuilder::new().map_request(move |r: Request| rewrite(r, &prefix)).service(router);
    Router::new().fallback_service(service)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_is_stripped_only_at_a_segment_boundary() {
        assert_eq!(strip("/lightrag/query", "/lightrag").as_deref(), Some("/query"));
        assert_eq!(strip("/lightrag", "/lightrag").as_deref(), Some("/"));
        assert_eq!(strip("/lightragx/query", "/lightrag"), None);
        assert_eq!(strip("/query", "/lightrag"), None);
        assert_eq!(strip("/query", ""), None);
    }
}
