//! Office Open XML: Word (`.docx`) and PowerPoint (`.pptx`) files.

use crate::DocTextError;
use crate::xml::{Rules, append_text};
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
};

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
        append_text("PPTX", &part, &xml, &SLIDE, &mut out)?;
        out.push_str("\n\n");
    }
    Ok(out)
}
