//! Command-line definitions.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use lightrag_engine::config::ChunkFusion;

/// lightrag — index documents into a knowledge graph and ask questions over it.
///
/// Configuration comes from (lowest to highest precedence) built-in defaults, `.env` in the current
/// directory, the `--config` TOML file, the environment, and flags. Names are LightRAG's
/// (`LLM_BINDING`, `LLM_MODEL`, `EMBEDDING_BINDING`, `CHUNK_SIZE`, `TOP_K`, …); see
/// docs/configuration.md.
#[derive(Debug, Parser)]
#[command(name = "lightrag", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Where the knowledge base lives [env: WORKING_DIR] [default: ./rag_storage]
    #[arg(long, global = true, value_name = "DIR")]
    pub working_dir: Option<PathBuf>,
    /// Workspace: a separate knowledge base inside the working directory [env: WORKSPACE]
    #[arg(long, global = true, value_name = "NAME")]
    pub workspace: Option<String>,
    /// TOML file with settings (same names as the environment variables)
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Typed extraction: a TOML schema of entity types and relation types (with allowed
    /// endpoint types) that LLM extraction is held to; see README "Typed extraction"
    /// [env: EXTRACTION_SCHEMA]
    #[arg(long, global = true, value_name = "FILE")]
    pub extraction_schema: Option<PathBuf>,
    /// Log more (-v info, -vv debug); RUST_LOG overrides
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Add files, directories (recursively) or stdin (`-`) and index them
    #[command(long_about = "Add files, directories (recursively) or stdin (`-`) and index them.\n\n\
        A file whose name is indexed already is a duplicate when its content is unchanged; with new \
        content it replaces the indexed version in place: only its changed chunks are extracted, \
        the old version's contributions are removed, and the document keeps its id (\"replaced doc-… \
        (N chunks reused, M re-extracted, K removed)\"). Queries answer from the old version until \
        the replacement commits.")]
    Insert(InsertArgs),
    /// Process everything pending, failed or interrupted
    Process(ProcessArgs),
    /// Index documents as they are enqueued, beside other workers and servers on the same
    /// knowledge base, until stopped
    Worker(WorkerArgs),
    /// Ask a question
    Query(QueryArgs),
    /// Show documents and their processing status
    Status(StatusArgs),
    /// Delete documents (and what only they supported) by id, together: what they share is
    /// rebuilt once
    Delete(DeleteArgs),
    /// Check the knowledge base: the store's integrity, and that graph, vectors, chunks and
    /// documents agree (`--repair`: fix what needs no LLM)
    Check(CheckArgs),
    /// Embed every stored vector again with another embedding model (no LLM call, no
    /// re-extraction); resumable; switches in one commit at the end
    Reembed(ReembedArgs),
    /// Inspect or export the knowledge graph
    Graph {
        #[command(subcommand)]
        command: GraphCommand,
    },
    /// Index a sample corpus and answer sample questions (offline)
    Demo(DemoArgs),
    /// Run the LightRAG-compatible REST server
    Serve(ServeArgs),
    /// Serve the knowledge base to an MCP client (Claude Desktop, an IDE, an agent) over stdio
    #[command(long_about = "Serve the knowledge base to an MCP client over stdio.\n\n\
The client starts this command and speaks the Model Context Protocol (JSON-RPC, one message per \
line) on its stdin and stdout; logs go to stderr. Tools: query (every mode: auto, local, global, \
hybrid, naive, mix, bypass, ppr; an answer with references or the context only), insert_text, \
insert_file (a file under MCP_FILES_ROOT, by default the current directory: regular files of \
at most MAX_UPLOAD_SIZE bytes, never /proc, /sys or /dev), list_documents, document_status, track_status, \
delete_documents, search_entities, get_entity, get_relation (with source chunks), \
graph_neighbourhood, graph_stats. Resources: lightrag://documents/{id} (text and status).\n\n\
Inserted documents are indexed in the background (follow them with track_status); closing \
stdin stops indexing between chunks, and the next run resumes it.\n\n\
The knowledge base and providers are configured as for every command (WORKING_DIR, WORKSPACE, \
LLM_*, EMBEDDING_*, --config). The same tools are served over streamable HTTP at /mcp by \
`lightrag serve`.\n\n\
Claude Desktop (claude_desktop_config.json):\n\
  {\"mcpServers\": {\"lightrag\": {\"command\": \"lightrag\", \"args\": [\"mcp\", \"--working-dir\", \"/path/to/rag_storage\"], \"env\": {\"OPENAI_API_KEY\": \"sk-…\"}}}}")]
    Mcp(McpArgs),
    /// Print a bcrypt password entry for AUTH_ACCOUNTS (like LightRAG's lightrag-hash-password)
    HashPassword(HashPasswordArgs),
    /// Import a Python LightRAG working directory (documents, chunks, graph, vectors, LLM cache)
    ImportLightrag(ImportLightragArgs),
    /// Create or upgrade the PostgreSQL schema (`--check`: only tell whether it is current)
    Migrate(MigrateArgs),
    /// Copy a knowledge base between stores (SQLite ⇄ PostgreSQL), atomically per document;
    /// running it again continues an interrupted copy
    Copy(CopyArgs),
    /// Measure retrieval (and answers) on questions whose gold passages are known, mode by mode
    Eval(EvalArgs),
    /// Write a consistent copy of the workspace's SQLite store to a new file, even while a
    /// server or workers use it
    Backup(BackupArgs),
    /// Put a backup in place of the workspace's SQLite store (stop servers and workers first)
    Restore(RestoreArgs),
    /// Who may do what: API keys, managed accounts, roles per workspace, owners, the audit log
    /// (WORKING_DIR/access.sqlite; a running server sees changes at its next request)
    Admin {
        #[command(subcommand)]
        command: crate::commands::admin::AdminCommand,
    },
}

