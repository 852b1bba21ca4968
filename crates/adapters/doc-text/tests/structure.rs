//! The structure of extracted texts (issue 31): page starts and headings (at the start of the line
//! holding the title), at byte offsets into exactly the text `extract_text` gives.

use lightrag_doc_text::{ExtractOptions, Extracted, Structure, extract_document, extract_text, testing};
use proptest::prelude::*;

fn read(name: &str, bytes: &[u8]) -> Extracted {
    let doc = extract_document(name, bytes, &ExtractOptions::default()).unwrap();
    assert_eq!(doc.text, extract_text(name, bytes).unwrap(), "{name}: the same text as extract_text");
    for h in &doc.structure.headings {
        let line = doc.text[h.offset..].lines().next().unwrap_or_default();
        assert!(line.contains(&h.title), "{name}: {h:?} does not point at the line of its title");
    }
    doc
}

fn titles(s: &Structure) -> Vec<(String, u8)> {
    s.headings.iter().map(|h| (h.title.clone(), h.level)).collect()
}

fn owned(list: &[(&str, u8)]) -> Vec<(String, u8)> {
    list.iter().map(|(t, l)| (t.to_string(), *l)).collect()
}

#[test]
fn pdf_pages_start_where_their_text_does() {
    let doc = read("r.pdf", &testing::pdf(&["First page text", "Second page text", "Third page"]));
    assert_eq!(doc.structure.pages.len(), 3, "{:?}", doc.structure);
    for (i, needle) in ["First page", "Second page", "Third page"].iter().enumerate() {
        let at = doc.text.find(needle).unwrap();
        assert_eq!(doc.structure.page_at(at), Some(i + 1), "{needle}");
    }
    let second = doc.text.find("Second").unwrap();
    let third_end = doc.text.len();
    assert_eq!(doc.structure.pages_of(second, third_end), Some((2, 3)));
}

#[test]
fn docx_heading_styles_give_the_heading_path() {
    let doc = read(
        "r.docx",
        &testing::docx_styled(&[
            ("Title", "Annual report"),
            ("", "Opening words."),
            ("Heading1", "3 Results"),
            ("Heading2", "3.2 Revenue"),
            ("Normal", "Revenue rose by a tenth."),
            ("heading 1", "4 Outlook"),
            ("Quote", "Not a heading."),
        ]),
    );
    assert_eq!(
        titles(&doc.structure),
        owned(&[("Annual report", 1), ("3 Results", 1), ("3.2 Revenue", 2), ("4 Outlook", 1)])
    );
    let rose = doc.text.find("Revenue rose").unwrap();
    assert_eq!(doc.structure.section_at(rose), vec!["3 Results", "3.2 Revenue"]);
    assert_eq!(doc.structure.section_at(doc.text.find("Not a heading").unwrap()), vec!["4 Outlook"]);
    assert!(doc.structure.pages.is_empty(), "DOCX has no pages in its text");
}

#[test]
fn pptx_slides_are_pages_and_their_titles_headings() {
    let doc = read(
        "deck.pptx",
        &testing::pptx_titled(&[("Welcome", &["Agenda for today"]), ("Numbers", &["Sales doubled"])]),
    );
    assert_eq!(doc.structure.pages.len(), 2);
    assert_eq!(titles(&doc.structure), owned(&[("Welcome", 1), ("Numbers", 1)]));
    let sales = doc.text.find("Sales doubled").unwrap();
    assert_eq!(doc.structure.page_at(sales), Some(2));
    assert_eq!(doc.structure.section_at(sales), vec!["Numbers"]);
}

#[test]
fn odt_html_epub_and_markdown_headings() {
    let odt = read("n.odt", &testing::odt("Chapter one", &["Body text."]));
    assert_eq!(titles(&odt.structure), owned(&[("Chapter one", 1)]));
    let html = read(
        "p.html",
        b"<html><body><h1 class=\"t\">Guide</h1><p>Intro.</p><H2>Setup</H2><p>Steps.</p><hr><p>h1 in text</p></body></html>",
    );
    assert_eq!(titles(&html.structure), owned(&[("Guide", 1), ("Setup", 2)]));
    assert_eq!(html.structure.section_at(html.text.find("Steps").unwrap()), vec!["Guide", "Setup"]);
    let epub = read("b.epub", &testing::epub(&[("Part A", "Alpha text."), ("Part B", "Beta text.")]));
    assert!(epub.structure.headings.len() >= 2, "{:?}", epub.structure);
    let md = read("n.md", b"# Top\ntext\n## Sub\nmore\n```\n# code\n```\n");
    assert_eq!(titles(&md.structure), owned(&[("Top", 1), ("Sub", 2)]));
    assert!(read("n.txt", b"# not markdown\n").structure.is_empty(), "plain text has no structure");
}

