//! Wiring: builds the adapters named by [`Settings`] and opens an [`Engine`] on them.
//!
//! Providers (tokenizer, chat model, embedder) are built once in [`Providers`] and can be shared
//! by several engines (one per workspace in the server); [`open_engine`] does both steps.

use std::path::Path;
use std::sync::Arc;

use lightrag_embed_local::{LoadOptions, LocalEmbedder};
use lightrag_engine::providers::gateway::RoleLlm;
use lightrag_engine::providers::limiter::ProviderLimits;
use lightrag_engine::{Engine, EngineParts};
use lightrag_ports::StoreError;
use lightrag_ports::{AccessStore, Embedder, Llm, Reranker, Store, Tokenizer};
use lightrag_store_postgres::{PostgresAccessStore, PostgresStore};
use lightrag_store_sqlite::{ACCESS_FILE, HnswParams, IndexConfig, SqliteAccessStore, SqliteOptions, SqliteStore};
use lightrag_tokenizer::TiktokenTokenizer;

use crate::error::AppError;
use crate::postgres::PostgresSettings;
use crate::providers::{EmbeddingBinding, EmbeddingSettings, LlmBinding, LlmSettings};
use crate::settings::Settings;

/// The shared, expensive-to-build parts of an engine.
#[derive(Clone)]
pub struct Providers {
    /// Tokenizer for chunking and budgets (o200k_base).
    pub tokenizer: Arc<dyn Tokenizer>,
    /// Chat model, `None` when `LLM_BINDING=none`.
    pub llm: Option<Arc<dyn Llm>>,
    /// Chat models of particular roles (`EXTRACT_LLM_*` …).
    pub role_llms: Vec<RoleLlm>,
    /// Embedding model.
    pub embedder: Arc<dyn Embedder>,
    /// Rerank service, `None` when `RERANK_BINDING=null`.
    pub reranker: Option<Arc<dyn Reranker>>,
    /// The providers' concurrency limits (with priority classes), shared by every engine opened
    /// on these providers: `MAX_ASYNC` holds per model, not per workspace.
    pub limits: Arc<ProviderLimits>,
    /// The PostgreSQL connection pool, made by the first engine opened on PostgreSQL and shared
    /// by every workspace opened after it (`POSTGRES_MAX_CONNECTIONS` holds per process, as in
    /// LightRAG).
    pub postgres: Arc<tokio::sync::OnceCell<PostgresStore>>,
}

impl Providers {
    /// Builds the tokenizer, the chat model and the embedder. Loads the local embedding model
    /// from disk when `EMBEDDING_BINDING=local`; makes no network calls.
    pub fn build(settings: &Settings) -> Result<Providers, AppError> {
        let tokenizer = build_tokenizer()?;
        Ok(Providers {
            llm: build_llm(&settings.llm)?,
            role_llms: build_role_llms(settings)?,
            embedder: build_embedder(&settings.embedding)?,
            reranker: build_reranker(settings, &tokenizer)?,
            tokenizer,
            limits: ProviderLimits::new(),
            postgres: Arc::new(tokio::sync::OnceCell::new()),
        })
    }
}

/// Builds the o200k_base tokenizer.
pub fn build_tokenizer() -> Result<Arc<dyn Tokenizer>, AppError> {
    Ok(Arc::new(TiktokenTokenizer::o200k()?))
}

/// The chat models of the roles that have their own (`EXTRACT_LLM_*` …).
pub fn build_role_llms(settings: &Settings) -> Result<Vec<RoleLlm>, AppError> {
    let mut out = Vec::new();
    for role in &settings.role_llms {
        if let Some(llm) = build_llm(&role.llm)? {
            out.push(RoleLlm {
                roles: role.role.usage_roles(),
                llm,
                max_async: role.llm.max_async,
                timeout_secs: role.llm.timeout_secs,
            });
        }
    }
    Ok(out)
}

/// Builds the rerank client, or `None` for `RERANK_BINDING=null`.
pub fn build_reranker(
    settings: &Settings,
    tokenizer: &Arc<dyn Tokenizer>,
) -> Result<Option<Arc<dyn Reranker>>, AppError> {
    settings.rerank.as_ref().map(|r| crate::http::reranker(r, &settings.engine.rerank, tokenizer)).transpose()
}

