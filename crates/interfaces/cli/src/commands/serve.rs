//! `lightrag serve`: the LightRAG-compatible REST server until Ctrl-C or SIGTERM.

use std::collections::BTreeMap;

use lightrag_config::Settings;

use crate::cli::ServeArgs;

/// Maps the flags to the settings they override (`HOST`, `PORT`, `INPUT_DIR`, …).
pub fn flags(args: &ServeArgs, flags: &mut BTreeMap<String, String>) {
    let path = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| p.to_string_lossy().into_owned());
    let pairs = [
        ("HOST", args.host.clone()),
        ("PORT", args.port.map(|p| p.to_string())),
        ("INPUT_DIR", path(&args.input_dir)),
        ("LIGHTRAG_API_KEY", args.key.clone()),
        ("SSL", args.ssl.then(|| "true".to_string())),
        ("SSL_CERTFILE", path(&args.ssl_certfile)),
        ("SSL_KEYFILE", path(&args.ssl_keyfile)),
        ("LIGHTRAG_API_PREFIX", args.api_prefix.clone()),
        ("LOG_LEVEL", args.log_level.clone()),
        ("CORS_ORIGINS", args.cors_origins.clone()),
        ("MAX_UPLOAD_SIZE", args.max_upload_size.map(|n| n.to_string())),
        ("MAX_GRAPH_NODES", args.max_graph_nodes.map(|n| n.to_string())),
        ("OLLAMA_EMULATING_MODEL_NAME", args.simulated_model_name.clone()),
        ("OLLAMA_EMULATING_MODEL_TAG", args.simulated_model_tag.clone()),
    ];
    for (name, value) in pairs {
        if let Some(value) = value {
            flags.insert(name.to_string(), value);
        }
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
