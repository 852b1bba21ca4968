//! Builders of small, valid documents of every binary format this crate reads, for tests here
//! and in the crates that use it (feature `testing`). Nothing is checked in as a binary file: the
//! documents are written from minimal hand-made parts.

use std::io::{Cursor, Write};

use quick_xml::escape::escape;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

/// A zip archive holding `entries` (name, content), deflated; a `mimetype` entry is stored
/// uncompressed, as OpenDocument and EPUB want it.
///
/// # Panics
/// Never for in-memory output (writing to a `Vec` cannot fail).
#[allow(clippy::expect_used)]
pub fn zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    for (name, content) in entries {
        let method = if *name == "mimetype" { CompressionMethod::Stored } else { CompressionMethod::Deflated };
        writer.start_file(*name, SimpleFileOptions::default().compression_method(method)).expect("zip entry");
        writer.write_all(content).expect("zip write");
    }
    writer.finish().expect("zip finish").into_inner()
}

const WORD_NS: &str = "xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"";

/// A `.docx` with one paragraph per entry of `paragraphs`, then (when `table` is not empty) a
/// table with one row per entry and one cell per string.
pub fn docx(paragraphs: &[&str], table: &[&[&str]]) -> Vec<u8> {
    let mut body = String::new();
    for p in paragraphs {
        body.push_str(&format!(
            "<w:p><w:pPr><w:tabs><w:tab w:val=\"left\" w:pos=\"720\"/></w:tabs></w:pPr>\
             <w:r><w:rPr><w:b/></w:rPr><w:t xml:space=\"preserve\">{}</w:t></w:r></w:p>",
            escape(*p)
        ));
    }
    if !table.is_empty() {
        body.push_str("<w:tbl><w:tblPr/>");
        for row in table {
            body.push_str("<w:tr>");
            for cell in *row {
                body.push_str(&format!("<w:tc><w:p><w:r><w:t>{}</w:t></w:r></w:p></w:tc>", escape(*cell)));
            }
            body.push_str("</w:tr>");
        }
        body.push_str("</w:tbl>");
    }
    let document = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n\
         <w:document {WORD_NS}><w:body>{body}<w:sectPr/></w:body></w:document>"
    );
    zip(&[
        ("[Content_Types].xml", CONTENT_TYPES.as_bytes()),
        ("_rels/.rels", b"<?xml version=\"1.0\"?><Relationships/>"),
        ("word/document.xml", document.as_bytes()),
    ])
}

/// A `.docx` with one paragraph per `(style, text)`: a style such as `Heading1`, `Title` or
/// `Normal` (an empty style gives a paragraph without one).
pub fn docx_styled(paragraphs: &[(&str, &str)]) -> Vec<u8> {
    let body: String = paragraphs
        .iter()
        .map(|(style, text)| {
            let props = if style.is_empty() {
                String::new()
            } else {
                format!("<w:pPr><w:pStyle w:val=\"{}\"/></w:pPr>", escape(*style))
            };
            format!("<w:p>{props}<w:r><w:t xml:space=\"preserve\">{}</w:t></w:r></w:p>", escape(*text))
        })
        .collect();
    let document = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n\
         <w:document {WORD_NS}><w:body>{body}<w:sectPr/></w:body></w:document>"
    );
    zip(&[
        ("[Content_Types].xml", CONTENT_TYPES.as_bytes()),
        ("_rels/.rels", b"<?xml version=\"1.0\"?><Relationships/>"),
        ("word/document.xml", document.as_bytes()),
    ])
}

/// A `.pptx` with one slide per `(title, paragraphs)`: the title in a title placeholder
/// (`<p:ph type="title"/>`), the paragraphs in a body shape.
pub fn pptx_titled(slides: &[(&str, &[&str])]) -> Vec<u8> {
    let parts: Vec<(String, String)> = slides
        .iter()
        .enumerate()
        .map(|(i, (title, paragraphs))| {
            let paras: String =
                paragraphs.iter().map(|p| format!("<a:p><a:r><a:t>{}</a:t></a:r></a:p>", escape(*p))).collect();
            let xml = format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
                 <p:sld xmlns:a=\"http://schemas.openxmlformats.org/drawingml/2006/main\" \
                 xmlns:p=\"http://schemas.openxmlformats.org/presentationml/2006/main\"><p:cSld><p:spTree>\
                 <p:sp><p:nvSpPr><p:cNvPr id=\"2\" name=\"Title\"/><p:cNvSpPr/><p:nvPr><p:ph type=\"title\"/></p:nvPr></p:nvSpPr>\
                 <p:txBody><a:bodyPr/><a:p><a:r><a:t>{}</a:t></a:r></a:p></p:txBody></p:sp>\
                 <p:sp><p:nvSpPr><p:cNvPr id=\"3\" name=\"Body\"/><p:cNvSpPr/><p:nvPr><p:ph idx=\"1\"/></p:nvPr></p:nvSpPr>\
                 <p:txBody><a:bodyPr/>{paras}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>",
                escape(*title)
            );
            (format!("ppt/slides/slide{}.xml", i + 1), xml)
        })
        .collect();
    let mut entries: Vec<(&str, &[u8])> = vec![
        ("[Content_Types].xml", CONTENT_TYPES.as_bytes()),
        ("ppt/presentation.xml", b"<?xml version=\"1.0\"?><p:presentation xmlns:p=\"urn:p\"/>"),
    ];
    entries.extend(parts.iter().map(|(name, xml)| (name.as_str(), xml.as_bytes())));
    zip(&entries)
}

