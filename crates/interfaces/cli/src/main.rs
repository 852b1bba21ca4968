//! The `lightrag` command: index documents into a knowledge graph and query it.
//!
//! Every command reads the configuration once (see `lightrag_app::Settings`), opens the store of
//! the working directory / workspace, does its job and exits with 0, or prints a one-line error on
//! stderr and exits with 1.

/// `println!` that returns an error instead of panicking when stdout is closed (`lightrag … | head`).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?;
    }};
}

mod cli;
mod commands;
mod progress;

use std::collections::BTreeMap;
use std::process::ExitCode;

use clap::Parser;
use cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.global.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

fn one_line(e: &anyhow::Error) -> String {
    format!("{e:#}").replace('\n', " ")
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ =
        tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_target(false).try_init();
}

async fn run(cli: Cli) -> anyhow::Result<()> {
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
    if let Command::Serve(args) = &cli.command {
        commands::serve::flags(args, &mut flags);
    }
    let settings = lightrag_app::Settings::load(cli.global.config.as_deref(), flags)?;
    match cli.command {
        Command::Insert(args) => commands::insert::run(&settings, args).await,
        Command::Process(args) => commands::process::run(&settings, args).await,
        Command::Query(args) => commands::query::run(&settings, args).await,
        Command::Status(args) => commands::status::run(&settings, args).await,
        Command::Delete(args) => commands::delete::run(&settings, args).await,
        Command::Graph { command } => commands::graph::run(&settings, command).await,
        Command::Demo(args) => commands::demo::run(&settings, args).await,
        Command::Serve(_) => commands::serve::run(settings).await,
        Command::HashPassword(args) => commands::hash_password::run(&args),
    }
}
