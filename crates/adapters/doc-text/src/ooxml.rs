//! Office Open XML: Word (`.docx`) and PowerPoint (`.pptx`) files.

use crate::DocTextError;
use crate::structure::PAGE_MARK;
use crate::xml::{HeadingRule, Rules, append_text};
use crate::zipped::ZipDoc;

/// WordprocessingML: runs of `w:t`, paragraphs `w:p`, tables `w:tr`/`w:tc`. Properties, field
/// codes, deleted text and the fallback copies of alternate content are skipped.
const WORD: Rules = Rules {
    text: &["w:t"],
    paragraph: &["w:p"],
    tab: &["w:tab", "w:ptab"],
    line_break: &["w:br", "w:cr"],
    space: &[],
    space_count: "",
    cell: &["w:tc"],
    row: &["w:tr"],
    skip: &["w:pPr", "w:rPr", "w:tblPr", "w:sectPr", "w:instrText", "w:delText", "mc:Fallback"],
    heading: Some(HeadingRule { element: "w:pStyle", attribute: "w:val", level: word_heading_level }),
};

/// The heading level of a Word paragraph style: `Heading1`…`Heading9` (and `heading 1`, as some
/// writers name them), `Title` as level 1; other styles are not headings.
fn word_heading_level(style: &str) -> Option<u8> {
    let style = style.trim();
    if style.eq_ignore_ascii_case("title") {
        return Some(1);
    }
    let lower = style.to_ascii_lowercase();
    let digits = lower.strip_prefix("heading")?.trim_start();
    let level: u8 = digits.parse().ok()?;
    (1..=9).contains(&level).then_some(level)
}

/// A slide title placeholder (`<p:ph type="title"/>` or `ctrTitle`) heads its slide.
fn slide_title_level(kind: &str) -> Option<u8> {
    matches!(kind.trim(), "title" | "ctrTitle").then_some(1)
}

/// DrawingML text as found on slides: runs of `a:t`, paragraphs `a:p`, tables `a:tr`/`a:tc`.
const SLIDE: Rules = Rules {
    text: &["a:t"],
    paragraph: &["a:p"],
    tab: &[],
    line_break: &["a:br"],
    space: &[],
    space_count: "",
    cell: &["a:tc"],
    row: &["a:tr"],
    skip: &["a:pPr", "a:rPr", "a:endParaRPr", "mc:Fallback"],
    heading: Some(HeadingRule { element: "p:ph", attribute: "type", level: slide_title_level }),
};

/// The text of the main document part of a `.docx` file.
pub(crate) fn extract_docx(bytes: &[u8]) -> Result<String, DocTextError> {
    let mut zip = ZipDoc::open("DOCX", bytes)?;
    let part = "word/document.xml";
    let xml = zip.require_text(part)?;
    let mut out = String::new();
    append_text("DOCX", part, &xml, &WORD, &mut out)?;
    Ok(out)
}

/// The text of the slides of a `.pptx` file, in slide-number order, a blank line between slides.
pub(crate) fn extract_pptx(bytes: &[u8]) -> Result<String, DocTextError> {
    let mut zip = ZipDoc::open("PPTX", bytes)?;
    let mut slides: Vec<(u32, String)> = zip
        .names()
        .into_iter()
        .filter_map(|name| {
            let number = name.strip_prefix("ppt/slides/slide")?.strip_suffix(".xml")?.parse().ok()?;
            Some((number, name))
        })
        .collect();
    if slides.is_empty() && zip.read("ppt/presentation.xml")?.is_none() {
        return Err(DocTextError::corrupt("PPTX", "no presentation part (ppt/presentation.xml) in the archive"));
    }
    slides.sort();
    let mut out = String::new();
    for (_, part) in slides {
        let xml = zip.require_text(&part)?;
        // each slide is a page of the document
        out.push(PAGE_MARK);
        append_text("PPTX", &part, &xml, &SLIDE, &mut out)?;
        out.push_str("\n\n");
    }
    Ok(out)
}
