//! HTML (`.html`, `.htm`, and the chapters of EPUB books) rendered to plain text.

use crate::{DocTextError, html_depth};

/// Lines are not wrapped below this width (the text is for indexing, not for a terminal).
const WIDTH: usize = 10_000;

/// The text of an HTML document: block elements on their own lines, tables as rows, scripts and
/// styles dropped, headings marked with `#`, no table borders or link footnotes. Documents nested
/// too deeply for the renderer are refused (see [`crate::html_depth`]).
pub(crate) fn extract(bytes: &[u8]) -> Result<String, DocTextError> {
    render("HTML", bytes)
}

/// [`extract`], naming `format` in errors.
pub(crate) fn render(format: &'static str, bytes: &[u8]) -> Result<String, DocTextError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if html_depth::check(bytes).is_err() {
        let max = html_depth::MAX_DEPTH;
        return Err(DocTextError::corrupt(
            format,
            format!("its elements are nested too deeply (more than {max} inside one another)"),
        ));
    }
    html2text::config::plain_no_decorate()
        .no_table_borders()
        .string_from_read(bytes, WIDTH)
        .map_err(|e| DocTextError::corrupt(format, format!("cannot render the HTML: {e}")))
}
