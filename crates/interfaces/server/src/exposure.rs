//! Settings that leave the server more open than its operator may think, said at start-up.
//!
//! The defaults are LightRAG's (so a LightRAG deployment behaves the same), but two of them
//! surprise: `WHITELIST_PATHS` keeps `/api/*` — the Ollama-compatible chat routes — open
//! without credentials even when an API key or accounts are set, which makes the server an
//! LLM proxy for anyone who can reach it; and with no credentials at all on a non-loopback
//! address, every route is open.

use lightrag_config::ServerSettings;

/// Whether a whitelist pattern lets requests under `/api/` through.
fn opens_api(pattern: &str) -> bool {
    let pattern = pattern.trim();
    pattern == "/*" || pattern == "/api" || pattern.starts_with("/api/")
}

/// Whether `host` only accepts connections from this machine.
fn is_loopback(host: &str) -> bool {
    let host = host.trim().trim_start_matches('[').trim_end_matches(']');
    host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// One sentence per risky setting: what is open, and the setting that closes it.
pub fn warnings(server: &ServerSettings) -> Vec<String> {
    let mut out = Vec::new();
    // with ACCESS_CONTROL=roles nothing is open to guests: whitelisted routes that touch a
    // workspace need a role there too
    if server.access_control == lightrag_config::AccessControl::Roles {
        return out;
    }
    let credentials = server.api_key.is_some() || !server.auth_accounts.is_empty();
    if credentials && let Some(open) = server.whitelist_paths.iter().find(|p| opens_api(p)) {
        out.push(format!(
            "WHITELIST_PATHS contains '{}' (LightRAG's default): the Ollama-compatible /api/chat and \
             /api/generate answer without credentials, so anyone who reaches this server can use its \
             LLM; set WHITELIST_PATHS=/health to require credentials there too",
            open.trim()
        ));
    }
    if !credentials && !is_loopback(&server.host) {
        out.push(format!(
            "no LIGHTRAG_API_KEY or AUTH_ACCOUNTS and HOST is {}: every route (insert, delete, \
             query) is open to anyone who reaches this port; set one, or HOST=127.0.0.1",
            server.host
        ));
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeMap;

    use lightrag_config::{RawConfig, Settings};

    use super::*;

    fn server(key: bool, host: &str, whitelist: &[&str]) -> ServerSettings {
        server_with(key, host, whitelist, "off")
    }

    fn server_with(key: bool, host: &str, whitelist: &[&str], access_control: &str) -> ServerSettings {
        let mut env = vec![
            ("ACCESS_CONTROL".to_string(), access_control.to_string()),
            ("HOST".to_string(), host.to_string()),
            ("WHITELIST_PATHS".to_string(), whitelist.join(",")),
            ("LIGHTRAG_MODEL_DIR".to_string(), "/nonexistent".to_string()),
        ];
        if key {
            env.push(("LIGHTRAG_API_KEY".to_string(), "k".to_string()));
        }
        let raw = RawConfig::from_sources(env, None, None, BTreeMap::new()).unwrap();
        Settings::from_raw(&raw).unwrap().server
    }

    #[test]
    fn an_api_key_with_the_default_whitelist_is_an_open_llm_proxy() {
        let w = warnings(&server(true, "0.0.0.0", &["/health", "/api/*"]));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("'/api/*'") && w[0].contains("WHITELIST_PATHS=/health"), "{w:?}");
        assert!(warnings(&server(true, "0.0.0.0", &["/health"])).is_empty());
        assert!(warnings(&server(true, "0.0.0.0", &["/healthz", "/apix"])).is_empty());
    }

    #[test]
    fn no_credentials_off_loopback_is_said() {
        let w = warnings(&server(false, "0.0.0.0", &["/health"]));
        assert!(w.len() == 1 && w[0].contains("HOST is 0.0.0.0"), "{w:?}");
        for host in ["127.0.0.1", "localhost", "::1", "[::1]"] {
            assert!(warnings(&server(false, host, &["/health", "/api/*"])).is_empty(), "{host}");
        }
    }

    #[test]
    fn access_control_roles_opens_nothing_to_warn_about() {
        assert!(warnings(&server_with(false, "0.0.0.0", &["/health", "/api/*"], "roles")).is_empty());
        assert!(warnings(&server_with(true, "0.0.0.0", &["/health", "/api/*"], "roles")).is_empty());
    }
}
