//! Read a document: a file, or a file's bytes, to the text that is indexed. One implementation for
//! every front end — `lightrag insert`, `POST /documents/upload` and the input-folder scan, the
//! MCP `insert_file` tool on stdio and over HTTP:
//!
//! * the text is extracted by the file's extension ([`lightrag_doc_text`]: PDF, DOCX, …) with
//!   `PDF_DECRYPT_PASSWORD` for encrypted PDFs, on a blocking thread (never on the async
//!   threads), at most as many at once as the machine has cores ([`DocumentReader`]'s slots,
//!   shared by every clone);
//! * a file of more than `MAX_UPLOAD_SIZE` bytes is refused before it is read
//!   ([`AppError::TooLarge`]);
//! * control characters are taken out, as LightRAG does with an uploaded file's text;
//! * a file without text is refused everywhere with the same message ([`AppError::Unreadable`]
//!   with [`DocTextError::Empty`]) — never indexed as an empty document, never skipped silently.
//!
//! What a file of a type [`lightrag_doc_text`] does not know becomes depends on where it comes
//! from ([`Origin`]): a file on this machine is read as UTF-8 text (a `README`, a `.rs` file), an
//! uploaded one is refused as LightRAG refuses it.

use std::path::Path;
use std::sync::Arc;

use lightrag_config::Settings;
use lightrag_doc_text::{DocTextError, ExtractOptions};
use lightrag_engine::indexing::input_text::strip_control_characters;
use tokio::io::AsyncReadExt;
use tokio::sync::Semaphore;

use crate::error::{AppError, Result};

/// The extensions whose text is extracted by format (PDF, DOCX, …), for the front ends that list
/// them or pick files by them.
pub use lightrag_doc_text::SUPPORTED_EXTENSIONS;

/// Whether a file called `name` is of a type whose text is extracted by format
/// ([`SUPPORTED_EXTENSIONS`]).
pub fn is_supported(name: &str) -> bool {
    lightrag_doc_text::is_supported(name)
}

/// Where a document's bytes come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A file on this machine (`lightrag insert`, `insert_file` of `lightrag mcp`): a type the
    /// extractors do not know is read as UTF-8 text.
    Local,
    /// A file a client sent (`/documents/upload`, the input folder, `insert_file` over HTTP):
    /// only the supported types ([`lightrag_doc_text::SUPPORTED_EXTENSIONS`]), as LightRAG.
    Upload,
}

/// Reads documents to text under the knowledge base's settings. Cheap to clone; clones share the
/// extraction slots.
#[derive(Debug, Clone)]
pub struct DocumentReader {
    options: ExtractOptions,
    max_bytes: Option<u64>,
    slots: Arc<Semaphore>,
}

/// The message of a file over `MAX_UPLOAD_SIZE`.
pub fn too_large(name: &str, max: u64) -> AppError {
    AppError::TooLarge(format!(
        "'{name}' is larger than MAX_UPLOAD_SIZE ({max} bytes); split it or raise MAX_UPLOAD_SIZE"
    ))
}

impl DocumentReader {
    /// A reader with `PDF_DECRYPT_PASSWORD` and `MAX_UPLOAD_SIZE` of `settings`, running at most
    /// one extraction per core (at least two) at once.
    pub fn new(settings: &Settings) -> Self {
        let password = settings.pdf_decrypt_password.as_ref().map(|p| p.expose().to_string());
        Self::with_limits(password, settings.server.max_upload_size)
    }

    /// A reader opening encrypted PDFs with `pdf_password`, refusing files of more than
    /// `max_bytes` bytes (`None`: no limit).
    pub fn with_limits(pdf_password: Option<String>, max_bytes: Option<u64>) -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get()).max(2);
        DocumentReader { options: ExtractOptions { pdf_password }, max_bytes, slots: Arc::new(Semaphore::new(cores)) }
    }

    /// The largest file read, in bytes (`MAX_UPLOAD_SIZE`); `None` = no limit.
    pub fn max_bytes(&self) -> Option<u64> {
        self.max_bytes
    }

    /// Refuses a file of `size` bytes over `MAX_UPLOAD_SIZE`.
    pub fn check_size(&self, name: &str, size: u64) -> Result<()> {
        match self.max_bytes {
            Some(max) if size > max => Err(too_large(name, max)),
            _ => Ok(()),
        }
    }

    /// Refuses a file whose type cannot be read from `origin`, before its bytes are received.
    pub fn check_type(&self, name: &str, origin: Origin) -> Result<()> {
        if origin == Origin::Upload && !lightrag_doc_text::is_supported(name) {
            return Err(unsupported(name));
        }
        Ok(())
    }

    /// The text of the file at `path` (named in messages as `path` is written).
    pub async fn read_path(&self, path: &Path, origin: Origin) -> Result<String> {
        self.read_file(path, &path.display().to_string(), origin).await
    }

    /// The text of the file at `path`, called `name` (its type comes from `name`, and messages
    /// name it so: an upload received into a staging file).
    pub async fn read_file(&self, path: &Path, name: &str, origin: Origin) -> Result<String> {
        let io = |source| AppError::Io { context: format!("cannot read '{name}'"), source };
        self.check_type(name, origin)?;
        let file = tokio::fs::File::open(path).await.map_err(io)?;
        let size = file.metadata().await.map_err(io)?.len();
        self.check_size(name, size)?;
        // the file may grow after the check: read one byte past the limit at most
        let mut bytes = Vec::new();
        let mut reader = file.take(self.max_bytes.map_or(u64::MAX, |max| max.saturating_add(1)));
        reader.read_to_end(&mut bytes).await.map_err(io)?;
        self.read_bytes(name, bytes, origin).await
    }

    /// The text of a file called `name` whose bytes are `bytes`.
    pub async fn read_bytes(&self, name: &str, bytes: Vec<u8>, origin: Origin) -> Result<String> {
        self.check_size(name, bytes.len() as u64)?;
        self.check_type(name, origin)?;
        // the slot bounds the CPU-heavy extractions; it is held until the text is out
        let _slot = self.slots.acquire().await.ok();
        let owned = name.to_string();
        let options = self.options.clone();
        let text =
            tokio::task::spawn_blocking(move || extract(&owned, &bytes, origin, &options)).await.map_err(|e| {
                AppError::Io {
                    context: format!("the text extraction of '{name}' did not finish"),
                    source: std::io::Error::other(e.to_string()),
                }
            })?;
        let text = text.map_err(|source| AppError::Unreadable { name: name.to_string(), source })?;
        given_text(name, &text)
    }
}