/// `lightrag backup FILE`.
#[derive(Debug, Args)]
pub struct BackupArgs {
    /// The new file to write (never overwritten)
    pub file: PathBuf,
}

/// `lightrag restore FILE`.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// A file written by `lightrag backup`
    pub file: PathBuf,
    /// Replace an existing store
    #[arg(long)]
    pub force: bool,
}

/// Indexes a corpus of titled passages (or uses the knowledge base as it is), asks every question
/// in every mode and scores where the gold passages land in the context.
#[derive(Debug, Args)]
#[command(after_help = "Files (JSONL, one object per line):\n  \
                        --corpus     {\"title\": \"...\", \"text\": \"...\"}   one document per passage, named by its title\n  \
                        --questions  {\"question\": \"...\", \"gold_titles\": [\"...\"], \"answer\": \"...\"}   answer optional\n\n\
                        Reported per mode: all-gold@k and recall@k (k = 2, 5, 8, whole context), MRR of the first gold\n\
                        passage, context tokens, retrieval latency p50/p95; with --answers also exact match, F1 and a\n\
                        judged faithfulness score. Written to --out: results.json (every question), results.md, chart.svg.\n\n\
                        Example (the 2WikiMultiHopQA development set, offline):\n  \
                        lightrag --working-dir ./kb-2wiki eval --corpus corpus.jsonl --questions questions.jsonl --modes all\n  \
                        lightrag --working-dir ./kb-2wiki eval --questions questions.jsonl --baseline eval-results/results.json --out eval-new")]
pub struct EvalArgs {
    /// Questions with their gold passages (JSONL)
    #[arg(long, value_name = "FILE")]
    pub questions: PathBuf,
    /// Passages to index first (JSONL); those already indexed are skipped, so a run continues an
    /// interrupted one. Without it, the knowledge base is evaluated as it is
    #[arg(long, value_name = "FILE")]
    pub corpus: Option<PathBuf>,
    /// Comma-separated modes (and `bm25`: plain lexical search of the question, a baseline), or
    /// `all` (every retrieval mode and bm25)
    #[arg(long, default_value = "naive,local,global,hybrid,mix")]
    pub modes: String,
    /// How the chunk lists are merged in every mode: round_robin (LightRAG's) or rrf
    /// [default: CHUNK_FUSION]
    #[arg(long, value_name = "round_robin|rrf")]
    pub chunk_fusion: Option<ChunkFusion>,
    /// Folder for results.json, results.md and chart.svg
    #[arg(long, value_name = "DIR", default_value = "eval-results")]
    pub out: PathBuf,
    /// An earlier results.json: show the change and the questions won and lost
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Also generate answers (needs a chat model): exact match and F1 against `answer`, and a
    /// faithfulness score from the model acting as judge
    #[arg(long)]
    pub answers: bool,
    /// Only the first N questions
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Entities (local) / relations (global) to retrieve [default: TOP_K]
    #[arg(long)]
    pub top_k: Option<usize>,
    /// Chunks to keep [default: CHUNK_TOP_K]
    #[arg(long)]
    pub chunk_top_k: Option<usize>,
}

