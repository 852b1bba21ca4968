//! Errors of a copy.

use lightrag_ports::StoreError;

/// Why a copy stopped.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// Reading the source failed.
    #[error("reading the source failed: {0}")]
    Source(#[source] StoreError),
    /// Writing the target failed.
    #[error("writing the target failed: {0}; run the copy again to continue where it stopped")]
    Target(#[source] StoreError),
    /// The source holds no document and no graph record.
    #[error(
        "the source holds no document and no graph record: check the path after sqlite:, or the workspace \
         (--from-workspace) of a PostgreSQL source"
    )]
    SourceEmpty,
    /// The target holds documents the source does not have.
    #[error(
        "the target already holds {count} document(s) that are not in the source (e.g. {example}); \
         copy into an empty knowledge base (another workspace, database or file)"
    )]
    TargetNotEmpty {
        /// How many.
        count: usize,
        /// One of them.
        example: String,
    },
    /// The two stores use different embedding models.
    #[error(
        "the source's vectors come from {source_model} ({source_dim} dimensions) but the target holds \
         {target_model} ({target_dim}); copy into an empty knowledge base, or first run `lightrag reembed` \
         on one of them so that both use the same model"
    )]
    EmbeddingMismatch {
        /// The source's model.
        source_model: String,
        /// The source's dimension.
        source_dim: usize,
        /// The target's model.
        target_model: String,
        /// The target's dimension.
        target_dim: usize,
    },
}
