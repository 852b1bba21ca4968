//! `lightrag serve`: the LightRAG-compatible REST server until Ctrl-C or SIGTERM.

use std::collections::BTreeMap;

use lightrag_app::Settings;

use crate::cli::ServeArgs;

/// Maps the flags to their settings (`HOST`, `PORT`, `INPUT_DIR`).
pub fn flags(args: &ServeArgs, flags: &mut BTreeMap<String, String>) {
    if let Some(host) = &args.host {
        flags.insert("HOST".to_string(), host.clone());
    }
    if let Some(port) = args.port {
        flags.insert("PORT".to_string(), port.to_string());
    }
    if let Some(dir) = &args.input_dir {
        flags.insert("INPUT_DIR".to_string(), dir.to_string_lossy().into_owned());
    }
}

pub async fn run(settings: Settings) -> anyhow::Result<()> {
    lightrag_server::serve(settings, shutdown_signal()).await?;
    Ok(())
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
