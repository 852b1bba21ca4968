//! Re-embedding the stored vectors with another embedding model (`lightrag reembed`), without
//! re-extracting anything.
//!
//! The new vectors are written beside the live ones (a staging generation) in batches, each its
//! own commit, and switched in with one commit at the end together with the recorded embedding
//! identity. Until the switch, searches read the old vectors; a killed run resumes from what is
//! staged. See [`Reembedding::reembed_begin`](crate::Reembedding::reembed_begin).

use serde::{Deserialize, Serialize};

use crate::{EmbeddingIdentity, StoreError};

/// How far a re-embedding has come.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReembedProgress {
    /// Live vectors that have a staged vector of their current text.
    pub staged: usize,
    /// Live vectors still to embed.
    pub pending: usize,
}

/// One live vector still to embed: its key and the text it was embedded from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingVector {
    /// Key within its set.
    pub key: String,
    /// The stored text (what was embedded; embedded again with the new model).
    pub content: String,
}

/// One new vector to stage.
#[derive(Debug, Clone, PartialEq)]
pub struct StagedVector {
    /// Key within its set.
    pub key: String,
    /// The text it was computed from (a record rewritten since then is embedded again).
    pub content: String,
    /// The vector (normalised by the store), of the target dimension.
    pub vector: Vec<f32>,
}

/// What [`Reembedding::reembed_switch`](crate::Reembedding::reembed_switch) did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchOutcome {
    /// The staged vectors and the target identity are now the live ones.
    Switched {
        /// Vectors switched in.
        vectors: usize,
    },
    /// Nothing was switched: these live vectors have no staged vector of their current text yet
    /// (written or rewritten since they were listed). Embed them and try again.
    Pending(usize),
}

/// The error of a backend that has no staging generation.
pub fn unsupported() -> StoreError {
    StoreError::Invalid(
        "this storage backend cannot re-embed in place; copy the knowledge base to a new one with the new \
         model instead"
            .to_string(),
    )
}

/// Checks that a target identity can be staged (a model name and a dimension).
pub fn check_target(target: &EmbeddingIdentity) -> Result<(), StoreError> {
    if target.dim == 0 || target.model.trim().is_empty() {
        return Err(StoreError::Invalid(format!(
            "cannot re-embed to model '{}' with dimension {}: set EMBEDDING_MODEL and EMBEDDING_DIM",
            target.model, target.dim
        )));
    }
    Ok(())
}

/// The `meta` value recording a target: `"<dim>:<model>"`.
pub fn encode_target(target: &EmbeddingIdentity) -> String {
    format!("{}:{}", target.dim, target.model)
}

/// Reads a value written by [`encode_target`].
pub fn decode_target(value: &str) -> Option<EmbeddingIdentity> {
    let (dim, model) = value.split_once(':')?;
    Some(EmbeddingIdentity { model: model.to_string(), dim: dim.parse().ok()? })
}

/// Staged vectors must have the target dimension and be usable (checked before anything is
/// written; see [`crate::vector_flaw`]).
pub fn check_staged(
    target: &EmbeddingIdentity,
    kind: crate::VectorKind,
    rows: &[StagedVector],
) -> Result<(), StoreError> {
    if let Some(bad) = rows.iter().find(|r| r.vector.len() != target.dim) {
        return Err(StoreError::WrongDimension { expected: target.dim, got: bad.vector.len() });
    }
    if let Some((bad, flaw)) = rows.iter().find_map(|r| crate::vector_flaw(&r.vector).map(|f| (r, f))) {
        return Err(crate::vector_flaw::refused(kind, &bad.key, flaw));
    }
    Ok(())
}

/// The error when staging or switching without [`Reembedding::reembed_begin`](crate::Reembedding::reembed_begin).
pub fn not_begun() -> StoreError {
    StoreError::Invalid("no re-embedding is in progress on this knowledge base: run `lightrag reembed`".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_target_reads_back_also_with_colons_in_the_model_name() {
        let id = EmbeddingIdentity { model: "bge-m3:latest".into(), dim: 1024 };
        assert_eq!(decode_target(&encode_target(&id)), Some(id));
        assert_eq!(decode_target("not a target"), None);
    }

    #[test]
    fn a_target_without_a_model_or_a_dimension_is_refused() {
        assert!(check_target(&EmbeddingIdentity { model: " ".into(), dim: 8 }).is_err());
        assert!(check_target(&EmbeddingIdentity { model: "m".into(), dim: 0 }).is_err());
        assert!(check_target(&EmbeddingIdentity { model: "m".into(), dim: 8 }).is_ok());
    }
}
