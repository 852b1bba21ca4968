//! Structured fuzzing of every reader: real documents of each format (the `testing` builders and
//! hand-written HTML, RTF, JSON, CSV and text) mutated by truncation, byte flips, inserted
//! fragments, deleted and duplicated ranges — for zip-based formats, often inside one of the
//! archive's parts, re-zipped, so the XML readers see the damage instead of the zip CRC check.
//! Every input runs on its own thread under a watchdog: it must give text or a typed error
//! (`Corrupt`, `Empty`, `NotUtf8`) within [`WATCHDOG`], never panic out or hang. A failing input
//! is written to `CARGO_TARGET_TMPDIR` so it can be added to `tests/crashers/<format>/`, whose
//! files [`past_crashers_give_text_or_a_typed_error`] replays.
//!
//! Each format runs 200 cases by default (seconds in a debug build);
//! `PROPTEST_CASES=2000 cargo test -p lightrag-doc-text --features testing --test integration fuzz::`
//! is the long mode.

use std::io::{Cursor, Read};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use lightrag_doc_text::{DocTextError, extract_text, testing};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// How long one input may take (debug build, two busy cores): ordinary files take milliseconds.
const WATCHDOG: Duration = Duration::from_secs(60);

fn cases(default: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    Config { cases, failure_persistence: None, ..Config::default() }
}

/// Fragments worth inserting: markup, PDF and RTF syntax, broken UTF-8 and UTF-16.
const FRAGMENTS: &[&[u8]] = &[
    b"<",
    b">",
    b"</",
    b"<w:p>",
    b"<w:t>",
    b"</w:t>",
    b"<a:t>",
    b"<table:table-cell table:number-columns-repeated=\"99999\">",
    b"<c r=\"XFD1048576\">",
    b"<![CDATA[",
    b"&#x0;",
    b"&amp",
    b"\"",
    b"\x00",
    b"\xff\xfe",
    b"\xef\xbb\xbf",
    b"\xc3",
    b"\xf0\x9f",
    b"obj",
    b"endobj",
    b"stream\n",
    b"endstream",
    b" R ",
    b"<<",
    b">>",
    b"/Kids [",
    b"{\\rtf1",
    b"{",
    b"}",
    b"\\'",
    b"\\u-1?",
    b"\\bin9999999 ",
    b"<div>",
    b"<script>",
    b"<!--",
    b"<table><tr><td>",
];

#[derive(Debug, Clone)]
enum Mutation {
    Truncate(prop::sample::Index),
    Flip(prop::sample::Index, u8),
    Insert(prop::sample::Index, Vec<u8>),
    Delete(prop::sample::Index, usize),
    Duplicate(prop::sample::Index, prop::sample::Index, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let index = any::<prop::sample::Index>;
    let fragment = prop_oneof![
        proptest::sample::select(FRAGMENTS).prop_map(<[u8]>::to_vec),
        proptest::collection::vec(any::<u8>(), 1..8),
    ];
    prop_oneof![
        1 => index().prop_map(Mutation::Truncate),
        3 => (index(), 1..=255u8).prop_map(|(i, b)| Mutation::Flip(i, b)),
        3 => (index(), fragment).prop_map(|(i, f)| Mutation::Insert(i, f)),
        2 => (index(), 1..64usize).prop_map(|(i, n)| Mutation::Delete(i, n)),
        1 => (index(), index(), 1..256usize).prop_map(|(from, to, n)| Mutation::Duplicate(from, to, n)),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let at = |i: &prop::sample::Index, len: usize| i.index(len + 1);
    match m {
        Mutation::Truncate(i) => bytes.truncate(at(i, bytes.len())),
        Mutation::Flip(i, b) if !bytes.is_empty() => {
            let i = i.index(bytes.len());
            bytes[i] ^= b;
        }
        Mutation::Flip(..) => {}
        Mutation::Insert(i, f) => {
            let i = at(i, bytes.len());
            bytes.splice(i..i, f.iter().copied());
        }
        Mutation::Delete(i, n) => {
            let i = at(i, bytes.len());
            bytes.drain(i..(i + n).min(bytes.len()));
        }
        Mutation::Duplicate(from, to, n) => {
            let from = at(from, bytes.len());
            let piece: Vec<u8> = bytes[from..(from + n).min(bytes.len())].to_vec();
            let to = at(to, bytes.len());
            bytes.splice(to..to, piece);
        }
    }
}

/// The (name, content) parts of a zip, or `None` when it is not one.
fn unzip(bytes: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).ok()?;
    let mut parts = Vec::new();
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).ok()?;
        let mut content = Vec::new();
        file.read_to_end(&mut content).ok()?;
        let name = file.name().ok()?.to_string();
        parts.push((name, content));
    }
    Some(parts)
}