/// Builds the chat model client, or `None` for `LLM_BINDING=none`.
pub fn build_llm(settings: &LlmSettings) -> Result<Option<Arc<dyn Llm>>, AppError> {
    match settings.binding {
        LlmBinding::None => Ok(None),
        _ => crate::http::llm(settings).map(Some),
    }
}

/// Builds the embedding model: loads the local model, or builds an HTTP client.
pub fn build_embedder(settings: &EmbeddingSettings) -> Result<Arc<dyn Embedder>, AppError> {
    match settings.binding {
        EmbeddingBinding::Local => {
            let dir = settings.model_dir.as_deref().ok_or_else(|| AppError::Embedder {
                binding: "local".into(),
                reason: "no model folder is configured; set LIGHTRAG_MODEL_DIR".into(),
            })?;
            let options = LoadOptions {
                precision: settings.local_precision,
                long_texts: settings.local_long_texts,
                ..LoadOptions::default()
            };
            let embedder = LocalEmbedder::load_with(dir, options).map_err(|e| AppError::Embedder {
                binding: "local".into(),
                reason: format!("{e} (model folder: {})", dir.display()),
            })?;
            Ok(Arc::new(embedder))
        }
        _ => crate::http::embedder(settings),
    }
}

/// Opens the store `WORKING_DIR[/WORKSPACE]/lightrag.db`, creating the folders if needed.
pub fn open_store(settings: &Settings) -> Result<Arc<dyn Store>, AppError> {
    let dir = settings.data_dir();
    create_dir(&dir)?;
    open_sqlite_file(settings, &settings.store_path())
}

/// Opens (creating when new) the SQLite store file `path` with the vector-index settings of
/// `settings`.
pub fn open_sqlite_file(settings: &Settings, path: &Path) -> Result<Arc<dyn Store>, AppError> {
    let path = path.to_path_buf();
    let v = &settings.vectors;
    let pool = IndexConfig::pool_of(v.search_threads)
        .map_err(|e| AppError::Store { path: path.clone(), source: StoreError::backend(e.to_string()) })?;
    let options = SqliteOptions {
        vectors: IndexConfig {
            encoding: v.encoding,
            ann_threshold: v.ann_threshold,
            hnsw: HnswParams {
                connectivity: v.hnsw_m,
                expansion_add: v.hnsw_ef_construction,
                expansion_search: v.hnsw_ef_search,
                ..HnswParams::default()
            },
            pool: Some(pool),
        },
        ..SqliteOptions::default()
    };
    let store = SqliteStore::open_with(&path, options).map_err(|source| AppError::Store { path, source })?;
    Ok(Arc::new(store))
}

/// Opens the access store (principals, grants, audit log) beside the knowledge bases: on
/// PostgreSQL the tables `lightrag_access_*` of the same database (a small pool of its own), else
/// `WORKING_DIR/access.sqlite`, shared by the CLI and a running server (WAL).
pub async fn open_access_store(settings: &Settings) -> Result<Arc<dyn AccessStore>, AppError> {
    if let Some(pg) = &settings.postgres {
        let failed = |source| AppError::Postgres { workspace: "(access store)".into(), source };
        let options = pg.options().map_err(failed)?;
        let pool = PostgresStore::connect_pool(&options).await.map_err(failed)?;
        return Ok(Arc::new(PostgresAccessStore::open(pool).await?));
    }
    create_dir(&settings.working_dir)?;
    let path = settings.working_dir.join(ACCESS_FILE);
    let store = tokio::task::spawn_blocking(move || SqliteAccessStore::open(&path))
        .await
        .map_err(|e| AppError::Access(lightrag_ports::AccessError::Backend(e.to_string())))??;
    Ok(Arc::new(store))
}

/// Connects to the PostgreSQL store (creating or migrating its schema) and serves the workspace
/// that `workspace` (`WORKSPACE`, or a server's `LIGHTRAG-WORKSPACE`) maps to.
pub async fn open_postgres(pg: &PostgresSettings, workspace: &str) -> Result<Arc<dyn Store>, AppError> {
    let workspace = pg.workspace_for(workspace);
    let options = pg.options().map_err(|source| AppError::Postgres { workspace: workspace.clone(), source })?;
    let store = PostgresStore::connect(options, &workspace)
        .await
        .map_err(|source| AppError::Postgres { workspace: workspace.clone(), source })?;
    Ok(Arc::new(store))
}

