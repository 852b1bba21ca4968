//! # lightrag-doc-text
//!
//! Plain text out of the document formats users upload, chosen by the file's extension:
//!
//! | family | extensions | how |
//! |---|---|---|
//! | plain text | `txt md mdx tex xml yaml yml log conf ini properties sql bat sh c h cpp hpp py java js ts swift go rb php css scss less` | UTF-8 (BOM dropped) or UTF-16 with a BOM |
//! | CSV, JSON | `csv json` | kept as written; must be UTF-8, JSON must parse |
//! | HTML | `html htm` | rendered to text (`html2text`), scripts and styles dropped |
//! | PDF | `pdf` | the text layer (`pdf-extract`), running headers and footers dropped, words hyphenated at line ends joined; scanned PDFs have none (no OCR) |
//! | Word, PowerPoint | `docx pptx` | paragraphs, table cells and slides from the Office Open XML parts |
//! | spreadsheets | `xlsx ods` | one `[Sheet]` block per sheet, cells tab-separated (`calamine`'s cell reader; `ods` by a built-in reader) |
//! | OpenDocument text | `odt` | paragraphs and headings of `content.xml` |
//! | e-books | `epub` | the chapters in reading (spine) order |
//! | RTF | `rtf` | the body text (a small built-in reader; `\'hh` bytes read as Windows-1252) |
//!
//! Legacy `.doc`/`.ppt`/`.xls` files and images are not read.
//!
//! [`extract_document`] also gives the text's [`Structure`] — where each page starts (PDF pages,
//! PPTX slides) and where its headings are (DOCX heading styles, ODT headings, HTML/EPUB `<h1>`–`<h6>`,
//! Markdown `#` lines, slide titles, sheet names), as byte offsets into the text — so that a passage
//! can be cited by page and section (issue 31).
//! Everything works from memory (no temporary files). Extraction is CPU-bound and blocking:
//! async callers should run it on a blocking thread.
//!
//! ## Hostile files
//!
//! Uploads come from users, so a file must not be able to take the process down (an allocation
//! failure or a stack overflow aborts it; `catch_unwind` cannot help) or keep a thread busy for
//! hours. What is refused, as [`DocTextError::Corrupt`] with the reason, and why:
//!
//! - **zip bombs**: a DOCX, PPTX, ODT, ODS, EPUB or XLSX that unpacks to more than
//!   [`MAX_UNPACKED_BYTES`].
//! - **huge spreadsheets**: an XLSX or ODS sheet of more than [`MAX_SHEET_CELLS`] cells, or
//!   workbook cells holding more than [`MAX_UNPACKED_BYTES`] of text (many cells can share one
//!   long string). Cells are read one at a time and laid out sparsely, so a tiny file with cells
//!   at `A1` and `XFD1048576` reads as two cells instead of asking for a 17-billion-cell grid,
//!   and ODS runs of repeated empty cells or rows cost nothing. An XLSX shared-string table that
//!   declares more strings than it can hold is refused too (`calamine` reserves room for the
//!   declared count up front). `.xls` is not supported because its reader always builds a dense
//!   grid.
//! - **self-drawing PDFs**: `pdf-extract` draws form XObjects recursively without a limit, so a
//!   form that draws itself overflows the stack. Before it runs, the document's drawings are
//!   walked with `lopdf`; a form that draws itself, forms nested more than 32 deep, more than
//!   100,000 form drawings in all, or a page tree whose `/Parent` links loop or run deeper than
//!   64 levels are refused. The PDF is then read on a thread with a 64 MiB stack.
//! - **deeply nested HTML** (also EPUB chapters): the renderer is quadratic in the nesting
//!   depth, so elements nested more than 512 deep are refused after a cheap linear scan. Void
//!   elements (`<br>`, `<img>`, …) and elements HTML closes by itself (an unclosed `<p>`,
//!   `<li>`, `<td>`, …) do not count, so ordinary sloppy HTML passes; formatting elements left
//!   open (`<b>`, `<font>`, …) do, as HTML reopens them in every following paragraph, and so
//!   does `<div/>`, which HTML reads as an open `div`.
//! - **deeply nested RTF**: groups nested more than 1,024 deep (the reader keeps a stack of
//!   them).
//! - **PDF compression bombs**: before `lopdf` loads the file, its `/FlateDecode` streams
//!   (images excepted) are inflated into nothing; more than 256 MiB in all is refused.
//! - **text out of all proportion**: a compressed format (everything but plain text) whose text
//!   is more than [`MAX_TEXT_RATIO`] times the file (at least [`MIN_TEXT_ALLOWANCE`], at most
//!   [`MAX_TEXT_BYTES`]) is refused, so one small upload cannot cost millions of LLM tokens.
//! - **a reader panic** on a malformed file is contained and reported as corrupt.
//!
//! The XML parts of DOCX, PPTX, ODT and ODS are read with a streaming reader that keeps counters,
//! not a tree, so nesting costs nothing; an EPUB spine that lists a chapter twice reads it once.
//!
//! ```
//! let text = lightrag_doc_text::extract_text("notes.md", b"# Title\nBody").unwrap();
//! assert_eq!(text, "# Title\nBody");
//! assert!(lightrag_doc_text::is_supported("Report.PDF"));
//! assert!(lightrag_doc_text::extract_text("tool.exe", b"MZ").is_err());
//! ```

