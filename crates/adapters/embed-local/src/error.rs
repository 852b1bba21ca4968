//! What can go wrong with a local model, worded so the reader knows what to do next.
//! Every variant reaches callers as [`lightrag_ports::EmbedError::Model`].

use std::path::{Path, PathBuf};

use lightrag_ports::EmbedError;

/// The one command that installs (or repairs) the model files.
pub const INSTALL_COMMAND: &str = "scripts/install-model.sh";

/// A local model problem.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ModelError {
    /// A required file is not in the model folder.
    #[error(
        "local embedding model not installed: {} is missing; run {INSTALL_COMMAND} \
         (or point LIGHTRAG_MODEL_DIR at a folder holding all-MiniLM-L6-v2)",
        .path.display()
    )]
    Missing { path: PathBuf },
    /// A file exists but cannot be read.
    #[error("cannot read local embedding model file {}: {source}", .path.display())]
    Io { path: PathBuf, source: std::io::Error },
    /// A file is truncated, of the wrong kind, or describes an unsupported model.
    #[error(
        "local embedding model file {} is unusable: {reason}; reinstall it with {INSTALL_COMMAND}",
        .path.display()
    )]
    Broken { path: PathBuf, reason: String },
    /// The tokenizer refused an input text.
    #[error("cannot tokenize text for the local embedder: {0}")]
    Tokenize(String),
    /// The blocking worker thread died.
    #[error("local embedding worker failed: {0}")]
    Worker(String),
}

impl From<ModelError> for EmbedError {
    fn from(e: ModelError) -> Self {
        EmbedError::Model(e.to_string())
    }
}

/// Reads a whole file, telling a missing file apart from an unreadable one.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, ModelError> {
    std::fs::read(path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            ModelError::Missing { path: path.to_path_buf() }
        } else {
            ModelError::Io { path: path.to_path_buf(), source }
        }
    })
}
