//! OpenDocument text (`.odt`). OpenDocument spreadsheets (`.ods`) are not read (see the crate docs).

use crate::DocTextError;
use crate::xml::{HeadingRule, Rules, append_text};
use crate::zipped::ZipDoc;

/// Paragraphs and headings of `content.xml`, with tables as rows of tab-separated cells.
const CONTENT: Rules = Rules {
    text: &["text:p", "text:h"],
    paragraph: &["text:p", "text:h"],
    tab: &["text:tab"],
    line_break: &["text:line-break"],
    space: &["text:s"],
    space_count: "text:c",
    cell: &["table:table-cell"],
    row: &["table:table-row"],
    skip: &["office:annotation", "text:tracked-changes", "office:automatic-styles", "office:font-face-decls"],
    heading: Some(HeadingRule { element: "text:h", attribute: "text:outline-level", level: outline_level }),
};

/// `text:outline-level="2"` → 2 (a heading without a level is level 1).
fn outline_level(value: &str) -> Option<u8> {
    Some(value.trim().parse::<u8>().unwrap_or(1).clamp(1, 9))
}

/// The text of the `content.xml` part of an `.odt` file.
pub(crate) fn extract_odt(bytes: &[u8]) -> Result<String, DocTextError> {
    let mut zip = ZipDoc::open("ODT", bytes)?;
    let part = "content.xml";
    let xml = zip.require_text(part)?;
    let mut out = String::new();
    append_text("ODT", part, &xml, &CONTENT, &mut out)?;
    Ok(out)
}