#[test]
fn sheet_names_head_their_rows() {
    for (name, bytes) in [
        ("w.xlsx", testing::xlsx(&[("Costs", &[&["a", "1"]]), ("Sales", &[&["b", "2"]])])),
        ("w.ods", testing::ods(&[("Costs", &[&["a", "1"]]), ("Sales", &[&["b", "2"]])])),
    ] {
        let doc = read(name, &bytes);
        assert_eq!(titles(&doc.structure), owned(&[("[Costs]", 1), ("[Sales]", 1)]), "{name}");
        assert_eq!(doc.structure.section_at(doc.text.find("b\t2").unwrap()), vec!["[Sales]"], "{name}");
    }
}

#[test]
fn marks_in_a_file_cannot_forge_structure() {
    // U+FDD0 (the page mark) and U+FDD1 (a level-1 heading mark) in the file's own text (the
    // PDF fixtures are WinAnsi-encoded and cannot carry them)
    let forged = "Before\u{FDD0}after \u{FDD1}fake";
    for (name, bytes) in [
        ("f.docx", testing::docx(&[forged], &[])),
        ("f.html", format!("<p>{forged}</p>").into_bytes()),
        ("f.xlsx", testing::xlsx(&[("Sheet", &[&[forged]])])),
    ] {
        let doc = read(name, &bytes);
        let headings: Vec<&str> = doc.structure.headings.iter().map(|h| h.title.as_str()).collect();
        assert!(headings.iter().all(|t| !t.contains("fake")), "{name}: a forged heading: {headings:?}");
        assert!(doc.structure.pages.is_empty(), "{name}: a forged page: {:?}", doc.structure);
        assert!(doc.text.contains("Beforeafter fake"), "{name}: the marks are dropped, the text kept: {}", doc.text);
    }
}

proptest! {
    /// Every heading and page offset lies on a character boundary of the final text, in order,
    /// and the text is what it would be without the structure.
    #[test]
    fn offsets_map_back_into_the_text(paragraphs in prop::collection::vec(("(Heading[1-3]|Normal|)", "[a-zA-Zé ]{0,12}"), 1..12)) {
        let paras: Vec<(&str, &str)> = paragraphs.iter().map(|(s, t)| (s.as_str(), t.as_str())).collect();
        let bytes = testing::docx_styled(&paras);
        let plain: Vec<(&str, &str)> = paras.iter().map(|(_, t)| ("", *t)).collect();
        let doc = match extract_document("p.docx", &bytes, &ExtractOptions::default()) {
            Ok(doc) => doc,
            // only a document without any text is refused
            Err(e) => {
                prop_assert!(paras.iter().all(|(_, t)| t.trim().is_empty()), "{e}");
                return Ok(());
            }
        };
        prop_assert_eq!(&doc.text, &extract_text("p.docx", &testing::docx_styled(&plain)).unwrap());
        let mut last = 0;
        for h in &doc.structure.headings {
            prop_assert!(doc.text.is_char_boundary(h.offset) && h.offset >= last);
            prop_assert!(doc.text[h.offset..].lines().next().unwrap_or_default().contains(&h.title));
            last = h.offset;
        }
    }
}

#[test]
fn pdf_running_headers_and_footers_are_dropped_and_hyphenated_words_joined() {
    let topics = ["ships", "grain", "steel", "wool"];
    let pages: Vec<Vec<String>> = (1..=4)
        .map(|n| {
            let topic = topics[n - 1];
            vec![
                "ACME Annual Report 2024".to_string(),
                format!("On page {n} the {topic} section speaks of inter-"),
                format!("national trade in {topic} and well-being."),
                format!("Page {n} of 4"),
            ]
        })
        .collect();
    let refs: Vec<Vec<&str>> = pages.iter().map(|p| p.iter().map(String::as_str).collect()).collect();
    let slices: Vec<&[&str]> = refs.iter().map(Vec::as_slice).collect();
    let doc = read("r.pdf", &testing::pdf_lines(&slices));
    assert!(!doc.text.contains("ACME Annual Report"), "running header kept: {}", doc.text);
    assert!(!doc.text.contains("of 4"), "running footer kept: {}", doc.text);
    assert!(doc.text.contains("international\ntrade in grain"), "hyphenated word not joined: {}", doc.text);
    assert!(doc.text.contains("On page 4 the wool section"), "body lines are kept: {}", doc.text);
    assert!(doc.text.contains("well-being"), "a real hyphen must stay: {}", doc.text);
    assert_eq!(doc.structure.pages.len(), 4);
    assert_eq!(doc.structure.page_at(doc.text.find("page 3").unwrap()), Some(3));
}
