//! Small hostile files that used to abort the process (allocation failure, stack overflow) or
//! keep a thread busy for minutes: each must now give its text or a clear error, quickly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use lightrag_doc_text::testing::{self, pdf_objects, pdf_stream};
use lightrag_doc_text::{DocTextError, MAX_SHEET_CELLS, extract_text};

/// Runs `extract_text`, failing the test when it takes longer than `limit`.
fn timed(name: &str, bytes: &[u8], limit: Duration) -> Result<String, DocTextError> {
    let started = Instant::now();
    let result = extract_text(name, bytes);
    let took = started.elapsed();
    eprintln!("{name}: {} bytes in {took:?}", bytes.len());
    assert!(took < limit, "{name} took {took:?}");
    result
}

fn corrupt_reason(result: Result<String, DocTextError>) -> String {
    match result {
        Err(DocTextError::Corrupt { reason, .. }) => reason,
        other => panic!("expected a Corrupt error, got {other:?}"),
    }
}

const QUICK: Duration = Duration::from_secs(10);

// ---- spreadsheets ----

#[test]
fn xlsx_with_cells_at_a1_and_xfd1048576_gives_two_values_not_a_dense_grid() {
    let data = "<row r=\"1\"><c r=\"A1\" t=\"inlineStr\"><is><t>first</t></is></c></row>\
                <row r=\"1048576\"><c r=\"XFD1048576\"><v>42</v></c></row>";
    let bytes = testing::xlsx_raw(&[("Wide", data)], &[]);
    assert!(bytes.len() < 2_000, "{}", bytes.len());
    let text = timed("wide.xlsx", &bytes, QUICK).unwrap();
    assert_eq!(text, format!("[Wide]\nfirst\n{}42", "\t".repeat(32)));
}

#[test]
fn xlsx_cells_out_of_order_and_with_gaps_are_laid_out_by_row_and_column() {
    let data = "<row r=\"3\"><c r=\"C3\"><v>3</v></c><c r=\"A3\"><v>1</v></c></row>\
                <row r=\"1\"><c r=\"B1\" t=\"inlineStr\"><is><t>b</t></is></c><c r=\"D1\"><v>4</v></c></row>";
    let text = extract_text("order.xlsx", &testing::xlsx_raw(&[("S", data)], &[])).unwrap();
    assert_eq!(text, "[S]\n\tb\t\t4\n1\t\t3");
}

#[test]
fn xlsx_sheet_beyond_the_cell_cap_is_refused() {
    // 5,001,000 small cells (a 400 KB file); reading them is bounded work, slower in a test build
    let mut data = String::with_capacity(10 * (MAX_SHEET_CELLS + 1) + 100);
    for row in 0..=MAX_SHEET_CELLS / 1000 {
        data.push_str(&format!("<row r=\"{}\">", row + 1));
        data.push_str(&"<c><v>1</v></c>".repeat(1000));
        data.push_str("</row>");
    }
    let bytes = testing::xlsx_raw(&[("Big", &data)], &[]);
    let reason = corrupt_reason(timed("big.xlsx", &bytes, Duration::from_secs(120)));
    assert!(reason.contains(&format!("more than {MAX_SHEET_CELLS} cells")), "{reason}");
}

#[test]
fn xlsx_declaring_billions_of_shared_strings_is_refused_not_an_abort() {
    let sst = b"<?xml version=\"1.0\"?><sst xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" \
                count=\"1\" uniqueCount=\"9000000000\"><si><t>x</t></si></sst>";
    let data = "<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c></row>";
    let bytes = testing::xlsx_raw(&[("S", data)], &[("xl/sharedStrings.xml", sst)]);
    let reason = corrupt_reason(timed("sst.xlsx", &bytes, QUICK));
    assert!(reason.contains("declares 9000000000 strings"), "{reason}");
    // an honest table is read
    let honest = b"<?xml version=\"1.0\"?><sst xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" \
                   count=\"1\" uniqueCount=\"1\"><si><t>shared text</t></si></sst>";
    let bytes = testing::xlsx_raw(&[("S", data)], &[("xl/sharedStrings.xml", honest)]);
    assert_eq!(extract_text("sst.xlsx", &bytes).unwrap(), "[S]\nshared text");
}