/// A damaged copy of `seed`: for a zip, half the time the damage goes into one part.
fn damage(seed: &[u8], inside: Option<prop::sample::Index>, mutations: &[Mutation]) -> Vec<u8> {
    if let (Some(which), Some(mut parts)) = (inside, unzip(seed)) {
        let part = which.index(parts.len());
        for m in mutations {
            apply(&mut parts[part].1, m);
        }
        let entries: Vec<(&str, &[u8])> = parts.iter().map(|(n, c)| (n.as_str(), c.as_slice())).collect();
        return testing::zip(&entries);
    }
    let mut bytes = seed.to_vec();
    for m in mutations {
        apply(&mut bytes, m);
    }
    bytes
}

/// Runs the reader on its own thread; `Err` says what went wrong when it panicked out of
/// `extract_text` or ran past the watchdog.
fn watched(name: &str, bytes: Vec<u8>) -> Result<Result<String, DocTextError>, String> {
    let (tx, rx) = mpsc::channel();
    let file = name.to_string();
    std::thread::Builder::new()
        .name(format!("read {name}"))
        .spawn(move || {
            let _ = tx.send(extract_text(&file, &bytes));
        })
        .map_err(|e| format!("cannot start a reader thread: {e}"))?;
    match rx.recv_timeout(WATCHDOG) {
        Ok(result) => Ok(result),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(format!("still reading after {WATCHDOG:?}")),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err("the reader panicked out of extract_text".into()),
    }
}

/// What a reader may answer: text, or one of the typed errors of a damaged file.
fn check(name: &str, bytes: &[u8]) -> Result<(), String> {
    let outcome = watched(name, bytes.to_vec()).and_then(|result| match result {
        Err(DocTextError::Corrupt { reason, .. }) => {
            // a contained reader panic is a typed error too; shown with --nocapture
            if reason.starts_with("reader failure") {
                eprintln!("{name}: {reason}");
            }
            Ok(())
        }
        Ok(_) | Err(DocTextError::Empty { .. } | DocTextError::NotUtf8) => Ok(()),
        Err(other) => Err(format!("unexpected error: {other}")),
    });
    outcome.map_err(|why| {
        let kept = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("crasher-{}-{name}", bytes.len()));
        let saved = std::fs::write(&kept, bytes).map(|()| kept.display().to_string());
        format!("{name}: {why}; input saved as {saved:?}")
    })
}