const CONTENT_TYPES: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">\
<Default Extension=\"xml\" ContentType=\"application/xml\"/></Types>";

/// A `.pptx` with one slide per entry of `slides`, each holding one text paragraph per string.
/// Slides are stored out of order in the archive (slide 10 before slide 2, …) so that readers
/// must sort them by number.
pub fn pptx(slides: &[&[&str]]) -> Vec<u8> {
    let parts: Vec<(String, String)> = slides
        .iter()
        .enumerate()
        .map(|(i, paragraphs)| {
            let paras: String = paragraphs
                .iter()
                .map(|p| {
                    format!("<a:p><a:pPr lvl=\"0\"/><a:r><a:rPr lang=\"en-US\"/><a:t>{}</a:t></a:r></a:p>", escape(*p))
                })
                .collect();
            let xml = format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
                 <p:sld xmlns:a=\"http://schemas.openxmlformats.org/drawingml/2006/main\" \
                 xmlns:p=\"http://schemas.openxmlformats.org/presentationml/2006/main\"><p:cSld><p:spTree>\
                 <p:sp><p:txBody><a:bodyPr/>{paras}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>"
            );
            (format!("ppt/slides/slide{}.xml", i + 1), xml)
        })
        .collect();
    let mut entries: Vec<(&str, &[u8])> = vec![
        ("[Content_Types].xml", CONTENT_TYPES.as_bytes()),
        ("ppt/presentation.xml", b"<?xml version=\"1.0\"?><p:presentation xmlns:p=\"urn:p\"/>"),
    ];
    let mut ordered: Vec<&(String, String)> = parts.iter().collect();
    ordered.sort_by(|a, b| a.0.cmp(&b.0));
    entries.extend(ordered.into_iter().map(|(name, xml)| (name.as_str(), xml.as_bytes())));
    zip(&entries)
}

/// An `.odt` whose first string is a heading and the others paragraphs.
pub fn odt(heading: &str, paragraphs: &[&str]) -> Vec<u8> {
    let mut body = format!("<text:h text:outline-level=\"1\">{}</text:h>", escape(heading));
    for p in paragraphs {
        body.push_str(&format!("<text:p text:style-name=\"P1\">{}</text:p>", escape(*p)));
    }
    let content = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
         <office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
         xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" office:version=\"1.2\">\
         <office:automatic-styles><style:style xmlns:style=\"urn:style\"><text:p>not text</text:p></style:style>\
         </office:automatic-styles><office:body><office:text>{body}</office:text></office:body>\
         </office:document-content>"
    );
    zip(&[("mimetype", b"application/vnd.oasis.opendocument.text"), ("content.xml", content.as_bytes())])
}

/// An `.epub` with one XHTML chapter per (title, paragraph) pair. The chapters' file names sort
/// in the reverse of the reading order, so only a reader that follows the spine gets the order
/// right.
pub fn epub(chapters: &[(&str, &str)]) -> Vec<u8> {
    let count = chapters.len();
    let files: Vec<(String, String)> = chapters
        .iter()
        .enumerate()
        .map(|(i, (title, text))| {
            let xhtml = format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><html xmlns=\"http://www.w3.org/1999/xhtml\">\
                 <head><title>{t}</title><style>p {{ color: red; }}</style></head>\
                 <body><h1>{t}</h1><p>{p}</p></body></html>",
                t = escape(*title),
                p = escape(*text)
            );
            (format!("OEBPS/text/part{:02}.xhtml", count - i), xhtml)
        })
        .collect();
    let manifest: String = files
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            let href = name.trim_start_matches("OEBPS/");
            format!("<item id=\"c{i}\" href=\"{href}\" media-type=\"application/xhtml+xml\"/>")
        })
        .collect();
    let spine: String = (0..count).map(|i| format!("<itemref idref=\"c{i}\"/>")).collect();
    let opf = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
         <package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\"><metadata/>\
         <manifest>{manifest}</manifest><spine>{spine}</spine></package>"
    );
    let container = "<?xml version=\"1.0\"?><container version=\"1.0\" \
        xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\"><rootfiles>\
        <rootfile full-path=\"OEBPS/content.opf\" media-type=\"application/oebps-package+xml\"/>\
        </rootfiles></container>";
    let mut entries: Vec<(&str, &[u8])> = vec![
        ("mimetype", b"application/epub+zip"),
        ("META-INF/container.xml", container.as_bytes()),
        ("OEBPS/content.opf", opf.as_bytes()),
    ];
    entries.extend(files.iter().map(|(name, xml)| (name.as_str(), xml.as_bytes())));
    zip(&entries)
}

