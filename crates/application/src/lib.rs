//! # lightrag-application
//!
//! The use cases of lightrag-rs, one home each, under every front end: the CLI (`lightrag`), the
//! REST server, MCP over stdio and over HTTP, the Python package (`lightrag_rs`). A front end parses
//! its wire format, calls one use case, and maps the [`AppError`] it may return to its wire
//! (`docs/architecture.md` draws the layers):
//!
//! | use case | module |
//! |---|---|
//! | who may do what: principals, roles, `authorize`, API keys, the administration use cases | [`access`] |
//! | read a file or its bytes to text (every format, `PDF_DECRYPT_PASSWORD`, `MAX_UPLOAD_SIZE`, off the async threads) | [`read`] |
//! | admit and enqueue documents (duplicate, new version, busy — decided by the store) | [`insert`] |
//! | estimate the cost of an insert | [`estimate`] |
//! | validate a query (one set of limits and messages) and run it | [`query`] |
//! | delete many documents (one report; continues on error) | [`delete`] |
//! | document listings, a track's documents, a document's status | [`documents`] |
//! | graph edits: create, edit, merge, delete entities and relations (refused while the pipeline runs) | [`graph`] |
//! | export the graph (JSON, GraphML, CSV) to a file or a stream | [`export`] |
//!
//! This crate depends on the engine, the ports' types, the configuration's settings types and
//! `lightrag-doc-text` — never on a wire format (axum, rmcp, clap).

pub mod access;
pub mod delete;
pub mod documents;
pub mod error;
pub mod estimate;
pub mod export;
pub mod graph;
pub mod insert;
pub mod query;
pub mod read;

pub use error::{AppError, Problem, Result};
pub use read::{DocumentReader, Origin};

/// An engine for the use cases' tests: SQLite in a folder, no LLM, a constant embedding.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod testing {
    use std::sync::Arc;

    use async_trait::async_trait;
    use lightrag_engine::{Engine, EngineConfig, EngineParts};
    use lightrag_ports::{EmbedError, Embedder, EmbeddingIdentity};
    use lightrag_store_sqlite::SqliteStore;
    use lightrag_tokenizer::TiktokenTokenizer;

    /// The same small vector for every text: these tests only need vectors to exist.
    struct Flat;

    #[async_trait]
    impl Embedder for Flat {
        fn identity(&self) -> EmbeddingIdentity {
            EmbeddingIdentity { model: "flat".into(), dim: 4 }
        }
        async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
            Ok(texts.iter().map(|_| vec![0.5, 0.5, 0.5, 0.5]).collect())
        }
    }

    /// An engine on a new store in `dir`.
    pub(crate) async fn engine(dir: &std::path::Path) -> Engine {
        Engine::open(EngineParts {
            config: EngineConfig::default(),
            store: Arc::new(SqliteStore::open(&dir.join("kb.sqlite")).unwrap()),
            llm: None,
            role_llms: Vec::new(),
            embedder: Arc::new(Flat),
            reranker: None,
            tokenizer: Arc::new(TiktokenTokenizer::o200k().unwrap()),
        })
        .await
        .unwrap()
    }
}
