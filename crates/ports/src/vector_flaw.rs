//! Vectors no cosine search can use: one with a NaN or infinite component scores NaN against
//! every query (and NaN sorts above every number in a total order, so it would rank first), and
//! a zero vector has no direction. Every entry refuses them — the provider gateway (embedder
//! answers), the stores' writes, the LightRAG import, the copy between stores —, the vector
//! indexes never hold or rank them, the stores never serve one as a stored vector, and
//! `lightrag check` finds any written before these checks existed (`--repair` embeds them again).

use serde::{Deserialize, Serialize};

use crate::{StoreError, VectorKind, VectorRecord};

/// What makes a vector unusable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VectorFlaw {
    /// A component is NaN or infinite.
    NonFinite,
    /// Every component is zero.
    Zero,
}

impl VectorFlaw {
    /// What it is, in words (`"NaN or infinite values"`, `"only zeros"`).
    pub fn describe(self) -> &'static str {
        match self {
            VectorFlaw::NonFinite => "NaN or infinite values",
            VectorFlaw::Zero => "only zeros",
        }
    }
}

/// The flaw of `v`, if it has one (an empty vector has none here: its dimension is wrong).
pub fn vector_flaw(v: &[f32]) -> Option<VectorFlaw> {
    if v.iter().any(|x| !x.is_finite()) {
        Some(VectorFlaw::NonFinite)
    } else if !v.is_empty() && v.iter().all(|x| *x == 0.0) {
        Some(VectorFlaw::Zero)
    } else {
        None
    }
}

/// Whether `v` can take part in a cosine search.
pub fn is_usable(v: &[f32]) -> bool {
    vector_flaw(v).is_none()
}

/// The error a store answers for a write of an unusable vector (nothing of the write is kept).
pub fn refused(kind: VectorKind, key: &str, flaw: VectorFlaw) -> StoreError {
    StoreError::Invalid(format!(
        "the {} vector of '{}' holds {}: refused, nothing of this change was written (the embedding model \
         answered something unusable; check EMBEDDING_MODEL and its server)",
        kind.as_str(),
        key.replace('\u{1f}', " — "),
        flaw.describe()
    ))
}

/// Refuses the first unusable vector of `records` (stores call it before writing anything).
pub fn check_records(records: &[VectorRecord]) -> Result<(), StoreError> {
    match records.iter().find_map(|r| vector_flaw(&r.vector).map(|f| (r, f))) {
        Some((r, flaw)) => Err(refused(r.kind, &r.key, flaw)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_infinite_and_zero_vectors_are_flawed() {
        assert_eq!(vector_flaw(&[0.1, f32::NAN]), Some(VectorFlaw::NonFinite));
        assert_eq!(vector_flaw(&[f32::INFINITY, 0.0]), Some(VectorFlaw::NonFinite));
        assert_eq!(vector_flaw(&[f32::NEG_INFINITY, 1.0]), Some(VectorFlaw::NonFinite));
        assert_eq!(vector_flaw(&[0.0, -0.0]), Some(VectorFlaw::Zero));
        assert_eq!(vector_flaw(&[0.0, 1e-30]), None);
        assert_eq!(vector_flaw(&[3.0e38, 3.0e38]), None, "large but finite");
        assert_eq!(vector_flaw(&[]), None);
        let bad = VectorRecord { kind: VectorKind::Entity, key: "E".into(), content: "x".into(), vector: vec![0.0] };
        assert!(matches!(check_records(&[bad]), Err(StoreError::Invalid(m)) if m.contains("only zeros")));
    }
}
