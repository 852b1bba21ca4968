//! Verification of AWS Signature Version 4 on the Bedrock routes, written independently of the
//! client's signer (HMAC built by hand over SHA-256): the canonical request is rebuilt from what
//! arrived — method, the path as sent encoded once more, the sorted query, the headers named in
//! `SignedHeaders`, the SHA-256 of the body — and the signature recomputed with the configured
//! secret. Follows the AWS documentation ("Create a signed AWS API request").

use sha2::{Digest, Sha256};

use crate::routes::Incoming;
use crate::server::Shared;

fn hmac_sha256(key: &[u8], data: &[u8]) -> Vec<u8> {
    const BLOCK: usize = 64;
    let mut k = if key.len() > BLOCK { Sha256::digest(key).to_vec() } else { key.to_vec() };
    k.resize(BLOCK, 0);
    let inner: Vec<u8> = k.iter().map(|b| b ^ 0x36).collect();
    let outer: Vec<u8> = k.iter().map(|b| b ^ 0x5c).collect();
    let mut h = Sha256::new();
    h.update(&inner);
    h.update(data);
    let inner_hash = h.finalize();
    let mut h = Sha256::new();
    h.update(&outer);
    h.update(inner_hash);
    h.finalize().to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn encode(s: &str, keep_slash: bool) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) || (keep_slash && b == b'/') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Checks the request's signature; `Err` says why it is refused.
pub(crate) fn verify(shared: &Shared, req: &Incoming) -> Result<(), String> {
    let Some(creds) = &shared.config.aws else { return Ok(()) };
    let header = |name: &str| req.headers.get(name).and_then(|v| v.to_str().ok());
    let auth = header("authorization").ok_or("missing Authorization header (SigV4 expected)")?;
    let rest = auth.strip_prefix("AWS4-HMAC-SHA256 ").ok_or("Authorization is not AWS4-HMAC-SHA256")?;
    let field = |name: &str| {
        rest.split(',').map(str::trim).find_map(|p| p.strip_prefix(name).and_then(|v| v.strip_prefix('=')))
    };
    let credential = field("Credential").ok_or("no Credential in Authorization")?;
    let signed_headers = field("SignedHeaders").ok_or("no SignedHeaders in Authorization")?;
    let signature = field("Signature").ok_or("no Signature in Authorization")?;
    let parts: Vec<&str> = credential.split('/').collect();
    let [key_id, date, region, service, terminator] = parts.as_slice() else {
        return Err(format!("malformed credential scope {credential}"));
    };
    if *key_id != creds.access_key_id {
        return Err(format!("unknown access key {key_id}"));
    }
    if *region != creds.region || *service != "bedrock" || *terminator != "aws4_request" {
        return Err(format!("credential scope {credential} is not for bedrock in {}", creds.region));
    }
    let amz_date = header("x-amz-date").ok_or("missing x-amz-date header")?;
    if !amz_date.starts_with(date) {
        return Err("x-amz-date does not match the credential date".into());
    }
    let names: Vec<&str> = signed_headers.split(';').collect();
    if !names.contains(&"host") || !names.contains(&"x-amz-date") {
        return Err("host and x-amz-date must be signed".into());
    }
    let mut canonical_headers = String::new();
    for name in &names {
        let value = header(name).ok_or(format!("signed header {name} is missing"))?;
        canonical_headers.push_str(&format!("{name}:{}\n", value.split_whitespace().collect::<Vec<_>>().join(" ")));
    }
    let mut query: Vec<String> =
        req.uri.query().unwrap_or("").split('&').filter(|p| !p.is_empty()).map(str::to_string).collect();
    query.sort();
    let canonical_request = format!(
        "{}\n{}\n{}\n{}\n{}\n{}",
        req.method.as_str(),
        encode(req.uri.path(), true),
        query.join("&"),
        canonical_headers,
        signed_headers,
        hex(&Sha256::digest(&req.body))
    );
    let scope = format!("{date}/{region}/{service}/aws4_request");
    let to_sign =
        format!("AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}", hex(&Sha256::digest(canonical_request.as_bytes())));
    let k_date = hmac_sha256(format!("AWS4{}", creds.secret_access_key).as_bytes(), date.as_bytes());
    let k_region = hmac_sha256(&k_date, region.as_bytes());
    let k_service = hmac_sha256(&k_region, service.as_bytes());
    let k_signing = hmac_sha256(&k_service, b"aws4_request");
    let expected = hex(&hmac_sha256(&k_signing, to_sign.as_bytes()));
    if expected == signature {
        Ok(())
    } else {
        Err("The request signature we calculated does not match the signature you provided.".into())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// RFC 4231, test case 2.
    #[test]
    fn hmac_matches_rfc_4231() {
        assert_eq!(
            hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        let long_key = vec![0xaa; 131];
        assert_eq!(
            hex(&hmac_sha256(&long_key, b"Test Using Larger Than Block-Size Key - Hash Key First")),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }
}
