//! PDF: the text layer, via `pdf-extract` (which may panic on malformed files; the caller
//! contains that). Scanned PDFs have no text layer, and there is no OCR.

use crate::DocTextError;

/// The text of a PDF held in memory, a blank line between pages.
pub(crate) fn extract(bytes: &[u8]) -> Result<String, DocTextError> {
    let head = &bytes[..bytes.len().min(1024)];
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err(DocTextError::corrupt("PDF", "no %PDF- header"));
    }
    let pages = pdf_extract::extract_text_from_mem_by_pages(bytes).map_err(|e| DocTextError::corrupt("PDF", e))?;
    let text = pages.join("\n\n");
    if text.trim().is_empty() {
        // Reading page by page stops quietly at the first page that fails; reading the whole
        // document tells a broken page (an error) from a page without text (no error).
        return pdf_extract::extract_text_from_mem(bytes).map_err(|e| DocTextError::corrupt("PDF", e));
    }
    Ok(text)
}
