//! Configuration loading and wiring of adapters into the lightrag-rs engine, shared by the CLI
//! and the server.
//!
//! Configuration is read once, at start-up, from (lowest to highest precedence) built-in
//! defaults, a `.env` file in the current directory, a TOML file (`--config`), the process
//! environment and command-line flags. Names are LightRAG's environment variable names, so a
//! LightRAG `.env` works unchanged. See `docs/configuration.md` for every setting.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use std::collections::BTreeMap;
//! let mut flags = BTreeMap::new();
//! flags.insert("WORKING_DIR".to_string(), "./rag_storage".to_string());
//! let settings = lightrag_config::Settings::load(None, flags)?;
//! let engine = lightrag_config::open_engine(&settings).await?;
//! # let _ = engine; Ok(()) }
//! ```
//!
//! * [`RawConfig`] — the layered `NAME → (value, source)` map ([`raw`]).
//! * [`Settings`] — the validated, typed result ([`settings`], [`providers`], [`server`]).
//! * [`open_engine`] — builds the store, tokenizer, LLM and embedder and opens the engine ([`wiring`]).

pub mod backup;
pub mod embedding;
pub mod error;
mod http;
pub mod ignored;
pub mod location;
pub mod mcp;
mod parse;
pub mod postgres;
pub mod prices;
pub mod provider_options;
pub mod providers;
pub mod raw;
pub mod reembed;
pub mod rerank;
pub mod roles;
mod schema;
pub mod secret;
pub mod server;
pub mod settings;
pub mod store_names;
pub mod vectors;
pub mod wiring;

pub use error::{AppError, ConfigError, retry_after_of};
pub use ignored::IgnoredSetting;
pub use lightrag_store_postgres::SchemaStatus;
pub use location::{StoreLocation, open_store_at};
pub use mcp::McpSettings;
pub use postgres::{PostgresSettings, PostgresTls};
pub use providers::{AwsSettings, EmbeddingBinding, EmbeddingSettings, LlmBinding, LlmSettings};
pub use raw::{RawConfig, RawValue, Source};
pub use rerank::RerankSettings;
pub use roles::{LlmRole, RoleLlmSettings};
pub use secret::Secret;
pub use server::{AccessControl, AuthAccount, JwtAlgorithm, LogFormat, LogLevel, RequestLimits, ServerSettings};
pub use settings::{STORE_FILE, Settings};
pub use store_names::{StoreNames, store_names};
pub use vectors::VectorIndexSettings;
pub use wiring::{
    Providers, build_embedder, build_llm, build_reranker, build_role_llms, build_tokenizer, open_access_store,
    open_engine, open_engine_with, open_postgres, open_store, postgres_schema, postgres_workspaces,
};