#[test]
fn xlsx_cells_all_pointing_at_one_long_shared_string_are_refused() {
    // 1 MB of shared text referenced by 300 small cells would be 300 MB of output
    let long = "y".repeat(1 << 20);
    let sst = format!(
        "<?xml version=\"1.0\"?><sst xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" \
         uniqueCount=\"1\"><si><t>{long}</t></si></sst>"
    );
    let data: String = (1..=300).map(|r| format!("<row r=\"{r}\"><c r=\"A{r}\" t=\"s\"><v>0</v></c></row>")).collect();
    let bytes = testing::xlsx_raw(&[("S", &data)], &[("xl/sharedStrings.xml", sst.as_bytes())]);
    // the work before the refusal is copying ~200 MB of text: well under a second in release,
    // slower in an unoptimised test build
    let reason = corrupt_reason(timed("fanout.xlsx", &bytes, Duration::from_secs(90)));
    assert!(reason.contains("more text than can be indexed"), "{reason}");
}

#[test]
fn ods_repeated_cells_beyond_the_cell_cap_are_refused() {
    let row = "<table:table-row table:number-rows-repeated=\"1000000\">\
               <table:table-cell table:number-columns-repeated=\"16384\" office:value-type=\"float\" office:value=\"1\">\
               <text:p>1</text:p></table:table-cell></table:table-row>";
    let bytes = ods_with_rows("Bomb", row);
    assert!(bytes.len() < 2_000, "{}", bytes.len());
    let reason = corrupt_reason(timed("bomb.ods", &bytes, QUICK));
    assert!(reason.contains(&format!("more than {MAX_SHEET_CELLS} cells")), "{reason}");
}

#[test]
fn ods_huge_runs_of_empty_cells_and_rows_cost_nothing() {
    // the shape LibreOffice writes: trailing empty cells and rows repeated to the sheet's end
    let rows = "<table:table-row><table:table-cell office:value-type=\"string\"><text:p>a<text:s text:c=\"2\"/>b</text:p></table:table-cell>\
                <table:table-cell table:number-columns-repeated=\"16382\"/>\
                <table:table-cell office:value-type=\"float\" office:value=\"7\"><text:p>7</text:p></table:table-cell></table:table-row>\
                <table:table-row table:number-rows-repeated=\"1048574\"><table:table-cell table:number-columns-repeated=\"16384\"/></table:table-row>\
                <table:table-row><table:table-cell table:number-columns-repeated=\"2\" office:value-type=\"string\" office:string-value=\"last\"/></table:table-row>";
    let text = timed("sparse.ods", &ods_with_rows("Sparse", rows), QUICK).unwrap();
    assert_eq!(text, format!("[Sparse]\na  b{}7\nlast\tlast", "\t".repeat(32)));
}

fn ods_with_rows(name: &str, rows: &str) -> Vec<u8> {
    let content = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
         <office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
         xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" \
         xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" office:version=\"1.2\">\
         <office:body><office:spreadsheet><table:table table:name=\"{name}\">{rows}</table:table>\
         </office:spreadsheet></office:body></office:document-content>"
    );
    testing::zip(&[
        ("mimetype", b"application/vnd.oasis.opendocument.spreadsheet"),
        ("content.xml", content.as_bytes()),
    ])
}

#[test]
fn xls_is_no_longer_read() {
    let e = extract_text("legacy.xls", b"\xD0\xCF\x11\xE0").unwrap_err();
    assert!(matches!(&e, DocTextError::Unsupported { extension, .. } if extension == "xls"), "{e}");
}

// ---- PDF ----

const FONT: &str = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
const FORM: &str = "/Type /XObject /Subtype /Form /BBox [0 0 612 792]";

/// Catalog, page tree and one page (objects 1–3) whose content (object 4) is `content`, with
/// `/Resources` `page_resources`, followed by `more` objects (numbered from 5).
fn one_page_pdf(page_resources: &str, content: &str, more: &[String]) -> Vec<u8> {
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources {page_resources} /Contents 4 0 R >>"),
        pdf_stream("", content),
    ];
    objects.extend_from_slice(more);
    pdf_objects(&objects)
}

