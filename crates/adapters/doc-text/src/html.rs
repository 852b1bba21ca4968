//! HTML (`.html`, `.htm`, and the chapters of EPUB books) rendered to plain text.

use crate::structure::heading_mark;
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
    let marked = mark_headings(bytes);
    html2text::config::plain_no_decorate()
        .no_table_borders()
        .string_from_read(marked.as_slice(), WIDTH)
        .map_err(|e| DocTextError::corrupt(format, format!("cannot render the HTML: {e}")))
}

/// The UTF-8 bytes of the structure marks (`U+FDD0`–`U+FDD9`: `EF B7 90`–`EF B7 99`).
fn is_mark_at(bytes: &[u8], i: usize) -> bool {
    bytes.get(i..i + 3).is_some_and(|b| b[0] == 0xEF && b[1] == 0xB7 && (0x90..=0x99).contains(&b[2]))
}

/// `bytes` with a heading mark of level N right after every `<hN …>` start tag (so the rendered
/// heading's line starts with it), and without the marks the file brought itself.
fn mark_headings(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 64);
    let mut i = 0;
    while i < bytes.len() {
        if is_mark_at(bytes, i) {
            i += 3;
            continue;
        }
        let b = bytes[i];
        out.push(b);
        i += 1;
        if b != b'<' {
            continue;
        }
        let level = match (bytes.get(i), bytes.get(i + 1), bytes.get(i + 2)) {
            (Some(h), Some(d @ b'1'..=b'6'), Some(after))
                if h.eq_ignore_ascii_case(&b'h') && (after.is_ascii_whitespace() || matches!(after, b'>' | b'/')) =>
            {
                d - b'0'
            }
            _ => continue,
        };
        let Some(end) = bytes[i..].iter().position(|&c| c == b'>') else { continue };
        out.extend_from_slice(&bytes[i..i + end + 1]);
        i += end + 1;
        let mut mark = [0u8; 4];
        out.extend_from_slice(heading_mark(level).encode_utf8(&mut mark).as_bytes());
    }
    out
}
