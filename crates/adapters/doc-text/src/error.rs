//! The one error type of the crate.

use thiserror::Error;

/// Why no text could be taken out of a file. Messages are meant for the person who uploaded it:
/// they say what went wrong and what to do next. They do not repeat the file name; callers that
/// have one put it in front.
#[derive(Debug, Error)]
pub enum DocTextError {
    /// The file name has no extension this crate reads.
    #[error(
        "unsupported file type {}; supported types: {}",
        if extension.is_empty() { "(no extension)".to_string() } else { format!("'.{extension}'") },
        supported.join(", ")
    )]
    Unsupported {
        /// The extension found (lower case, without the dot; empty when there is none).
        extension: String,
        /// The extensions that are supported.
        supported: &'static [&'static str],
    },
    /// The bytes are not a readable file of the format its extension claims.
    #[error(
        "the file could not be read as {format} ({reason}); check that it is a valid, unencrypted \
         {format} file, or convert it (for example to PDF or plain text) and upload it again"
    )]
    Corrupt {
        /// The format the file was read as (`PDF`, `DOCX`, …).
        format: &'static str,
        /// What the reader tripped on.
        reason: String,
    },
    /// A plain-text file that is neither UTF-8 nor UTF-16 with a byte-order mark.
    #[error("the file is not UTF-8 text; save or convert it as UTF-8 and upload it again")]
    NotUtf8,
    /// The file was read but holds no text.
    #[error(
        "no text found in this {format} file{}",
        if *format == "PDF" {
            " (a scanned PDF holds images, not text, and OCR is not supported: run it through an \
             OCR tool first)"
        } else {
            ""
        }
    )]
    Empty {
        /// The format the file was read as.
        format: &'static str,
    },
}

impl DocTextError {
    /// A [`DocTextError::Corrupt`] for `format` with `reason`.
    pub(crate) fn corrupt(format: &'static str, reason: impl std::fmt::Display) -> DocTextError {
        DocTextError::Corrupt { format, reason: reason.to_string() }
    }
}