/// Copies a whole knowledge base — documents, chunks, graph, vectors, provenance, LLM cache,
/// usage ledger — from one store to another, one transaction per document. No LLM call.
#[derive(Debug, Args)]
#[command(after_help = "Stores:\n  \
                        sqlite:PATH   a SQLite store file, or a folder holding lightrag.db (WORKING_DIR, or WORKING_DIR/WORKSPACE)\n  \
                        postgres://user:password@host:port/database   a PostgreSQL database (its workspace: --from-workspace / --to-workspace)\n\n\
                        Examples:\n  \
                        lightrag copy --from sqlite:./rag_storage --to postgres://rag:secret@db:5432/rag\n  \
                        lightrag copy --from postgres://rag:secret@db:5432/rag --from-workspace team-a --to sqlite:./backup\n\n\
                        The target must be empty, or hold an earlier, interrupted run of the same copy.")]
pub struct CopyArgs {
    /// The store to read
    #[arg(long, value_name = "STORE")]
    pub from: String,
    /// The store to write (created when new)
    #[arg(long, value_name = "STORE")]
    pub to: String,
    /// PostgreSQL workspace to read (default: WORKSPACE, else POSTGRES_WORKSPACE, else "default")
    #[arg(long, value_name = "NAME")]
    pub from_workspace: Option<String>,
    /// PostgreSQL workspace to write (same default)
    #[arg(long, value_name = "NAME")]
    pub to_workspace: Option<String>,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
}

/// The PostgreSQL store's schema (`DATABASE_URL` / `POSTGRES_*`). Servers and workers migrate it
/// themselves at start-up; this command does it ahead of a rollout, or checks it.
#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// Change nothing; exit 1 when the schema is missing or older than this build
    #[arg(long)]
    pub check: bool,
}