/// Where the configured PostgreSQL database's schema stands (`apply`: after migrating it), and
/// the database (`host:port/database`).
pub async fn postgres_schema(
    pg: &PostgresSettings,
    apply: bool,
) -> Result<(String, lightrag_store_postgres::SchemaStatus), AppError> {
    let err = |source| AppError::Postgres { workspace: pg.workspace.clone(), source };
    let options = pg.options().map_err(err)?;
    let pool = PostgresStore::connect_pool(&options).await.map_err(err)?;
    let status =
        if apply { lightrag_store_postgres::migrate(&pool).await } else { lightrag_store_postgres::check(&pool).await };
    pool.close().await;
    Ok((options.target(), status.map_err(err)?))
}

/// The lightrag-rs workspaces stored in the configured PostgreSQL database (through the process's
/// shared pool); when the default workspace is the unnamed one (`default_workspace` empty), its
/// `POSTGRES_WORKSPACE` rows as `""`.
pub async fn postgres_workspaces(
    pg: &PostgresSettings,
    providers: &Providers,
    default_workspace: &str,
) -> Result<Vec<String>, AppError> {
    let err = |source| AppError::Postgres { workspace: pg.workspace.clone(), source };
    let shared = shared_postgres(pg, providers, &pg.workspace).await?;
    let names = lightrag_store_postgres::workspaces(shared.pool()).await.map_err(err)?;
    let unnamed = |n: &String| default_workspace.is_empty() && *n == pg.workspace;
    Ok(names.into_iter().map(|n| if unnamed(&n) { String::new() } else { n }).collect())
}

/// The process's one PostgreSQL connection pool (made on first use, schema checked then), as a
/// store on `workspace`'s rows; every workspace and request shares it.
async fn shared_postgres<'a>(
    pg: &PostgresSettings,
    providers: &'a Providers,
    workspace: &str,
) -> Result<&'a PostgresStore, AppError> {
    providers
        .postgres
        .get_or_try_init(|| async {
            let options = pg.options()?;
            PostgresStore::connect(options, workspace).await
        })
        .await
        .map_err(|source| AppError::Postgres { workspace: workspace.to_string(), source })
}

fn create_dir(dir: &Path) -> Result<(), AppError> {
    std::fs::create_dir_all(dir).map_err(|e| AppError::WorkingDir { path: dir.to_path_buf(), reason: e.to_string() })
}

/// Opens an engine on already-built providers (share them between workspaces). The store is
/// opened on a blocking thread: it reads the vector index snapshots.
pub async fn open_engine_with(settings: &Settings, providers: &Providers) -> Result<Engine, AppError> {
    let store = open_configured_store(settings, providers).await?;
    if settings.reembed_on_model_change {
        crate::reembed::reembed_if_changed(settings, providers, &store).await?;
    }
    let engine = Engine::open_shared(
        EngineParts {
            config: settings.engine.clone(),
            store,
            llm: providers.llm.clone(),
            role_llms: providers.role_llms.clone(),
            embedder: providers.embedder.clone(),
            reranker: providers.reranker.clone(),
            tokenizer: providers.tokenizer.clone(),
        },
        providers.limits.clone(),
    )
    .await?;
    Ok(engine)
}

/// Builds every adapter named by `settings` and opens the engine.
pub async fn open_engine(settings: &Settings) -> Result<Engine, AppError> {
    let providers = Providers::build(settings)?;
    open_engine_with(settings, &providers).await
}

/// Opens the configured store (the SQLite file of `WORKING_DIR[/WORKSPACE]`, or the PostgreSQL
/// workspace) without checking its embedding identity.
pub async fn open_configured_store(settings: &Settings, providers: &Providers) -> Result<Arc<dyn Store>, AppError> {
    let store: Arc<dyn Store> = match &settings.postgres {
        Some(pg) => {
            let workspace = pg.workspace_for(&settings.workspace);
            Arc::new(shared_postgres(pg, providers, &workspace).await?.workspace(&workspace))
        }
        None => {
            let owned = settings.clone();
            tokio::task::spawn_blocking(move || open_store(&owned)).await.map_err(|e| AppError::Store {
                path: settings.store_path(),
                source: lightrag_ports::StoreError::backend(format!("the opening task failed: {e}")),
            })??
        }
    };
    Ok(store)
}