mod epub;
mod error;
mod html;
mod html_depth;
mod odf;
mod ods;
mod ooxml;
mod pdf;
mod pdf_clean;
mod pdf_guard;
mod pdf_inflate;
mod rtf;
mod sheet;
mod structure;
mod text;
mod xml;
mod zipped;

#[cfg(feature = "testing")]
pub mod testing;

use std::panic::{AssertUnwindSafe, catch_unwind};

pub use error::DocTextError;
pub use structure::{Heading, MAX_TITLE_CHARS, Structure};
pub use text::extract_plain_text;

/// A document's text and its [`Structure`] (pages, headings), as [`extract_document`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// The text, exactly what [`extract_text_with`] gives.
    pub text: String,
    /// Where its pages start and where its headings are (byte offsets into `text`).
    pub structure: Structure,
}

/// The extensions [`extract_text`] reads (lower case, without the dot): LightRAG's upload list
/// plus OpenDocument spreadsheets (`ods`). Legacy Excel (`xls`) is not read: the reader available
/// for it builds a dense grid over the cells' bounding box, which a small hostile file can make
/// huge.
#[rustfmt::skip]
pub const SUPPORTED_EXTENSIONS: &[&str] = &[
    // documents
    "pdf", "docx", "pptx", "xlsx", "ods", "odt", "rtf", "epub", "html", "htm",
    // data, kept as written
    "csv", "json",
    // plain text, kept as written
    "txt", "md", "mdx", "tex", "xml", "yaml", "yml", "log", "conf", "ini", "properties", "sql", "bat", "sh", "c", "h",
    "cpp", "hpp", "py", "java", "js", "ts", "swift", "go", "rb", "php", "css", "scss", "less",
];

/// The most bytes read out of one zip-based file (DOCX, PPTX, ODT, EPUB, XLSX, ODS) once
/// unpacked; a file that unpacks to more is refused as corrupt (zip-bomb guard).
pub const MAX_UNPACKED_BYTES: u64 = 200 * 1024 * 1024;

/// How many times its own size the text of a compressed format (everything but plain text) may
/// be: a 60 KiB DOCX that unpacks to 20 MiB of text would otherwise send ~5M tokens to the
/// extraction LLM from one upload. Ordinary documents stay far below (text is a few times the
/// size of a DOCX and smaller than a PDF).
pub const MAX_TEXT_RATIO: usize = 50;
/// A compressed file's text may always be this long, whatever its size.
pub const MIN_TEXT_ALLOWANCE: usize = 4 << 20;
/// No compressed file's text may be longer.
pub const MAX_TEXT_BYTES: usize = 64 << 20;

/// The longest text a compressed file of `file_bytes` bytes may give.
pub fn max_text_bytes(file_bytes: usize) -> usize {
    file_bytes.saturating_mul(MAX_TEXT_RATIO).clamp(MIN_TEXT_ALLOWANCE, MAX_TEXT_BYTES)
}

