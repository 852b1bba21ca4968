//! Export the graph — `lightrag graph export` and the Python package's `export_data` /
//! `aexport_data`: one format list with one message, one way to write a file.
//!
//! A file is written next to its destination under a temporary name and renamed over it when
//! complete, so a failed or interrupted export never leaves a half-written file where a
//! complete one was expected. The engine's export writes through a `dyn Write`, which the async
//! runtime's tasks cannot hold across awaits: it runs on a blocking thread of its own.

use std::io::Write;
use std::path::{Path, PathBuf};

use lightrag_engine::Engine;
pub use lightrag_engine::retrieval::graph::ExportFormat;

use crate::error::{AppError, Result};

/// `format` (`json`, `graphml` or `csv`, any case) as an [`ExportFormat`]; an
/// [`AppError::Invalid`] on `field` naming the accepted ones otherwise.
pub fn parse_format(field: &str, format: &str) -> Result<ExportFormat> {
    format.parse().map_err(|message: String| AppError::invalid(&[field], message))
}

/// Writes the graph as `format` to `out` (a terminal, a pipe).
pub async fn write(engine: &Engine, format: ExportFormat, out: &mut dyn Write) -> Result<()> {
    engine.export_graph(format, out).await?;
    out.flush().map_err(|source| AppError::Io { context: "cannot write the export".into(), source })
}

/// Writes the graph as `format` to the file `path`, replacing it only once complete.
pub async fn to_file(engine: &Engine, format: ExportFormat, path: &Path) -> Result<()> {
    let engine = engine.clone();
    let path = path.to_path_buf();
    let handle = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || handle.block_on(write_file(&engine, format, &path)))
        .await
        .map_err(|e| AppError::Io { context: "the export stopped".into(), source: std::io::Error::other(e) })?
}

async fn write_file(engine: &Engine, format: ExportFormat, path: &Path) -> Result<()> {
    let io = |what: &str, p: &Path| {
        let context = format!("cannot {what} {} (check the folder and its permissions)", p.display());
        move |source| AppError::Io { context, source }
    };
    let partial = partial_path(path);
    let file = std::fs::File::create(&partial).map_err(io("create", &partial))?;
    let mut out = std::io::BufWriter::new(file);
    let written = write(engine, format, &mut out).await;
    let synced = match out.into_inner() {
        Ok(file) => file.sync_all().map_err(io("write", &partial)),
        Err(e) => Err(io("write", &partial)(e.into_error())),
    };
    if let Err(e) = written.and(synced) {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    std::fs::rename(&partial, path).map_err(io("replace", path))
}

/// `dir/.name.partial`: the export in progress, in the destination's folder (a rename within
/// one folder is atomic).
fn partial_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "export".into());
    path.with_file_name(format!(".{name}.partial"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_named_and_unknown_ones_refused_with_the_list() {
        assert_eq!(parse_format("format", "GraphML").unwrap(), ExportFormat::GraphMl);
        let e = parse_format("file_format", "excel").unwrap_err();
        assert_eq!(e.problems()[0].path(), "file_format");
        assert!(e.to_string().contains("expected json, graphml or csv"), "{e}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_export_replaces_the_file_only_once_complete() {
        let dir = tempfile::tempdir().unwrap();
        let engine = crate::testing::engine(dir.path()).await;
        let entity = lightrag_engine::maintenance::graph_edit::EntityInput {
            description: "a captain".into(),
            ..Default::default()
        };
        engine.create_entity("Ahab", entity).await.unwrap();
        let path = dir.path().join("graph.json");
        std::fs::write(&path, "the previous export").unwrap();
        to_file(&engine, ExportFormat::Json, &path).await.unwrap();
        let graph: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(graph["nodes"][0]["id"], "Ahab", "{graph}");
        assert!(!partial_path(&path).exists(), "the partial file was left behind");
        // a destination in a missing folder fails, naming it, and leaves nothing
        let missing = dir.path().join("no-such-folder").join("graph.json");
        let e = to_file(&engine, ExportFormat::Json, &missing).await.unwrap_err();
        assert!(e.to_string().contains("no-such-folder"), "{e}");
    }

    #[test]
    fn the_partial_file_sits_next_to_the_destination() {
        assert_eq!(partial_path(Path::new("/tmp/out/graph.json")), Path::new("/tmp/out/.graph.json.partial"));
    }
}
