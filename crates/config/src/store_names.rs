//! The store the settings wire, described as LightRAG's `/health` describes its storages.

use crate::settings::Settings;

/// LightRAG's four storages (`kv_storage`, `doc_status_storage`, `graph_storage`,
/// `vector_storage`) as the wired store serves them, and the workspace they serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreNames {
    /// `kv_storage`.
    pub kv: &'static str,
    /// `doc_status_storage`.
    pub doc_status: &'static str,
    /// `graph_storage`.
    pub graph: &'static str,
    /// `vector_storage`.
    pub vector: &'static str,
    /// The workspace of all four: the PostgreSQL workspace (`POSTGRES_WORKSPACE` for the unnamed
    /// one), else `WORKSPACE` (the SQLite file's folder).
    pub workspace: String,
}

/// What [`crate::open_engine`] opens for `settings`: PostgreSQL holds all four storages once
/// selected (LightRAG's PostgreSQL class names), else the SQLite file does (`SqliteStore`).
pub fn store_names(settings: &Settings) -> StoreNames {
    match &settings.postgres {
        Some(pg) => StoreNames {
            kv: "PGKVStorage",
            doc_status: "PGDocStatusStorage",
            graph: "PGGraphStorage",
            vector: "PGVectorStorage",
            workspace: pg.workspace_for(&settings.workspace),
        },
        None => StoreNames {
            kv: "SqliteStore",
            doc_status: "SqliteStore",
            graph: "SqliteStore",
            vector: "SqliteStore",
            workspace: settings.workspace.clone(),
        },
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::RawConfig;

    fn settings(pairs: &[(&str, &str)]) -> Settings {
        let base = [("LLM_BINDING", "none"), ("LIGHTRAG_MODEL_DIR", "/m")];
        let env = base.iter().chain(pairs).map(|(k, v)| (k.to_string(), v.to_string()));
        Settings::from_raw(&RawConfig::from_sources(env, None, None, BTreeMap::new()).unwrap()).unwrap()
    }

    #[test]
    fn health_names_postgresql_when_postgresql_is_wired() {
        let pg = settings(&[("DATABASE_URL", "postgres://u@db/kb"), ("POSTGRES_WORKSPACE", "team")]);
        let names = store_names(&pg);
        assert_eq!(
            [names.kv, names.doc_status, names.graph, names.vector],
            ["PGKVStorage", "PGDocStatusStorage", "PGGraphStorage", "PGVectorStorage"]
        );
        assert_eq!(names.workspace, "team", "the unnamed workspace is POSTGRES_WORKSPACE");
        let named = settings(&[("DATABASE_URL", "postgres://u@db/kb"), ("WORKSPACE", "sales")]);
        assert_eq!(store_names(&named).workspace, "sales");
        let sqlite = store_names(&settings(&[("WORKSPACE", "sales")]));
        assert_eq!([sqlite.kv, sqlite.graph], ["SqliteStore", "SqliteStore"]);
        assert_eq!(sqlite.workspace, "sales");
    }
}
