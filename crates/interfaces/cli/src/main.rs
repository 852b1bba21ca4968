//! The `lightrag` command: index documents into a knowledge graph and query it.
//!
//! Every command reads the configuration once (see `lightrag_config::Settings`), opens the store of
//! the working directory / workspace, does its job and exits with 0, or prints a one-line error
//! (with its causes) on stderr and exits with 1 — or with [`EXIT_TRY_AGAIN`] (75) when the store
//! was only unavailable for now (no free PostgreSQL connection, a lost connection, the SQLite
//! file locked by another process): the same command is expected to succeed later.

/// `println!` that returns an error instead of panicking when stdout is closed (`lightrag … | head`).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?;
    }};
}

/// jemalloc instead of glibc's malloc: a server under a steady load kept growing with glibc (freed
/// memory stayed with the process: `malloc_trim` gave back 130 MB after 10 minutes) and stays flat
/// with jemalloc (BENCHMARKS.md, "Load test", allocator runs).
#[cfg(all(unix, not(target_env = "musl")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

mod cli;
mod commands;
mod progress;

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Parser;
use cli::{Cli, Command};
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let logging = init_logging(cli.global.verbose);
    init_panic_log();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli, logging)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            match lightrag_config::retry_after_of(e.as_ref()) {
                Some(_) => ExitCode::from(EXIT_TRY_AGAIN),
                None => ExitCode::FAILURE,
            }
        }
    }
}

/// The exit status of a command that failed because the store was unavailable for now; the
/// message says when to try again (`EX_TEMPFAIL` of BSD's sysexits.h: "temporary failure, the
/// user is invited to retry").
const EXIT_TRY_AGAIN: u8 = 75;

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

/// The error and its causes, each once (a message that quoted its cause does not repeat it).
fn one_line(e: &anyhow::Error) -> String {
    lightrag_ports::ErrorChain(e.as_ref()).to_string().replace('\n', " ")
}

/// The log filter, replaceable once the settings are read (`LOG_LEVEL` of `serve`).
struct Logging {
    /// `RUST_LOG` or `-v` chose the filter; settings do not override it.
    explicit: bool,
    handle: Option<tracing_subscriber::reload::Handle<EnvFilter, tracing_subscriber::Registry>>,
    /// Whether lines are written as JSON (`LOG_FORMAT=json`).
    json: Arc<AtomicBool>,
}

impl Logging {
    /// Logs our crates at `level` and everything else at warn, unless RUST_LOG / -v decided.
    fn set_level(&self, level: &str) {
        if self.explicit {
            return;
        }
        let directives =
            format!("warn,lightrag={level},lightrag_server={level},lightrag_engine={level},lightrag_config={level}");
        if let Some(handle) = &self.handle
            && let Ok(filter) = EnvFilter::try_new(directives)
        {
            let _ = handle.reload(filter);
        }
    }
}

/// Panics become one log line (where, and the message); the stack only with `RUST_BACKTRACE=1`.
/// A panic the server survives (a document reader's, caught and turned into a 400) must not
/// write a page of backtrace into its log per bad upload.
fn init_panic_log() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".to_string());
        let place = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
        let backtrace = std::backtrace::Backtrace::capture();
        if backtrace.status() == std::backtrace::BacktraceStatus::Captured {
            tracing::error!(at = %place, "panic: {message}\n{backtrace}");
        } else {
            tracing::error!(at = %place, "panic: {message}");
        }
        // the log may be filtered or not yet installed: the message must still be seen
        if !tracing::enabled!(tracing::Level::ERROR) {
            eprintln!("panic at {place}: {message}");
        }
    }));
}

fn init_logging(verbose: u8) -> Logging {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let from_env = EnvFilter::try_from_default_env().ok();
    let explicit = from_env.is_some() || verbose > 0;
    let (filter, handle) = tracing_subscriber::reload::Layer::new(from_env.unwrap_or_else(|| EnvFilter::new(default)));
    // colours only on a terminal: log files and journald get plain `key=value` lines; with
    // LOG_FORMAT=json (known once the settings are read) one JSON object per line instead
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let json = Arc::new(AtomicBool::new(false));
    let (text_on, json_on) = (json.clone(), json.clone());
    let text = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(ansi)
        .with_filter(tracing_subscriber::filter::filter_fn(move |_| !text_on.load(Ordering::Relaxed)));
    let json_lines = tracing_subscriber::fmt::layer()
        .json()
        .with_writer(std::io::stderr)
        .with_current_span(true)
        .with_span_list(false)
        .with_filter(tracing_subscriber::filter::filter_fn(move |_| json_on.load(Ordering::Relaxed)));
    let installed = tracing_subscriber::registry().with(filter).with(text).with(json_lines).try_init().is_ok();
    Logging { explicit, handle: installed.then_some(handle), json }
}

async fn run(cli: Cli, logging: Logging) -> anyhow::Result<()> {
    // Needs no configuration: runs even where the settings are incomplete.
    if let Command::HashPassword(args) = &cli.command {
        return commands::hash_password::run(args);
    }
    let mut flags = BTreeMap::new();
    if let Some(dir) = &cli.global.working_dir {
        flags.insert("WORKING_DIR".to_string(), dir.to_string_lossy().into_owned());
    }
    if let Some(ws) = &cli.global.workspace {
        flags.insert("WORKSPACE".to_string(), ws.clone());
    }
    if let Some(schema) = &cli.global.extraction_schema {
        flags.insert("EXTRACTION_SCHEMA".to_string(), schema.to_string_lossy().into_owned());
    }
    if let Command::Serve(args) = &cli.command {
        commands::serve::flags(args, &mut flags);
    }
    if let Command::Reembed(args) = &cli.command {
        commands::reembed::flags(args, &mut flags);
    }
    let settings = lightrag_config::Settings::load(cli.global.config.as_deref(), flags)?;
    logging.json.store(settings.server.log_format == lightrag_config::LogFormat::Json, Ordering::Relaxed);
    if matches!(cli.command, Command::Serve(_)) {
        logging.set_level(settings.server.log_level.as_filter());
    }
    for ignored in &settings.ignored {
        tracing::warn!("{ignored}");
    }
    match cli.command {
        Command::Insert(args) => commands::insert::run(&settings, args).await,
        Command::Process(args) => commands::process::run(&settings, args).await,
        Command::Worker(args) => commands::worker::run(&settings, args).await,
        Command::Query(args) => commands::query::run(&settings, args).await,
        Command::Status(args) => commands::status::run(&settings, args).await,
        Command::Migrate(args) => commands::migrate::run(&settings, args).await,
        Command::Copy(args) => commands::copy::run(&settings, args).await,
        Command::Eval(args) => commands::eval::run(&settings, args).await,
        Command::Backup(args) => commands::backup::backup(&settings, args).await,
        Command::Restore(args) => commands::backup::restore(&settings, args).await,
        Command::Delete(args) => commands::delete::run(&settings, args).await,
        Command::Check(args) => commands::check::run(&settings, args).await,
        Command::Reembed(args) => commands::reembed::run(&settings, args).await,
        Command::Graph { command } => commands::graph::run(&settings, command).await,
        Command::Demo(args) => commands::demo::run(&settings, args).await,
        Command::Serve(_) => commands::serve::run(settings).await,
        Command::Mcp(args) => commands::mcp::run(&settings, args).await,
        Command::HashPassword(args) => commands::hash_password::run(&args),
        Command::ImportLightrag(args) => commands::import_lightrag::run(&settings, args).await,
        Command::Admin { command } => commands::admin::run(&settings, command).await,
    }
}