#[test]
fn pdf_form_xobject_that_draws_itself_is_refused_not_a_stack_overflow() {
    let form = pdf_stream(&format!("{FORM} /Resources << /XObject << /X 5 0 R >> >>"), "/X Do");
    let bytes = one_page_pdf("<< /XObject << /X 5 0 R >> >>", "/X Do", &[form]);
    assert!(bytes.len() < 1_000, "{}", bytes.len());
    let reason = corrupt_reason(timed("loop.pdf", &bytes, QUICK));
    assert!(reason.contains("5 0 R draws itself"), "{reason}");
    // the same loop through inherited resources (the form has none of its own)
    let form = pdf_stream(FORM, "/X Do");
    let bytes = one_page_pdf("<< /XObject << /X 5 0 R >> >>", "/X Do", &[form]);
    let reason = corrupt_reason(timed("loop2.pdf", &bytes, QUICK));
    assert!(reason.contains("draws itself"), "{reason}");
    // and through a second form
    let a = pdf_stream(&format!("{FORM} /Resources << /XObject << /B 6 0 R >> >>"), "/B Do");
    let b = pdf_stream(&format!("{FORM} /Resources << /XObject << /A 5 0 R >> >>"), "/A Do");
    let bytes = one_page_pdf("<< /XObject << /A 5 0 R >> >>", "/A Do", &[a, b]);
    assert!(corrupt_reason(timed("loop3.pdf", &bytes, QUICK)).contains("draws itself"));
}

#[test]
fn pdf_forms_nested_three_deep_still_give_their_text() {
    let a = pdf_stream(&format!("{FORM} /Resources << /XObject << /B 6 0 R >> >>"), "/B Do");
    let b = pdf_stream(&format!("{FORM} /Resources << /XObject << /C 7 0 R >> >>"), "/C Do");
    let c = pdf_stream(
        &format!("{FORM} /Resources << /Font << /F1 8 0 R >> >>"),
        "BT /F1 12 Tf 72 720 Td (Deep inside three forms) Tj ET",
    );
    let bytes = one_page_pdf("<< /XObject << /A 5 0 R >> >>", "/A Do", &[a, b, c, FONT.to_string()]);
    let text = timed("nested.pdf", &bytes, QUICK).unwrap();
    assert_eq!(text, "Deep inside three forms");
}

#[test]
fn pdf_forms_nested_32_deep_are_read_on_a_big_stack_even_from_a_small_one() {
    // forms 5..=36 each draw the next (32 levels), the last one shows text
    let mut objects = Vec::new();
    for n in 5..36 {
        let next = n + 1;
        objects.push(pdf_stream(&format!("{FORM} /Resources << /XObject << /N {next} 0 R >> >>"), "/N Do"));
    }
    objects.push(pdf_stream(
        &format!("{FORM} /Resources << /Font << /F1 37 0 R >> >>"),
        "BT /F1 12 Tf 72 720 Td (Thirty-two levels down) Tj ET",
    ));
    objects.push(FONT.to_string());
    let bytes = one_page_pdf("<< /XObject << /N 5 0 R >> >>", "/N Do", &objects);
    // the caller's stack is tiny (pdf-extract called directly on it overflows and aborts the
    // process); the PDF reader runs on a thread of its own
    let reader =
        std::thread::Builder::new().stack_size(48 << 10).spawn(move || timed("deep-ok.pdf", &bytes, QUICK)).unwrap();
    assert_eq!(reader.join().unwrap().unwrap(), "Thirty-two levels down");
}

#[test]
fn pdf_forms_nested_deeper_than_the_limit_are_refused() {
    // forms 5..=45 each draw the next: 41 levels
    let mut forms = Vec::new();
    for n in 5..=45 {
        let next = n + 1;
        forms.push(pdf_stream(&format!("{FORM} /Resources << /XObject << /N {next} 0 R >> >>"), "/N Do"));
    }
    forms.push(pdf_stream(FORM, ""));
    let bytes = one_page_pdf("<< /XObject << /N 5 0 R >> >>", "/N Do", &forms);
    let reason = corrupt_reason(timed("deep.pdf", &bytes, QUICK));
    assert!(reason.contains("nested more than 32 deep"), "{reason}");
}