/// The most cells read from one sheet of an `.xlsx` or `.ods` workbook; a sheet with more is
/// refused as corrupt. Cells are read one by one (never as a dense grid), so memory follows the
/// cells that are present, not the sheet's dimensions; all the cells of a workbook together may
/// hold at most [`MAX_UNPACKED_BYTES`] of text.
pub const MAX_SHEET_CELLS: usize = 5_000_000;

/// How a file is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Text,
    Csv,
    Json,
    Html,
    Pdf,
    Docx,
    Pptx,
    Xlsx,
    Ods,
    Odt,
    Epub,
    Rtf,
}

impl Kind {
    fn of(extension: &str) -> Option<Kind> {
        if !SUPPORTED_EXTENSIONS.contains(&extension) {
            return None;
        }
        Some(match extension {
            "csv" => Kind::Csv,
            "json" => Kind::Json,
            "html" | "htm" => Kind::Html,
            "pdf" => Kind::Pdf,
            "docx" => Kind::Docx,
            "pptx" => Kind::Pptx,
            "xlsx" => Kind::Xlsx,
            "ods" => Kind::Ods,
            "odt" => Kind::Odt,
            "epub" => Kind::Epub,
            "rtf" => Kind::Rtf,
            _ => Kind::Text,
        })
    }

    /// The format's name in messages.
    fn label(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Csv => "CSV",
            Kind::Json => "JSON",
            Kind::Html => "HTML",
            Kind::Pdf => "PDF",
            Kind::Docx => "DOCX",
            Kind::Pptx => "PPTX",
            Kind::Xlsx => "XLSX",
            Kind::Ods => "ODS",
            Kind::Odt => "ODT",
            Kind::Epub => "EPUB",
            Kind::Rtf => "RTF",
        }
    }

    /// Whether the text is kept exactly as the file has it (no whitespace tidying).
    fn verbatim(self) -> bool {
        matches!(self, Kind::Text | Kind::Csv | Kind::Json)
    }

    fn read(self, bytes: &[u8], options: &ExtractOptions) -> Result<String, DocTextError> {
        match self {
            Kind::Text | Kind::Csv => text::extract_plain_text(bytes),
            Kind::Json => text::extract_json(bytes),
            Kind::Html => html::extract(bytes),
            Kind::Pdf => pdf::extract(bytes, options.pdf_password.as_deref()),
            Kind::Docx => ooxml::extract_docx(bytes),
            Kind::Pptx => ooxml::extract_pptx(bytes),
            Kind::Xlsx => sheet::extract(bytes),
            Kind::Ods => ods::extract(bytes),
            Kind::Odt => odf::extract_odt(bytes),
            Kind::Epub => epub::extract(bytes),
            // RTF marks no structure: marks in its text are the file's own
            Kind::Rtf => rtf::extract(bytes).map(|t| structure::strip_marks(&t).into_owned()),
        }
    }
}

/// The lower-case extension of a file name (without the dot), or `""` when it has none.
fn extension_of(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or_default();
    match base.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => ext.to_ascii_lowercase(),
        _ => String::new(),
    }
}

/// Whether [`extract_text`] reads files with this name's extension (case-insensitive).
pub fn is_supported(file_name: &str) -> bool {
    Kind::of(&extension_of(file_name)).is_some()
}

/// The text of a file, read according to its name's extension (case-insensitive; see the crate
/// docs for what each format gives).
///
/// Plain text, CSV and JSON come back as written (a byte-order mark removed); text extracted from
/// the other formats has its line ends trimmed and runs of blank lines collapsed.
///
/// # Errors
/// [`DocTextError::Unsupported`] for an extension not in [`SUPPORTED_EXTENSIONS`],
/// [`DocTextError::Corrupt`] when the bytes are not a readable file of that format (including a
/// reader panic, a zip that unpacks beyond [`MAX_UNPACKED_BYTES`], and the hostile shapes listed
/// in the crate docs), [`DocTextError::NotUtf8`]
/// for text that is not UTF-8/UTF-16, and [`DocTextError::Empty`] when no text is found.
pub fn extract_text(file_name: &str, bytes: &[u8]) -> Result<String, DocTextError> {
    extract_text_with(file_name, bytes, &ExtractOptions::default())
}

