//! `lightrag hash-password`: the printed entry logs in through the server's password check.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::process::{Command, Stdio};

use lightrag_config::{AuthAccount, Secret};
use lightrag_server::auth::Accounts;

fn verifies(entry: &str, user: &str, password: &str) -> bool {
    let account = AuthAccount { username: user.into(), password: Secret::new(entry) };
    Accounts::new(&[account]).unwrap().verify(user, password)
}

#[test]
fn prints_a_bcrypt_entry_that_verifies() {
    let out = Command::new(env!("CARGO_BIN_EXE_lightrag"))
        .args(["hash-password", "--cost", "4", "p@ss word"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let entry = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(entry.starts_with("{bcrypt}$2b$04$"), "{entry}");
    assert!(verifies(&entry, "admin", "p@ss word"));
    assert!(!verifies(&entry, "admin", "p@ss"));
}

#[test]
fn reads_stdin_and_prints_a_whole_account_entry() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lightrag"))
        .args(["hash-password", "--cost", "4", "--username", "admin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"from stdin\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let line = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let (user, entry) = line.split_once(':').unwrap();
    assert_eq!(user, "admin");
    assert!(verifies(entry, "admin", "from stdin"));
}

#[test]
fn refuses_bad_input() {
    let run =
        |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_lightrag")).args(args).stdin(Stdio::null()).output().unwrap();
    let empty = run(&["hash-password"]);
    assert!(!empty.status.success());
    assert!(String::from_utf8_lossy(&empty.stderr).contains("no password given"));
    let long = "x".repeat(80);
    let too_long = run(&["hash-password", "--cost", "4", &long]);
    assert!(!too_long.status.success());
    assert!(String::from_utf8_lossy(&too_long.stderr).contains("72 bytes"));
    let bad_user = run(&["hash-password", "--cost", "4", "--username", "a:b", "pw"]);
    assert!(!bad_user.status.success());
}
