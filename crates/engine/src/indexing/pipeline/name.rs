//! The one limit on a document's name. Every way in checks it with [`check_file_source`] before
//! doing any work — `/documents/text`, `/documents/texts`, `/documents/upload`, a scan of the input
//! folder, the MCP insert tools, `lightrag insert`, the LightRAG import — and
//! [`super::Engine::enqueue`] checks it again, so no path stores a name that could not be a file
//! name. The message is the same everywhere; only the field it names differs.

use super::canonical_file_path;

/// Longest document name in bytes: the name a document is stored under (the last component of
/// its `file_source`). What common file systems allow for a file name (`NAME_MAX`), so every
/// stored name can also be a file of the input folder.
pub const MAX_FILE_NAME_BYTES: usize = 255;

/// Longest `file_source` as given, in bytes (`PATH_MAX`): a path, of which the last component is
/// the name.
pub const MAX_FILE_SOURCE_BYTES: usize = 4_096;

/// A document name over the limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// The name (last path component) is too long.
    #[error(
        "{field} '{start}…' is {bytes} bytes long; a document name may have at most {limit} bytes (what file systems \
         allow for a file name); use a shorter name"
    )]
    NameTooLong {
        /// The field or option that gave it (`file_source`, `file_name`, `--file-source`, …).
        field: String,
        /// Its first characters.
        start: String,
        /// The name's length in bytes.
        bytes: usize,
        /// [`MAX_FILE_NAME_BYTES`].
        limit: usize,
    },
    /// The path the name came with is too long.
    #[error(
        "{field} '{start}…' is {bytes} bytes long; a file path may have at most {limit} bytes; give the file name \
         alone"
    )]
    PathTooLong {
        /// The field or option that gave it.
        field: String,
        /// Its first characters.
        start: String,
        /// The path's length in bytes.
        bytes: usize,
        /// [`MAX_FILE_SOURCE_BYTES`].
        limit: usize,
    },
}

impl NameError {
    /// The field or option named in the message.
    pub fn field(&self) -> &str {
        match self {
            NameError::NameTooLong { field, .. } | NameError::PathTooLong { field, .. } => field,
        }
    }
}

impl From<NameError> for crate::error::EngineError {
    fn from(e: NameError) -> Self {
        crate::error::EngineError::Invalid(e.to_string())
    }
}

/// Checks a document's `file_source` (a file name, or a path ending in one) given in `field`: its
/// name at most [`MAX_FILE_NAME_BYTES`], the whole at most [`MAX_FILE_SOURCE_BYTES`].
pub fn check_file_source(field: &str, source: &str) -> Result<(), NameError> {
    let start = || source.trim().chars().take(40).collect::<String>();
    let name = canonical_file_path(Some(source));
    if name.len() > MAX_FILE_NAME_BYTES {
        return Err(NameError::NameTooLong {
            field: field.to_string(),
            start: start(),
            bytes: name.len(),
            limit: MAX_FILE_NAME_BYTES,
        });
    }
    if source.len() > MAX_FILE_SOURCE_BYTES {
        return Err(NameError::PathTooLong {
            field: field.to_string(),
            start: start(),
            bytes: source.len(),
            limit: MAX_FILE_SOURCE_BYTES,
        });
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_longer_than_a_file_name_and_paths_longer_than_a_path_are_refused() {
        assert!(check_file_source("file_source", &"a".repeat(255)).is_ok());
        assert!(check_file_source("file_source", &format!("{}/{}", "d".repeat(3000), "a".repeat(255))).is_ok());
        let err = check_file_source("file_source", &"a".repeat(300_000)).unwrap_err();
        assert!(matches!(err, NameError::NameTooLong { bytes: 300_000, .. }), "{err}");
        let text = err.to_string();
        assert!(text.starts_with("file_source 'aaaa") && text.contains("at most 255 bytes"), "{text}");
        assert!(text.len() < 300, "the message does not echo the name: {text}");
        // the limit is on bytes: 128 two-byte characters are 256 bytes
        assert!(check_file_source("file_name", &"é".repeat(128)).is_err());
        let err = check_file_source("--file-source", &format!("{}/a.txt", "d".repeat(5000))).unwrap_err();
        assert!(matches!(err, NameError::PathTooLong { .. }), "{err}");
        assert_eq!(err.field(), "--file-source");
    }
}