/// How files are read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExtractOptions {
    /// The password of encrypted PDFs (LightRAG's `PDF_DECRYPT_PASSWORD`); PDFs encrypted with an
    /// empty user password open without it.
    pub pdf_password: Option<String>,
}

/// [`extract_text`] with `options` (a PDF password).
///
/// # Errors
/// As [`extract_text`]; an encrypted PDF that opens neither with the empty password nor with
/// `options.pdf_password` is [`DocTextError::Corrupt`], saying which.
pub fn extract_text_with(file_name: &str, bytes: &[u8], options: &ExtractOptions) -> Result<String, DocTextError> {
    extract_document(file_name, bytes, options).map(|d| d.text)
}

/// [`extract_text_with`], and the text's structure: the pages of a PDF (slides of a PPTX); the
/// headings of DOCX (`Heading1`… and `Title` styles), ODT, HTML and EPUB (`<h1>`–`<h6>`),
/// Markdown (`#` lines outside code fences); PPTX slide titles; XLSX and ODS sheet names (level 1).
/// Plain text, CSV, JSON and RTF have none.
///
/// # Errors
/// As [`extract_text_with`].
pub fn extract_document(file_name: &str, bytes: &[u8], options: &ExtractOptions) -> Result<Extracted, DocTextError> {
    let extension = extension_of(file_name);
    let Some(kind) = Kind::of(&extension) else {
        return Err(DocTextError::Unsupported { extension, supported: SUPPORTED_EXTENSIONS });
    };
    let text = match catch_unwind(AssertUnwindSafe(|| kind.read(bytes, options))) {
        Ok(result) => result?,
        Err(panic) => {
            let reason = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the reader gave up".to_string());
            return Err(DocTextError::corrupt(kind.label(), format!("reader failure: {reason}")));
        }
    };
    let (text, structure) = if kind.verbatim() {
        let structure = if matches!(extension.as_str(), "md" | "mdx") {
            structure::Structure::of_markdown(&text)
        } else {
            structure::Structure::default()
        };
        (text, structure)
    } else {
        structure::Structure::take(&text)
    };
    let cap = max_text_bytes(bytes.len());
    if !kind.verbatim() && text.len() > cap {
        return Err(DocTextError::corrupt(
            kind.label(),
            format!(
                "its text is {} bytes from a file of {} bytes, more than the {cap} allowed \
                 ({MAX_TEXT_RATIO} times the file, at least {} MiB, at most {} MiB)",
                text.len(),
                bytes.len(),
                MIN_TEXT_ALLOWANCE >> 20,
                MAX_TEXT_BYTES >> 20
            ),
        ));
    }
    if text.trim().is_empty() {
        return Err(DocTextError::Empty { format: kind.label() });
    }
    Ok(Extracted { text, structure })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_are_case_insensitive_and_need_a_stem() {
        assert_eq!(extension_of("A.Report.PDF"), "pdf");
        assert_eq!(extension_of("dir.d/noext"), "");
        assert_eq!(extension_of(".bashrc"), "");
        assert!(is_supported("x.DOCX"));
        assert!(is_supported("C:\\docs\\a.htm"));
        assert!(is_supported("x.RTF"));
        assert!(!is_supported("x.exe"));
        assert!(!is_supported("Makefile"));
    }

    #[test]
    fn unsupported_names_the_extension_and_the_list() {
        let e = extract_text("tool.EXE", b"MZ").unwrap_err();
        assert!(matches!(&e, DocTextError::Unsupported { extension, .. } if extension == "exe"));
        let msg = e.to_string();
        assert!(msg.contains("'.exe'") && msg.contains("pdf, docx"), "{msg}");
        let msg = extract_text("Makefile", b"all:").unwrap_err().to_string();
        assert!(msg.contains("(no extension)"), "{msg}");
    }

    #[test]
    fn empty_text_is_an_error() {
        assert!(matches!(extract_text("a.txt", b" \n\t"), Err(DocTextError::Empty { format: "text" })));
        let msg = DocTextError::Empty { format: "PDF" }.to_string();
        assert!(msg.contains("OCR is not supported"), "{msg}");
    }
}
