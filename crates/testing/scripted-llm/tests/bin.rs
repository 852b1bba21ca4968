//! The `scripted-llm` binary prints its base URL first and serves with the given flags.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may fail loudly

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

#[test]
fn binary_prints_the_base_url_and_honours_dim() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_scripted-llm"))
        .args(["--port", "0", "--dim", "8", "--delay-ms", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut first = String::new();
    BufReader::new(stdout).read_line(&mut first).unwrap();
    let result = std::panic::catch_unwind(|| {
        let base = first.trim();
        assert!(base.starts_with("http://127.0.0.1:") && base.ends_with("/v1"), "{base}");
        let authority = base.trim_start_matches("http://").trim_end_matches("/v1");
        let mut stream = std::net::TcpStream::connect(authority).unwrap();
        let body = "{\"input\": [\"hello world\"]}";
        write!(
            stream,
            "POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let json_start = response.find("\r\n\r\n").unwrap() + 4;
        let v: serde_json::Value = serde_json::from_str(&response[json_start..]).unwrap();
        assert_eq!(v["data"][0]["embedding"].as_array().unwrap().len(), 8);
    });
    child.kill().unwrap();
    child.wait().unwrap();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn binary_rejects_unknown_flags() {
    let out = Command::new(env!("CARGO_BIN_EXE_scripted-llm")).arg("--bogus").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown flag `--bogus`"));
}
