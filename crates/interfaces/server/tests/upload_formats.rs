//! Uploads and scans of every document format: the text is extracted and indexed, the original
//! file kept in INPUT_DIR; unreadable, unsupported and hostile uploads are refused and leave no
//! file behind.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::Harness;
use lightrag_doc_text::testing;
use serde_json::{Value, json};

/// Uploads one file, expects 200 and waits for it to be processed; returns its status record.
async fn upload_and_index(h: &Harness, name: &str, bytes: &[u8]) -> Value {
    let reply = h.upload(name, bytes, &[]).await;
    assert_eq!(reply.status, StatusCode::OK, "{name}: {}", reply.text());
    let v = reply.json();
    assert_eq!(v["status"], "success", "{v}");
    let track = v["track_id"].as_str().unwrap().to_string();
    assert!(track.starts_with("upload_"), "{track}");
    let status = h.wait_track(&track, &[]).await;
    let doc = status["documents"][0].clone();
    assert_eq!(doc["status"], "processed", "{name}: {status}");
    doc
}

fn files_in(h: &Harness) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(h.input_dir()) else { return Vec::new() };
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_format_is_extracted_indexed_and_kept_as_uploaded() {
    let h = Harness::new(&[]).await;
    let html = "<html><head><script>var hidden = 1;</script></head><body>\
                <h1>Harbor news</h1><p>Erin Park opened the Harbor Museum in Lisbon.</p></body></html>";
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "report.pdf",
            testing::pdf(&["Alice Smith runs Acme Corporation.", "Page two."]),
            "Alice Smith runs Acme Corporation.",
        ),
        (
            "memo.docx",
            testing::docx(&["Bob Jones founded Globex.", "Second line."], &[&["k", "v"]]),
            "Bob Jones founded Globex.",
        ),
        ("deck.pptx", testing::pptx(&[&["Carol White leads Initech."], &["Slide two"]]), "Carol White leads Initech."),
        (
            "table.xlsx",
            testing::xlsx(&[("Staff", &[&["name", "city"], &["Dmitri Volkov", "Oslo"]])]),
            "[Staff]\nname\tcity\nDmitri Volkov\tOslo",
        ),
        (
            "essay.odt",
            testing::odt("Zenith Laboratory", &["Dmitri Volkov works there."]),
            "Zenith Laboratory\nDmitri Volkov works there.",
        ),
        (
            "novel.epub",
            testing::epub(&[("Aurora", "The Aurora Report was published in Oslo.")]),
            "The Aurora Report was published in Oslo.",
        ),
        ("page.html", html.as_bytes().to_vec(), "Erin Park opened the Harbor Museum in Lisbon."),
        (
            "letter.rtf",
            br"{\rtf1\ansi{\fonttbl{\f0 Arial;}}\f0 Ines Duarte writes from {\b Porto}.\par}".to_vec(),
            "Ines Duarte writes from Porto.",
        ),
        ("people.csv", b"name,org\nFrank Moss,Umbrella Labs\n".to_vec(), "name,org\nFrank Moss,Umbrella Labs"),
        (
            "facts.json",
            br#"{"person": "Grace Hall", "org": "Vandelay Industries"}"#.to_vec(),
            r#""person": "Grace Hall""#,
        ),
        (
            "notes.MD",
            b"\xEF\xBB\xBF# Notes\nHelen Troy sails to Sparta.".to_vec(),
            "# Notes\nHelen Troy sails to Sparta.",
        ),
    ];
    for (name, bytes, expected) in &cases {
        let doc = upload_and_index(&h, name, bytes).await;
        let summary = doc["content_summary"].as_str().unwrap();
        assert!(summary.contains(expected), "{name}: summary {summary:?} lacks {expected:?}");
        assert!(!summary.contains("PK") && !summary.contains("%PDF") && !summary.contains("<"), "{name}: {summary:?}");
        assert_eq!(doc["file_path"], *name);
        // the original bytes are what is kept in INPUT_DIR
        assert_eq!(std::fs::read(h.input_dir().join(name)).unwrap(), *bytes, "{name}");
    }
    let html_doc = h.get("/documents").await.json();
    assert!(!html_doc.to_string().contains("var hidden"), "script text indexed");

    // the extracted text is what the index holds: a naive query finds the PDF's sentence in a chunk
    let v = h
        .post("/query/data", json!({"query": "Who runs Acme Corporation?", "mode": "naive", "chunk_top_k": 20}))
        .await
        .json();
    let chunks = v["data"]["chunks"].as_array().unwrap();
    assert!(
        chunks.iter().any(|c| c["content"].as_str().unwrap_or_default().contains("Alice Smith runs Acme Corporation.")),
        "{v}"
    );
    assert!(chunks.iter().all(|c| !c["content"].as_str().unwrap_or_default().contains("%PDF")), "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_and_unreadable_uploads_are_refused_without_leftovers() {
    let h = Harness::new(&[("MAX_UPLOAD_SIZE", "20000")]).await;
    let pdf = testing::pdf(&["Ivan Petrov visits Kyiv."]);

    // traversal: only the base name is used, inside INPUT_DIR
    upload_and_index(&h, "../../x.pdf", &pdf).await;
    assert!(h.input_dir().join("x.pdf").is_file());
    assert!(!h.dir.path().join("x.pdf").exists() && !h.input_dir().parent().unwrap().join("x.pdf").exists());
    upload_and_index(&h, "..\\..\\win.docx", &testing::docx(&["Windows path"], &[])).await;
    assert!(h.input_dir().join("win.docx").is_file());

    let refused: Vec<(&str, Vec<u8>, StatusCode, &str)> = vec![
        ("setup.exe", b"MZ\x90\x00 binary".to_vec(), StatusCode::BAD_REQUEST, "Supported types"),
        (
            "broken.pdf",
            b"%PDF-1.4\n1 0 obj << /Type /Catalog".to_vec(),
            StatusCode::BAD_REQUEST,
            "could not be read as PDF",
        ),
        ("fake.pdf", b"just some words".to_vec(), StatusCode::BAD_REQUEST, "could not be read as PDF"),
        (
            "broken.docx",
            testing::docx(&["cut short"], &[])[..60].to_vec(),
            StatusCode::BAD_REQUEST,
            "could not be read as DOCX",
        ),
        ("broken.xlsx", b"PK\x03\x04 nothing".to_vec(), StatusCode::BAD_REQUEST, "could not be read as XLSX"),
        ("bad.json", b"{\"a\": ".to_vec(), StatusCode::BAD_REQUEST, "could not be read as JSON"),
        ("latin1.txt", b"caf\xE9 cr\xE8me".to_vec(), StatusCode::BAD_REQUEST, "not UTF-8"),
        ("scan.pdf", testing::pdf(&[""]), StatusCode::BAD_REQUEST, "OCR is not supported"),
        ("big.pdf", [pdf.clone(), vec![b' '; 20_000]].concat(), StatusCode::PAYLOAD_TOO_LARGE, "MAX_UPLOAD_SIZE"),
    ];
    for (name, bytes, status, message) in &refused {
        let reply = h.upload(name, bytes, &[]).await;
        assert_eq!(reply.status, *status, "{name}: {}", reply.text());
        let detail = reply.json()["detail"].as_str().unwrap().to_string();
        assert!(detail.contains(message), "{name}: {detail}");
        assert!(!h.input_dir().join(name).exists(), "{name} left behind");
    }
    assert_eq!(files_in(&h), vec!["win.docx".to_string(), "x.pdf".to_string()]);
    assert_eq!(h.get("/documents/status_counts").await.json()["status_counts"]["all"], 2);

    // a refused file leaves no record either: the fixed file can be uploaded under the same name
    upload_and_index(&h, "broken.pdf", &testing::pdf(&["Fixed now."])).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scan_extracts_documents_and_skips_unreadable_files() {
    let h = Harness::new(&[]).await;
    let dir = h.input_dir();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.docx"), testing::docx(&["Jack Reed builds bridges in Porto."], &[])).unwrap();
    std::fs::write(dir.join("b.pdf"), testing::pdf(&["Kim Lee studies whales near Bergen."])).unwrap();
    std::fs::write(dir.join("c.txt"), "Liam Ortiz paints in Valencia.").unwrap();
    std::fs::write(dir.join("broken.pdf"), b"%PDF-1.7 nothing else").unwrap();
    std::fs::write(dir.join("ignored.exe"), b"MZ").unwrap();

    // the pipeline may still be settling after start-up: a scan is refused while it is busy
    let deadline = Instant::now() + Duration::from_secs(30);
    let v = loop {
        let v = h.post("/documents/scan", json!({})).await.json();
        if v["status"] != "scanning_skipped_pipeline_busy" {
            break v;
        }
        assert!(Instant::now() < deadline, "pipeline stays busy");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(v["status"], "scanning_started", "{v}");
    let track = v["track_id"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let ps = h.get("/documents/pipeline_status").await.json();
        if ps["history_messages"].as_array().unwrap().iter().any(|m| m.as_str().unwrap().starts_with("Scan finished")) {
            let history = ps["history_messages"].to_string();
            assert!(
                history.contains("Scan finished: 3 new file(s) enqueued, 0 already indexed, 1 unreadable skipped"),
                "{history}"
            );
            assert!(history.contains("Skipped 'broken.pdf': the file could not be read as PDF"), "{history}");
            assert!(!history.contains("ignored.exe"), "{history}");
            break;
        }
        assert!(Instant::now() < deadline, "scan did not finish: {ps}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let status = h.wait_track(&track, &[]).await;
    let mut docs: Vec<(String, String)> = status["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["status"], "processed", "{d}");
            (d["file_path"].as_str().unwrap().to_string(), d["content_summary"].as_str().unwrap().to_string())
        })
        .collect();
    docs.sort();
    assert_eq!(
        docs,
        vec![
            ("a.docx".to_string(), "Jack Reed builds bridges in Porto.".to_string()),
            ("b.pdf".to_string(), "Kim Lee studies whales near Bergen.".to_string()),
            ("c.txt".to_string(), "Liam Ortiz paints in Valencia.".to_string()),
        ]
    );
}
