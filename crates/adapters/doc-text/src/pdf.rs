//! PDF: the text layer, via `pdf-extract` (which may panic on malformed files; the caller
//! contains that). Scanned PDFs have no text layer, and there is no OCR.
//!
//! The document is loaded once with `lopdf` and checked by [`crate::pdf_guard`] before
//! `pdf-extract` reads it, so that the shapes `pdf-extract` recurses into without limit are
//! refused instead of overflowing the stack. The reading runs on a thread of its own with a
//! [`STACK_BYTES`] stack, so that deep but finite nesting does not overflow the caller's (often
//! small) stack either.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use lopdf::Document;
use pdf_extract::{PlainTextOutput, output_doc, output_doc_page};

use crate::structure::{PAGE_MARK, strip_marks};
use crate::{DocTextError, pdf_guard};

/// The stack of the thread that reads a PDF.
pub(crate) const STACK_BYTES: usize = 64 << 20;

/// The text of a PDF held in memory, a blank line between pages.
pub(crate) fn extract(bytes: &[u8], password: Option<&str>) -> Result<String, DocTextError> {
    let head = &bytes[..bytes.len().min(1024)];
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err(DocTextError::corrupt("PDF", "no %PDF- header"));
    }
    crate::pdf_inflate::check(bytes, crate::pdf_inflate::MAX_INFLATED_BYTES)
        .map_err(|reason| DocTextError::corrupt("PDF", reason))?;
    let outcome = std::thread::scope(|scope| {
        let reader = std::thread::Builder::new()
            .name("pdf-text".to_string())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || catch_unwind(AssertUnwindSafe(|| read(bytes, password))))
            .map_err(|e| DocTextError::corrupt("PDF", format!("cannot start the reader thread: {e}")))?;
        // The reader catches its own panics; a failed join can only be a panic that escaped it.
        reader.join().map_err(|_| DocTextError::corrupt("PDF", "reader failure"))
    })?;
    // Hand a panic on to the caller, which reports it as a reader failure.
    outcome.unwrap_or_else(|panic| resume_unwind(panic))
}

/// Loads, checks and reads the document (on the reader thread).
fn read(bytes: &[u8], password: Option<&str>) -> Result<String, DocTextError> {
    let corrupt = |e: &dyn std::fmt::Display| DocTextError::corrupt("PDF", e);
    // lopdf tries the empty user password first (permission-only encryption opens without one,
    // as in LightRAG), then the given one, and decrypts while loading
    let password = password.filter(|p| !p.is_empty());
    let options = lopdf::LoadOptions::with_password(password.unwrap_or(""));
    let doc = Document::load_mem_with_options(bytes, options).map_err(|e| match e {
        lopdf::Error::InvalidPassword if password.is_none() => {
            DocTextError::corrupt("PDF", "the PDF is encrypted and no password was given; set PDF_DECRYPT_PASSWORD")
        }
        lopdf::Error::InvalidPassword => {
            DocTextError::corrupt("PDF", "wrong PDF_DECRYPT_PASSWORD for this encrypted PDF")
        }
        e => corrupt(&e),
    })?;
    pdf_guard::check(&doc).map_err(|reason| corrupt(&reason))?;
    let mut pages = Vec::new();
    for number in doc.get_pages().into_keys() {
        let mut text = String::new();
        // Stops quietly at the first page that fails, as pdf-extract's own page-by-page reader.
        if output_doc_page(&doc, &mut PlainTextOutput::new(&mut text), number).is_err() {
            break;
        }
        pages.push(strip_marks(&text).into_owned());
    }
    crate::pdf_clean::clean_pages(&mut pages);
    // each page's text starts with a page mark
    let text = pages.iter().map(|p| format!("{PAGE_MARK}{p}")).collect::<Vec<_>>().join("\n\n");
    if strip_marks(&text).trim().is_empty() {
        // Reading the whole document tells a broken page (an error) from a page without text.
        let mut text = String::new();
        output_doc(&doc, &mut PlainTextOutput::new(&mut text)).map_err(|e| corrupt(&e))?;
        return Ok(strip_marks(&text).into_owned());
    }
    Ok(text)
}
