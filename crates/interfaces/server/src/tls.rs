//! HTTPS (`SSL=true`): the rustls acceptor over `SSL_CERTFILE` (PEM chain) and `SSL_KEYFILE`
//! (PEM private key), offering HTTP/2 and HTTP/1.1.

use std::path::Path;
use std::sync::Arc;

use lightrag_config::ServerSettings;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;

use crate::errors::ServerError;

/// The acceptor when `SSL` is on (the settings checked that both files are named).
pub(crate) fn acceptor(server: &ServerSettings) -> Result<Option<TlsAcceptor>, ServerError> {
    let (true, Some(cert), Some(key)) = (server.ssl, &server.ssl_certfile, &server.ssl_keyfile) else {
        return Ok(None);
    };
    let failed =
        |reason: String| ServerError::Tls { cert: cert.display().to_string(), key: key.display().to_string(), reason };
    // The ring provider, as for outgoing HTTPS; idempotent (an installed provider is kept).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let chain = certificates(cert).map_err(failed)?;
    let private = PrivateKeyDer::from_pem_file(key).map_err(|e| failed(format!("{}: {e}", key.display())))?;
    let mut config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(chain, private)
        .map_err(|e| failed(e.to_string()))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Some(TlsAcceptor::from(Arc::new(config))))
}

/// The certificates of a PEM file (at least one).
fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let chain = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if chain.is_empty() {
        return Err(format!("{} holds no PEM certificate", path.display()));
    }
    Ok(chain)
}