/// Brings a LightRAG working directory (its default JSON, NanoVectorDB and GraphML storages) into
/// this knowledge base: no re-indexing, no LLM call.
#[derive(Debug, Args)]
#[command(after_help = "Which LightRAG workspace is read:\n  \
                        DIR itself when it holds LightRAG's files (the default workspace, or a workspace folder);\n  \
                        DIR/NAME with --from-workspace NAME;\n  \
                        DIR/NAME when --workspace NAME (our target workspace) is given and DIR/NAME holds LightRAG's files.\n\n\
                        The target is this knowledge base (--working-dir, --workspace); it must be empty or hold only\n\
                        documents of an earlier run of the same import, which is then continued.\n\n\
                        Examples:\n  \
                        lightrag import-lightrag ./rag_storage --check\n  \
                        lightrag import-lightrag ./rag_storage\n  \
                        lightrag --workspace team_a import-lightrag ./rag_storage      (LightRAG's team_a into ours)\n  \
                        lightrag --workspace old import-lightrag ./rag_storage --from-workspace team_a\n\n\
                        See docs/lightrag-import.md for what is and is not brought over.")]
pub struct ImportLightragArgs {
    /// The LightRAG working directory (WORKING_DIR of the Python server), or one workspace folder of it
    #[arg(value_name = "DIR")]
    pub dir: std::path::PathBuf,
    /// The LightRAG workspace to read (a sub-folder of DIR); default: see below
    #[arg(long, value_name = "NAME")]
    pub from_workspace: Option<String>,
    /// Report what would be imported and what would be lost; write nothing
    #[arg(long)]
    pub check: bool,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
}

/// Prints `{bcrypt}$2b$…` (or `USER:{bcrypt}$2b$…` with --username), ready for
/// `AUTH_ACCOUNTS='user1:{bcrypt}$2b$…,user2:…'`. Quote the value in a shell or .env file: it
/// contains `$`.
#[derive(Debug, Args)]
#[command(after_help = "The entry contains '$': put it in single quotes in shells and .env files, e.g.\n  \
                        AUTH_ACCOUNTS='admin:{bcrypt}$2b$12$...'\n\nExamples:\n  \
                        lightrag hash-password --username admin 'my password'\n  \
                        echo 'my password' | lightrag hash-password   (keeps it out of the shell history)")]
pub struct HashPasswordArgs {
    /// The password; read from the first line of stdin when omitted
    #[arg(value_name = "PASSWORD")]
    pub password: Option<String>,
    /// Print a whole AUTH_ACCOUNTS entry for this user name
    #[arg(long, short, value_name = "NAME")]
    pub username: Option<String>,
    /// bcrypt cost factor (4–31; each step doubles the time of a login)
    #[arg(long, default_value_t = lightrag_server::auth::accounts::DEFAULT_HASH_COST, value_name = "N", value_parser = clap::value_parser!(u32).range(4..=31))]
    pub cost: u32,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (HOST) [default: 0.0.0.0]
    #[arg(long, value_name = "ADDR")]
    pub host: Option<String>,
    /// Port to listen on (PORT) [default: 9621]
    #[arg(long, value_name = "PORT")]
    pub port: Option<u16>,
    /// Folder for uploaded and scanned files (INPUT_DIR) [default: ./inputs]
    #[arg(long, value_name = "DIR")]
    pub input_dir: Option<PathBuf>,
    /// API key clients must send in X-API-Key (LIGHTRAG_API_KEY)
    #[arg(long, value_name = "KEY")]
    pub key: Option<String>,
    /// Serve HTTPS (SSL); needs --ssl-certfile and --ssl-keyfile
    #[arg(long)]
    pub ssl: bool,
    /// PEM certificate chain for HTTPS (SSL_CERTFILE)
    #[arg(long, value_name = "FILE")]
    pub ssl_certfile: Option<PathBuf>,
    /// PEM private key for HTTPS (SSL_KEYFILE)
    #[arg(long, value_name = "FILE")]
    pub ssl_keyfile: Option<PathBuf>,
    /// Path prefix a reverse proxy puts before every route, e.g. /lightrag (LIGHTRAG_API_PREFIX)
    #[arg(long, value_name = "PREFIX")]
    pub api_prefix: Option<String>,
    /// Log level: DEBUG, INFO, WARNING, ERROR, CRITICAL (LOG_LEVEL) [default: INFO]
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Option<String>,
    /// Allowed CORS origins, comma-separated (CORS_ORIGINS) [default: *]
    #[arg(long, value_name = "ORIGINS")]
    pub cors_origins: Option<String>,
    /// Upload limit in bytes (MAX_UPLOAD_SIZE) [default: 104857600]
    #[arg(long, value_name = "BYTES")]
    pub max_upload_size: Option<u64>,
    /// Node limit of graph responses (MAX_GRAPH_NODES) [default: 1000]
    #[arg(long, value_name = "N")]
    pub max_graph_nodes: Option<usize>,
    /// Model name of the Ollama-compatible API (OLLAMA_EMULATING_MODEL_NAME) [default: lightrag]
    #[arg(long, value_name = "NAME")]
    pub simulated_model_name: Option<String>,
    /// Model tag of the Ollama-compatible API (OLLAMA_EMULATING_MODEL_TAG) [default: latest]
    #[arg(long, value_name = "TAG")]
    pub simulated_model_tag: Option<String>,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Folder of .txt documents (scripts/fetch-corpus.sh downloads the State of the Union
    /// addresses) [default: ${XDG_CACHE_HOME:-~/.cache}/lightrag-rs/corpus/sotu]
    #[arg(long, env = "LIGHTRAG_CORPUS_DIR", value_name = "DIR")]
    pub corpus: Option<PathBuf>,
    /// How many documents to index, spread evenly over the sorted list (larger samples reuse
    /// the smaller ones' index)
    #[arg(long, default_value_t = 30, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub docs: u32,
}

#[derive(Debug, Args)]
pub struct InsertArgs {
    /// Files or directories to add (PDF, DOCX, PPTX, XLSX, ODS, ODT, RTF, EPUB, HTML, CSV,
    /// JSON or plain text, by extension); `-` reads one document from stdin
    ///
    /// Directories are searched for these types; a file named here with another extension is read
    /// as UTF-8 text. Scanned PDFs (no text layer) are skipped: there is no OCR.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// File name to record for the document (stdin or a single file)
    #[arg(long, value_name = "NAME")]
    pub file_source: Option<String>,
    /// Track id to record (default: a new `insert_…` id)
    #[arg(long, value_name = "ID")]
    pub track_id: Option<String>,
    /// Split documents on this string first (escapes like \n are understood)
    #[arg(long, value_name = "S")]
    pub split_by_character: Option<String>,
    /// Only split on --split-by-character; a piece larger than CHUNK_SIZE fails the document
    #[arg(long, requires = "split_by_character")]
    pub split_by_character_only: bool,
    /// Only enqueue; process later with `lightrag process`
    #[arg(long)]
    pub no_wait: bool,
    /// Only estimate: documents, chunks, LLM calls, input and output tokens, embedding tokens
    /// and cost at LLM_PRICE_INPUT / LLM_PRICE_OUTPUT / EMBEDDING_PRICE, without calling a model
    /// or storing anything (documents already stored are left out)
    ///
    /// Input tokens are the real prompts counted with the tokenizer; output tokens and summaries
    /// are modelled (see the README). A normal insert prints the same estimate beside the actual
    /// figures at the end.
    #[arg(long, conflicts_with = "no_wait")]
    pub dry_run: bool,
    /// Metadata for every document of this call, one key=value at a time (repeatable; the value
    /// is read as JSON when it parses — 2024, true, ["a","b"] — else as a string); query filters
    /// match it (`lightrag query --meta key=value`)
    #[arg(long, value_name = "KEY=VALUE")]
    pub meta: Vec<String>,
    /// Metadata for every document of this call as a JSON object (--meta pairs are added to it)
    #[arg(long, value_name = "JSON")]
    pub metadata: Option<String>,
    /// Print the summary as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ProcessArgs {
    /// Do not retry documents that failed before
    #[arg(long)]
    pub skip_failed: bool,
    /// Print the summary as JSON
    #[arg(long)]
    pub json: bool,
}

/// Indexing only: claims a few pending documents at a time under a renewed lease, so any number
/// of workers (and servers) share one knowledge base; a stopped or killed worker's documents are
/// taken over by the others (at once when stopped, once its lease expires when killed).
#[derive(Debug, Args)]
#[command(
    after_help = "Documents come from servers (POST /documents/*), `lightrag insert --no-wait`, or a folder scan.\n                        Failed documents are left alone: `lightrag process` retries them.\n                        Ctrl-C or SIGTERM stops after the current chunks; unfinished documents go back to pending."
)]
pub struct WorkerArgs {
    /// Seconds between looks for new documents when idle
    #[arg(long, default_value_t = 2.0, value_name = "S")]
    pub poll_secs: f64,
    /// Exit once no document is pending or being processed by any worker (for batch jobs)
    #[arg(long)]
    pub exit_when_done: bool,
    /// Print the summary as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct QueryArgs {
    /// The question
    #[arg(required = true, value_name = "QUESTION")]
    pub question: Vec<String>,
    /// auto (reads the question and picks one of the others), local, global, hybrid, naive, mix
    /// (LightRAG's default), ppr or bypass [default: DEFAULT_QUERY_MODE, auto]
    #[arg(long, short)]
    pub mode: Option<String>,
    /// How the chunk lists are merged: round_robin (LightRAG's) or rrf (reciprocal-rank fusion
    /// with the lexical index) [default: CHUNK_FUSION]
    #[arg(long, value_name = "round_robin|rrf")]
    pub chunk_fusion: Option<ChunkFusion>,
    /// Entities (local) / relations (global) to retrieve [default: TOP_K]
    #[arg(long)]
    pub top_k: Option<usize>,
    /// Chunks to keep [default: CHUNK_TOP_K]
    #[arg(long)]
    pub chunk_top_k: Option<usize>,
    /// Token budget for entities [default: MAX_ENTITY_TOKENS]
    #[arg(long)]
    pub max_entity_tokens: Option<usize>,
    /// Token budget for relations [default: MAX_RELATION_TOKENS]
    #[arg(long)]
    pub max_relation_tokens: Option<usize>,
    /// Token budget for the whole prompt [default: MAX_TOTAL_TOKENS]
    #[arg(long)]
    pub max_total_tokens: Option<usize>,
    /// Print the retrieved context instead of an answer
    #[arg(long)]
    pub only_context: bool,
    /// Print the full prompt instead of an answer
    #[arg(long)]
    pub only_prompt: bool,
    /// Print the answer as it is generated
    #[arg(long)]
    pub stream: bool,
    /// High-level keywords (comma-separated); skips LLM keyword extraction
    #[arg(long, value_delimiter = ',', value_name = "K,..")]
    pub hl_keywords: Vec<String>,
    /// Low-level keywords (comma-separated); skips LLM keyword extraction
    #[arg(long, value_delimiter = ',', value_name = "K,..")]
    pub ll_keywords: Vec<String>,
    /// Extra instructions for the answer
    #[arg(long, value_name = "P")]
    pub user_prompt: Option<String>,
    /// Answer format, e.g. "Single Paragraph", "Bullet Points"
    #[arg(long, default_value = "Multiple Paragraphs")]
    pub response_type: String,
    /// Derive keywords with rules even when an LLM is configured
    #[arg(long)]
    pub no_llm_keywords: bool,
    /// Print {"response", "references", "data", "metadata"} as JSON
    #[arg(long)]
    pub json: bool,
    /// With --json: add "trace" — each retrieved entity, relation and chunk with its score and
    /// origin, the tokens the query cost and the time of each phase
    #[arg(long, requires = "json")]
    pub trace: bool,
    /// Only draw on this document (repeatable: any of them). Entities and relations count only
    /// through chunks of the documents that pass every filter option given
    #[arg(long, value_name = "ID", help_heading = "Filters")]
    pub doc_id: Vec<String>,
    /// Only documents whose file name matches this glob, e.g. '*.md' (repeatable: any of them)
    #[arg(long, value_name = "GLOB", help_heading = "Filters")]
    pub path: Vec<String>,
    /// Only documents inserted with this metadata (repeatable: all must match; the value is read
    /// as JSON when it parses, else as a string; a stored list matches by element)
    #[arg(long, value_name = "KEY=VALUE", help_heading = "Filters")]
    pub meta: Vec<String>,
    /// Only documents created after this time (RFC 3339, YYYY-MM-DD or Unix milliseconds)
    #[arg(long, value_name = "TIME", help_heading = "Filters")]
    pub created_after: Option<String>,
    /// Only documents created before this time
    #[arg(long, value_name = "TIME", help_heading = "Filters")]
    pub created_before: Option<String>,
    /// Only documents last updated after this time
    #[arg(long, value_name = "TIME", help_heading = "Filters")]
    pub updated_after: Option<String>,
    /// Only documents last updated before this time
    #[arg(long, value_name = "TIME", help_heading = "Filters")]
    pub updated_before: Option<String>,
}