/// The text of a file as indexed, when a client gives the text itself (`insert_file` over HTTP
/// with `content`): control characters out; without text, the error a file without text gets.
pub fn given_text(name: &str, text: &str) -> Result<String> {
    let text = strip_control_characters(text);
    if text.trim().is_empty() {
        return Err(AppError::Unreadable { name: name.to_string(), source: DocTextError::Empty { format: "text" } });
    }
    Ok(text)
}

fn unsupported(name: &str) -> AppError {
    // the extractor's own message: the extension and the supported ones
    match lightrag_doc_text::extract_text(name, &[]) {
        Err(source @ DocTextError::Unsupported { .. }) => AppError::Unreadable { name: name.to_string(), source },
        _ => AppError::Unreadable {
            name: name.to_string(),
            source: DocTextError::Unsupported {
                extension: String::new(),
                supported: lightrag_doc_text::SUPPORTED_EXTENSIONS,
            },
        },
    }
}

/// The blocking extraction: by extension; a local file of another type as UTF-8 text.
fn extract(name: &str, bytes: &[u8], origin: Origin, options: &ExtractOptions) -> Result<String, DocTextError> {
    if lightrag_doc_text::is_supported(name) || origin == Origin::Upload {
        return lightrag_doc_text::extract_text_with(name, bytes, options);
    }
    match lightrag_doc_text::extract_plain_text(bytes) {
        Ok(text) if text.trim().is_empty() => Err(DocTextError::Empty { format: "text" }),
        Ok(text) => Ok(text),
        // not text either: the error says which types are supported
        Err(_) => lightrag_doc_text::extract_text(name, bytes),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use lightrag_doc_text::testing;

    use super::*;

    fn reader(max: Option<u64>) -> DocumentReader {
        DocumentReader::with_limits(None, max)
    }

    #[tokio::test]
    async fn documents_are_read_by_format_and_local_files_of_other_types_as_text() {
        let dir = tempfile::tempdir().unwrap();
        let docx = dir.path().join("memo.DOCX");
        std::fs::write(&docx, testing::docx(&["Alice Smith joins Acme."], &[])).unwrap();
        assert_eq!(reader(None).read_path(&docx, Origin::Local).await.unwrap(), "Alice Smith joins Acme.");
        let pdf = testing::pdf(&["Bob Jones visits Berlin."]);
        assert_eq!(
            reader(None).read_bytes("paper.pdf", pdf, Origin::Upload).await.unwrap(),
            "Bob Jones visits Berlin."
        );
        let readme = dir.path().join("README");
        std::fs::write(&readme, "plain\u{7} words").unwrap();
        assert_eq!(reader(None).read_path(&readme, Origin::Local).await.unwrap(), "plain words");
        // uploaded, an unknown type is refused before anything is read
        let refused = reader(None).read_path(&readme, Origin::Upload).await.unwrap_err().to_string();
        assert!(
            refused.starts_with("Unsupported file type: '") && refused.contains("README'. Supported types: pdf, "),
            "{refused}"
        );
    }

    #[tokio::test]
    async fn unreadable_empty_and_oversized_files_are_refused_naming_the_file() {
        let r = reader(Some(100));
        let broken = r.read_bytes("broken.pdf", b"%PDF-1.4 truncated".to_vec(), Origin::Local).await.unwrap_err();
        assert!(matches!(broken, AppError::Unreadable { .. }), "{broken}");
        assert!(broken.to_string().contains("'broken.pdf'") && broken.to_string().contains("as PDF"), "{broken}");
        let exe = r.read_bytes("tool.exe", b"MZ\x90\x00\xFF\xFE\xFD".to_vec(), Origin::Local).await.unwrap_err();
        assert!(exe.to_string().starts_with("Unsupported file type: 'tool.exe'. Supported types: pdf, "), "{exe}");
        for (name, bytes) in
            [("empty.txt", Vec::new()), ("blank.md", b"  \n\t".to_vec()), ("NOTES", b"\x01\x02".to_vec())]
        {
            let empty = r.read_bytes(name, bytes, Origin::Local).await.unwrap_err();
            assert!(
                matches!(&empty, AppError::Unreadable { source: DocTextError::Empty { .. }, .. }),
                "{name}: {empty}"
            );
        }
        let given = given_text("empty.txt", "\u{1}").unwrap_err().to_string();
        assert_eq!(given, "'empty.txt': no text found in this text file");
        let big = r.read_bytes("big.txt", vec![b'x'; 101], Origin::Local).await.unwrap_err();
        assert!(matches!(big, AppError::TooLarge(_)) && big.to_string().contains("MAX_UPLOAD_SIZE (100 bytes)"));
    }
}