#[test]
fn pdf_forms_that_multiply_their_drawings_are_refused() {
    // 25 levels, each drawing the next twice: 2^25 drawings for pdf-extract
    let mut forms = Vec::new();
    for n in 5..30 {
        let next = n + 1;
        forms.push(pdf_stream(&format!("{FORM} /Resources << /XObject << /N {next} 0 R >> >>"), "/N Do /N Do"));
    }
    forms.push(pdf_stream(FORM, ""));
    let bytes = one_page_pdf("<< /XObject << /N 5 0 R >> >>", "/N Do", &forms);
    let reason = corrupt_reason(timed("fanout.pdf", &bytes, QUICK));
    assert!(reason.contains("more than 100000 nested drawings"), "{reason}");
}

#[test]
fn pdf_page_whose_parent_chain_loops_is_refused() {
    let objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 5 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>".to_string(),
        pdf_stream("", "BT ET"),
        "<< /Type /Pages /Parent 3 0 R /Kids [3 0 R] /Count 1 >>".to_string(),
    ];
    let reason = corrupt_reason(timed("parents.pdf", &pdf_objects(&objects), QUICK));
    assert!(reason.contains("loops back on itself"), "{reason}");
}

// ---- HTML, EPUB, RTF ----

#[test]
fn html_80k_nested_divs_are_refused_quickly() {
    let html = format!("<html><body>{}deep{}</body></html>", "<div>".repeat(80_000), "</div>".repeat(80_000));
    let reason = corrupt_reason(timed("nested.html", html.as_bytes(), Duration::from_secs(2)));
    assert!(reason.contains("nested too deeply"), "{reason}");
}

#[test]
fn html_with_5000_unclosed_p_and_li_still_extracts() {
    let mut html = String::from("<html><body><ul>");
    for i in 0..5_000 {
        html.push_str(&format!("<p>para {i}<li>item {i}<br>"));
    }
    html.push_str("</ul></body></html>");
    let text = timed("sloppy.html", html.as_bytes(), Duration::from_secs(60)).unwrap();
    assert!(text.contains("para 0") && text.contains("item 4999"), "{}", &text[..200.min(text.len())]);
}

#[test]
fn epub_chapter_nested_too_deeply_is_refused() {
    let chapter =
        format!("<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>{}x</body></html>", "<section><div>".repeat(1_000));
    let bytes = testing::zip(&[("mimetype", b"application/epub+zip"), ("ch1.xhtml", chapter.as_bytes())]);
    let e = timed("deep.epub", &bytes, QUICK).unwrap_err();
    assert!(
        matches!(&e, DocTextError::Corrupt { format: "EPUB", reason } if reason.contains("nested too deeply")),
        "{e}"
    );
}

#[test]
fn epub_spine_listing_a_chapter_many_times_reads_it_once() {
    let mut bytes_entries: Vec<(String, Vec<u8>)> = Vec::new();
    let spine = "<itemref idref=\"c\"/>".repeat(50_000);
    let opf = format!(
        "<?xml version=\"1.0\"?><package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\"><metadata/>\
         <manifest><item id=\"c\" href=\"c.xhtml\" media-type=\"application/xhtml+xml\"/></manifest>\
         <spine>{spine}</spine></package>"
    );
    let container = "<?xml version=\"1.0\"?><container version=\"1.0\" \
        xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\"><rootfiles>\
        <rootfile full-path=\"content.opf\" media-type=\"application/oebps-package+xml\"/></rootfiles></container>";
    bytes_entries.push(("META-INF/container.xml".into(), container.as_bytes().to_vec()));
    bytes_entries.push(("content.opf".into(), opf.into_bytes()));
    bytes_entries.push(("c.xhtml".into(), b"<html><body><p>Only once.</p></body></html>".to_vec()));
    let entries: Vec<(&str, &[u8])> = bytes_entries.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    let text = timed("spine.epub", &testing::zip(&entries), QUICK).unwrap();
    assert_eq!(text, "Only once.");
}

#[test]
fn rtf_groups_nested_a_million_deep_are_refused() {
    let rtf = format!("{{\\rtf1 {}x", "{".repeat(1_000_000));
    let reason = corrupt_reason(timed("deep.rtf", rtf.as_bytes(), QUICK));
    assert!(reason.contains("nested more than 1024 deep"), "{reason}");
}