fn fuzz(name: &str, seed: Vec<u8>) {
    // the undamaged seed must read, or the damage would be tested against nothing
    let clean = extract_text(name, &seed);
    assert!(clean.is_ok(), "the seed {name} does not read: {clean:?}");
    let is_zip = unzip(&seed).is_some();
    let inside =
        if is_zip { proptest::option::weighted(0.6, any::<prop::sample::Index>()).boxed() } else { Just(None).boxed() };
    let strategy = (inside, proptest::collection::vec(mutation(), 1..5));
    TestRunner::new(cases(200))
        .run(&strategy, |(inside, mutations)| {
            let bytes = damage(&seed, inside, &mutations);
            check(name, &bytes).map_err(TestCaseError::fail)
        })
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn damaged_pdf_files() {
    fuzz("seed.pdf", testing::pdf(&["Quarterly report (draft)", "Second page \\ with a backslash"]));
}

/// A page drawing a form that draws text (the form walk of the stack-overflow guard, damaged).
#[test]
fn damaged_pdf_files_with_forms() {
    let font = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
    let resources = "<< /Font << /F1 6 0 R >> /XObject << /X 5 0 R >> >>";
    let objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources {resources} /Contents 4 0 R >>"),
        testing::pdf_stream("", "BT /F1 12 Tf 72 720 Td (Page text) Tj ET /X Do"),
        testing::pdf_stream(
            &format!("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources {resources}"),
            "BT /F1 10 Tf 72 700 Td (Form text) Tj ET",
        ),
        font.to_string(),
    ];
    fuzz("seed.pdf", testing::pdf_objects(&objects));
}

#[test]
fn damaged_docx_files() {
    fuzz("seed.docx", testing::docx(&["First paragraph", "Zweiter Absatz — ü"], &[&["a", "b"], &["c", "d"]]));
}

#[test]
fn damaged_pptx_files() {
    fuzz("seed.pptx", testing::pptx(&[&["Title slide", "Subtitle"], &["Second slide"]]));
}

#[test]
fn damaged_xlsx_files() {
    fuzz("seed.xlsx", testing::xlsx(&[("Sales", &[&["Item", "Price"], &["Tea", "2.5"]]), ("Empty", &[])]));
}

#[test]
fn damaged_ods_files() {
    fuzz("seed.ods", testing::ods(&[("Sales", &[&["Item", "Price"], &["Tea", "2.5"]])]));
}

#[test]
fn damaged_odt_files() {
    fuzz("seed.odt", testing::odt("Heading", &["Paragraph one", "Paragraph two"]));
}

#[test]
fn damaged_epub_files() {
    fuzz("seed.epub", testing::epub(&[("One", "First chapter."), ("Two", "Second chapter.")]));
}

#[test]
fn damaged_html_files() {
    let html = "<!DOCTYPE html><html><head><style>p{}</style><script>var x = '<p>';</script></head><body>\
                <h1>Title</h1><p>Para <b>bold <i>both</i></b> &amp; more</p><table><tr><td>a</td><td>b</td></tr>\
                </table><ul><li>one<li>two</ul><div><div><span>deep</span></div></div></body></html>";
    fuzz("seed.html", html.as_bytes().to_vec());
}

#[test]
fn damaged_rtf_files() {
    let rtf = br"{\rtf1\ansi{\fonttbl{\f0 Arial;}}{\info{\author Nobody}}\f0 Quarterly {\b report}\par Caf\'e9 \u8364?9\par{\*\ignored x}}";
    fuzz("seed.rtf", rtf.to_vec());
}

#[test]
fn damaged_text_json_and_csv_files() {
    fuzz("seed.json", br#"{"title": "Report", "items": [1, 2.5, "caf\u00e9", {"nested": [true, null]}]}"#.to_vec());
    fuzz("seed.csv", "name,city\nAhab,Nantucket\n\"Quoted, name\",Zürich\n".as_bytes().to_vec());
    let utf16: Vec<u8> =
        [0xFF, 0xFE].into_iter().chain("Notes — ü\r\nline two".encode_utf16().flat_map(u16::to_le_bytes)).collect();
    fuzz("seed.txt", utf16);
}

/// Every file that once crashed or hung a reader (`tests/crashers/<format>/`) gives text or a
/// typed error under the watchdog.
#[test]
fn past_crashers_give_text_or_a_typed_error() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crashers");
    let mut replayed = 0;
    for format in std::fs::read_dir(&root).unwrap() {
        let folder = format.unwrap().path();
        if !folder.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(folder).unwrap() {
            let path = file.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".md") {
                continue;
            }
            check(&name, &std::fs::read(&path).unwrap()).unwrap();
            replayed += 1;
        }
    }
    assert!(replayed > 0, "no crasher in {}", root.display());
}