/// `lightrag mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Seconds to let the indexing run in progress reach a chunk boundary after stdin closes
    #[arg(long, default_value_t = 10, value_name = "SECS")]
    pub shutdown_grace: u64,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Only documents of this track id
    #[arg(long, value_name = "ID")]
    pub track_id: Option<String>,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

/// `lightrag check [--repair] [--json]`.
#[derive(Debug, Args)]
#[command(after_help = "Looks for:\n  \
                        store_integrity          the database's own check (SQLite integrity_check and foreign_key_check;\n  \
                                                 PostgreSQL: invalid indexes, vector rows whose dimension disagrees)\n  \
                        entity_without_vector, relation_without_vector, chunk_without_vector\n  \
                        orphan_entity_vector, orphan_relation_vector, orphan_chunk_vector   (a vector without its record)\n  \
                        wrong_dimension          a vector of another size than EMBEDDING_DIM\n  \
                        missing_chunk            a chunk a processed document lists, without its row\n  \
                        orphan_chunk             a chunk without its document\n  \
                        chunk_count_mismatch     a processed document's chunk count differs from its chunk rows\n  \
                        dangling_relation        a relation whose entity at one end is missing\n  \
                        stuck_processing         a document in processing whose lease ran out or whose worker is gone\n\n\
                        --repair embeds missing vectors again with the configured embedding model, deletes vectors and\n\
                        chunks without their record, cuts lost chunks again from their document's text, and sets stuck\n\
                        documents back to pending (`lightrag process` resumes them); it needs no LLM. Then it checks again.\n\
                        Exit status: 0 when nothing is left to report, 1 otherwise.")]