/// An `.xlsx` with one sheet per (name, rows); cells that parse as numbers are stored as numbers,
/// the others as inline strings.
pub fn xlsx(sheets: &[(&str, &[&[&str]])]) -> Vec<u8> {
    let mut sheet_data = Vec::new();
    for (name, rows) in sheets {
        let mut data = String::new();
        for (r, row) in rows.iter().enumerate() {
            data.push_str(&format!("<row r=\"{}\">", r + 1));
            for (c, value) in row.iter().enumerate() {
                let reference = format!("{}{}", char::from(b'A' + (c % 26) as u8), r + 1);
                if value.parse::<f64>().is_ok() {
                    data.push_str(&format!("<c r=\"{reference}\"><v>{value}</v></c>"));
                } else {
                    data.push_str(&format!(
                        "<c r=\"{reference}\" t=\"inlineStr\"><is><t>{}</t></is></c>",
                        escape(*value)
                    ));
                }
            }
            data.push_str("</row>");
        }
        sheet_data.push((*name, data));
    }
    let refs: Vec<(&str, &str)> = sheet_data.iter().map(|(n, d)| (*n, d.as_str())).collect();
    xlsx_raw(&refs, &[])
}

/// An `.xlsx` with one sheet per (name, content of its `<sheetData>` element, written as is),
/// plus `extra` parts (for example `xl/sharedStrings.xml`).
pub fn xlsx_raw(sheets: &[(&str, &str)], extra: &[(&str, &[u8])]) -> Vec<u8> {
    let mut sheet_list = String::new();
    let mut rels = String::new();
    let mut sheet_parts = Vec::new();
    for (i, (name, data)) in sheets.iter().enumerate() {
        let n = i + 1;
        sheet_list.push_str(&format!("<sheet name=\"{}\" sheetId=\"{n}\" r:id=\"rId{n}\"/>", escape(*name)));
        rels.push_str(&format!(
            "<Relationship Id=\"rId{n}\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" Target=\"worksheets/sheet{n}.xml\"/>"
        ));
        sheet_parts.push((
            format!("xl/worksheets/sheet{n}.xml"),
            format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
                 <worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">\
                 <sheetData>{data}</sheetData></worksheet>"
            ),
        ));
    }
    let workbook = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
         <workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" \
         xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\">\
         <sheets>{sheet_list}</sheets></workbook>"
    );
    let workbook_rels = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
         <Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">{rels}</Relationships>"
    );
    let content_types = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
        <Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">\
        <Default Extension=\"xml\" ContentType=\"application/xml\"/>\
        <Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>\
        <Override PartName=\"/xl/workbook.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/>\
        </Types>";
    let root_rels = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
        <Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\
        <Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument\" Target=\"xl/workbook.xml\"/>\
        </Relationships>";
    let mut entries: Vec<(&str, &[u8])> = vec![
        ("[Content_Types].xml", content_types.as_bytes()),
        ("_rels/.rels", root_rels.as_bytes()),
        ("xl/workbook.xml", workbook.as_bytes()),
        ("xl/_rels/workbook.xml.rels", workbook_rels.as_bytes()),
    ];
    entries.extend(sheet_parts.iter().map(|(name, xml)| (name.as_str(), xml.as_bytes())));
    entries.extend_from_slice(extra);
    zip(&entries)
}

/// A PDF with one page per entry of `pages`, each line of an entry on a line of its own (top to
/// bottom, 14 points apart).
pub fn pdf_lines(pages: &[&[&str]]) -> Vec<u8> {
    let page_count = pages.len();
    let kids: Vec<String> = (0..page_count).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        format!("<< /Type /Pages /Kids [{}] /Count {page_count} >>", kids.join(" ")),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_string(),
    ];
    for (i, lines) in pages.iter().enumerate() {
        let mut content = String::from("BT /F1 12 Tf 72 740 Td");
        for (n, line) in lines.iter().enumerate() {
            if n > 0 {
                content.push_str(" 0 -14 Td");
            }
            let escaped = line.replace('\\', "\\\\").replace('(', "\\(").replace(')', "\\)");
            content.push_str(&format!(" ({escaped}) Tj"));
        }
        content.push_str(" ET");
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
            5 + 2 * i
        ));
        objects.push(pdf_stream("", &content));
    }
    pdf_objects(&objects)
}

