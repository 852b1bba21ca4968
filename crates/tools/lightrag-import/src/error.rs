//! Errors of an import. Each says what to do next.

use std::path::{Path, PathBuf};

use lightrag_engine::EngineError;
use lightrag_ports::StoreError;

/// Why an import could not run (or stopped).
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The path given is not a folder.
    #[error("{} is not a folder; give the LightRAG working directory (WORKING_DIR of the Python server)", .0.display())]
    NotADirectory(PathBuf),
    /// A file or folder could not be read.
    #[error("cannot read {}: {reason}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// What failed.
        reason: String,
    },
    /// The folder holds no LightRAG files.
    #[error(
        "{} holds no LightRAG storage files (kv_store_*.json, vdb_*.json, graph_chunk_entity_relation.graphml){}",
        dir.display(),
        workspace_hint(found)
    )]
    NoLightragFiles {
        /// The folder.
        dir: PathBuf,
        /// LightRAG workspaces found in its sub-folders.
        found: Vec<String>,
    },
    /// The folder to read lies outside the folders imports are allowed from, once its workspace
    /// sub-folder is joined and every link followed (the server's `IMPORT_ALLOWED_DIRS`).
    #[error(
        "{} is outside the folders the server allows imports from once its links are followed; set \
         IMPORT_ALLOWED_DIRS on the server (default: WORKING_DIR)",
        .0.display()
    )]
    OutsideAllowedDirs(PathBuf),
    /// The LightRAG workspace asked for does not exist.
    #[error("{} has no LightRAG workspace '{name}'{}", dir.display(), workspace_hint(found))]
    NoSuchWorkspace {
        /// The working directory.
        dir: PathBuf,
        /// The workspace asked for.
        name: String,
        /// The workspaces there are.
        found: Vec<String>,
    },
    /// The target knowledge base holds documents that did not come from this import.
    #[error(
        "the target knowledge base already holds {count} document(s) that were not imported from {} \
         (e.g. {example}); import into an empty workspace instead (--workspace NEW_NAME, or another WORKING_DIR)",
        source_dir.display()
    )]
    TargetNotEmpty {
        /// The LightRAG folder being imported.
        source_dir: PathBuf,
        /// How many foreign documents.
        count: usize,
        /// One of them.
        example: String,
    },
    /// Nothing can be imported: the files that matter are missing or unreadable.
    #[error("nothing to import from {}: {reason}", dir.display())]
    NothingToImport {
        /// The folder.
        dir: PathBuf,
        /// Why.
        reason: String,
    },
    /// A document's file path is over the name limit every insert path shares.
    #[error(
        "{0}; shorten it in the LightRAG files (kv_store_doc_status.json, kv_store_full_docs.json) and import again"
    )]
    Name(#[from] lightrag_engine::indexing::pipeline::NameError),
    /// The engine (embedding, store) failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The store failed.
    #[error("the knowledge base could not be written: {0}")]
    Store(#[from] StoreError),
}

impl ImportError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, e: std::io::Error) -> Self {
        ImportError::Io { path: path.to_path_buf(), reason: e.to_string() }
    }

    /// The same error with every path it names rewritten by `show` (the server names paths
    /// relative to the allowed folder, never the server's absolute ones).
    pub fn map_paths(self, show: impl Fn(&Path) -> PathBuf) -> Self {
        match self {
            ImportError::NotADirectory(p) => ImportError::NotADirectory(show(&p)),
            ImportError::Io { path, reason } => ImportError::Io { path: show(&path), reason },
            ImportError::NoLightragFiles { dir, found } => ImportError::NoLightragFiles { dir: show(&dir), found },
            ImportError::OutsideAllowedDirs(p) => ImportError::OutsideAllowedDirs(show(&p)),
            ImportError::NoSuchWorkspace { dir, name, found } => {
                ImportError::NoSuchWorkspace { dir: show(&dir), name, found }
            }
            ImportError::TargetNotEmpty { source_dir, count, example } => {
                ImportError::TargetNotEmpty { source_dir: show(&source_dir), count, example }
            }
            ImportError::NothingToImport { dir, reason } => ImportError::NothingToImport { dir: show(&dir), reason },
            other @ (ImportError::Name(_) | ImportError::Engine(_) | ImportError::Store(_)) => other,
        }
    }
}

fn workspace_hint(found: &[String]) -> String {
    let named: Vec<&str> = found.iter().filter(|w| !w.is_empty()).map(String::as_str).collect();
    if named.is_empty() {
        String::new()
    } else {
        format!(
            "; it holds the LightRAG workspace(s) {}: pick one with --from-workspace NAME (or --workspace NAME to \
             import it into our workspace of the same name)",
            named.join(", ")
        )
    }
}