pub struct CheckArgs {
    /// Fix what can be fixed without an LLM, then check again
    #[arg(long)]
    pub repair: bool,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// Document ids (see `lightrag status`); an id of no document is reported and skipped, so the
    /// same command run again after an interruption finishes
    #[arg(required = true, value_name = "DOC_ID")]
    pub doc_ids: Vec<String>,
    /// Also remove the cached LLM extraction responses of these documents, so a later re-insert
    /// asks the LLM again (LightRAG's `delete_llm_cache`)
    #[arg(long)]
    pub delete_llm_cache: bool,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum GraphCommand {
    /// Node and edge counts and the top-degree entities
    Stats {
        /// How many top entities to list
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Find entity names that denote the same thing (case, punctuation, acronyms, near-identical
    /// spellings, near-identical entity vectors of alike names) and, with --apply, merge each
    /// group into its most mentioned name
    Resolve {
        /// Merge the groups found (default: only list them)
        #[arg(long)]
        apply: bool,
        /// Jaro–Winkler similarity at which two folded names of 12 or more characters are linked
        /// (above 1 turns this rule off)
        #[arg(long, default_value_t = lightrag_engine::maintenance::resolve::DEFAULT_SIMILARITY)]
        similarity: f64,
        /// Cosine similarity of two entity vectors (name + description) at which their names are
        /// linked, when the names also look alike (a surname and the full name, the same words
        /// with some added inside, one-letter spelling differences; see docs/entity-resolution.md;
        /// above 1 turns this rule off)
        #[arg(long, default_value_t = lightrag_engine::maintenance::resolve::DEFAULT_EMBEDDING_SIMILARITY)]
        embedding_similarity: f64,
        /// Ask the LLM about each similarity and embedding link (both names and descriptions);
        /// only links it answers "yes" to are kept. Off by default; needs an LLM (not
        /// LLM_BINDING=none)
        #[arg(long)]
        confirm: bool,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// List the names an entity was merged from, as its chunks wrote them (what `unmerge` can
    /// split off again)
    Aliases {
        /// The merged entity
        name: String,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Undo a merge: split ALIAS off ENTITY again, renaming back the records that wrote it and
    /// rebuilding both entities and their relations from the chunks (no extraction LLM calls)
    Unmerge {
        /// The entity ALIAS was merged into
        entity: String,
        /// The name to split off (see `lightrag graph aliases ENTITY`)
        alias: String,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Write the whole graph as json, graphml or csv
    Export {
        /// json, graphml or csv
        #[arg(long, default_value = "json")]
        format: String,
        /// Output file (default: stdout)
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
#[command(long_about = "Embed every stored vector (chunks, entities, relations) again with the configured \
embedding model, or the one given by the flags, without extracting anything again: no LLM call is made, \
the text each vector was computed from is stored beside it.\n\n\
The new vectors are written beside the old ones, a batch per commit; queries keep using the old vectors \
until every vector has its new one, then one commit switches the vectors and the recorded embedding model \
and dimension. Killed or stopped midway, run it again with the same model: it goes on from where it was.\n\n\
Afterwards set EMBEDDING_MODEL / EMBEDDING_DIM (and EMBEDDING_BINDING / EMBEDDING_BINDING_HOST) to the new \
model, and restart servers and workers running on this knowledge base. With REEMBED_ON_MODEL_CHANGE=true, \
every command and the server do this by themselves when they find the configured model changed.")]
pub struct ReembedArgs {
    /// The new embedding model (EMBEDDING_MODEL for this run)
    #[arg(long)]
    pub model: Option<String>,
    /// Its dimension (EMBEDDING_DIM for this run)
    #[arg(long)]
    pub dim: Option<usize>,
    /// Its provider binding (EMBEDDING_BINDING for this run)
    #[arg(long)]
    pub binding: Option<String>,
    /// Its provider URL (EMBEDDING_BINDING_HOST for this run)
    #[arg(long)]
    pub host: Option<String>,
    /// Print the summary as JSON
    #[arg(long)]
    pub json: bool,
}