/// A PDF with one page per string, each showing that line in Helvetica; the cross-reference
/// table's offsets are computed, so the file is valid as written.
pub fn pdf(pages: &[&str]) -> Vec<u8> {
    let page_count = pages.len();
    let kids: Vec<String> = (0..page_count).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        format!("<< /Type /Pages /Kids [{}] /Count {page_count} >>", kids.join(" ")),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_string(),
    ];
    for (i, line) in pages.iter().enumerate() {
        let escaped = line.replace('\\', "\\\\").replace('(', "\\(").replace(')', "\\)");
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
            5 + 2 * i
        ));
        objects.push(pdf_stream("", &format!("BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET")));
    }
    pdf_objects(&objects)
}

/// A PDF made of `objects` (the bodies of objects `1 0 obj`, `2 0 obj`, … in order; object 1 is
/// the catalog), with a computed cross-reference table.
pub fn pdf_objects(objects: &[String]) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1).as_bytes(),
    );
    out
}

/// [`pdf`] of one page showing `text`, encrypted (RC4, 128 bits) with `user` as its user
/// password (`""`: opens without one) — what `PDF_DECRYPT_PASSWORD` is for.
///
/// # Panics
/// Never for the PDF [`pdf`] writes (lopdf reads and encrypts it in memory).
#[allow(clippy::expect_used)]
pub fn encrypted_pdf(text: &str, user: &str) -> Vec<u8> {
    use lopdf::{EncryptionState, EncryptionVersion, Object, Permissions};
    let mut doc = lopdf::Document::load_mem(&pdf(&[text])).expect("the PDF written by `pdf` loads");
    doc.trailer.set("ID", Object::Array(vec![Object::string_literal("0123456789abcdef"); 2]));
    let version = EncryptionVersion::V2 {
        document: &doc,
        owner_password: "owner-secret",
        user_password: user,
        key_length: 128,
        permissions: Permissions::all(),
    };
    let state = EncryptionState::try_from(version).expect("RC4 128-bit encryption state");
    doc.encrypt(&state).expect("the PDF encrypts");
    let mut out = Vec::new();
    doc.save_to(&mut out).expect("writing to a Vec cannot fail");
    out
}

/// The body of a PDF stream object holding `content` uncompressed; `dict` holds extra dictionary
/// entries (for example `/Type /XObject /Subtype /Form /BBox [0 0 612 792]`).
pub fn pdf_stream(dict: &str, content: &str) -> String {
    format!("<< {dict} /Length {} >>\nstream\n{content}\nendstream", content.len())
}

/// An `.ods` with one sheet per (name, rows); cells that parse as numbers are stored as floats.
pub fn ods(sheets: &[(&str, &[&[&str]])]) -> Vec<u8> {
    let mut tables = String::new();
    for (name, rows) in sheets {
        tables.push_str(&format!("<table:table table:name=\"{}\">", escape(*name)));
        for row in *rows {
            tables.push_str("<table:table-row>");
            for value in *row {
                if value.parse::<f64>().is_ok() {
                    tables.push_str(&format!(
                        "<table:table-cell office:value-type=\"float\" office:value=\"{value}\"><text:p>{value}</text:p></table:table-cell>"
                    ));
                } else {
                    tables.push_str(&format!(
                        "<table:table-cell office:value-type=\"string\"><text:p>{}</text:p></table:table-cell>",
                        escape(*value)
                    ));
                }
            }
            tables.push_str("</table:table-row>");
        }
        tables.push_str("</table:table>");
    }
    let content = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
         <office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
         xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" \
         xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" office:version=\"1.2\">\
         <office:body><office:spreadsheet>{tables}</office:spreadsheet></office:body></office:document-content>"
    );
    let manifest = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
        <manifest:manifest xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\" manifest:version=\"1.2\">\
        <manifest:file-entry manifest:full-path=\"/\" manifest:media-type=\"application/vnd.oasis.opendocument.spreadsheet\"/>\
        <manifest:file-entry manifest:full-path=\"content.xml\" manifest:media-type=\"text/xml\"/></manifest:manifest>";
    zip(&[
        ("mimetype", b"application/vnd.oasis.opendocument.spreadsheet"),
        ("META-INF/manifest.xml", manifest.as_bytes()),
        ("content.xml", content.as_bytes()),
    ])
}
