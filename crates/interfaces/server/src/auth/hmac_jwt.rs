//! The JWT cryptography of the server: HS256, HS384 and HS512 only, with the `hmac` and `sha2`
//! crates. jsonwebtoken's own `rust_crypto` provider would also bring the RSA, ECDSA and Ed25519
//! crates, which login tokens never use; its JWK utilities are not needed either (left
//! unimplemented: nothing here reads a JWK).

use hmac::{Hmac, KeyInit, Mac};
use jsonwebtoken::crypto::{CryptoProvider, JwtSigner, JwtVerifier, KeyUtils};
use jsonwebtoken::errors::{ErrorKind, Result};
use jsonwebtoken::signature::{self, Signer, Verifier};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, EncodingKey};
use sha2::{Sha256, Sha384, Sha512};

/// An HMAC keyed with a token secret, for one of the three HMAC algorithms.
#[derive(Clone)]
enum Keyed {
    Hs256(Hmac<Sha256>),
    Hs384(Hmac<Sha384>),
    Hs512(Hmac<Sha512>),
}

impl Keyed {
    fn new(algorithm: Algorithm, secret: &[u8]) -> Result<Keyed> {
        // HMAC takes keys of any length: an error here is not expected, but reported as a bad key
        let keyed = match algorithm {
            Algorithm::HS256 => Hmac::new_from_slice(secret).map(Keyed::Hs256),
            Algorithm::HS384 => Hmac::new_from_slice(secret).map(Keyed::Hs384),
            Algorithm::HS512 => Hmac::new_from_slice(secret).map(Keyed::Hs512),
            _ => return Err(ErrorKind::InvalidAlgorithm.into()),
        };
        keyed.map_err(|_| ErrorKind::InvalidKeyFormat.into())
    }

    fn algorithm(&self) -> Algorithm {
        match self {
            Keyed::Hs256(_) => Algorithm::HS256,
            Keyed::Hs384(_) => Algorithm::HS384,
            Keyed::Hs512(_) => Algorithm::HS512,
        }
    }

    /// The tag of `message`.
    fn tag(&self, message: &[u8]) -> Vec<u8> {
        match self.clone() {
            Keyed::Hs256(mac) => mac.chain_update(message).finalize().into_bytes().to_vec(),
            Keyed::Hs384(mac) => mac.chain_update(message).finalize().into_bytes().to_vec(),
            Keyed::Hs512(mac) => mac.chain_update(message).finalize().into_bytes().to_vec(),
        }
    }

    /// Whether `tag` is the tag of `message` (compared in constant time).
    fn matches(&self, message: &[u8], tag: &[u8]) -> bool {
        match self.clone() {
            Keyed::Hs256(mac) => mac.chain_update(message).verify_slice(tag).is_ok(),
            Keyed::Hs384(mac) => mac.chain_update(message).verify_slice(tag).is_ok(),
            Keyed::Hs512(mac) => mac.chain_update(message).verify_slice(tag).is_ok(),
        }
    }
}

/// Signs and checks tokens with one keyed HMAC.
struct HmacJwt(Keyed);

impl Signer<Vec<u8>> for HmacJwt {
    fn try_sign(&self, message: &[u8]) -> std::result::Result<Vec<u8>, signature::Error> {
        Ok(self.0.tag(message))
    }
}

impl JwtSigner for HmacJwt {
    fn algorithm(&self) -> Algorithm {
        self.0.algorithm()
    }
}

impl Verifier<Vec<u8>> for HmacJwt {
    fn verify(&self, message: &[u8], tag: &Vec<u8>) -> std::result::Result<(), signature::Error> {
        if self.0.matches(message, tag) { Ok(()) } else { Err(signature::Error::new()) }
    }
}

impl JwtVerifier for HmacJwt {
    fn algorithm(&self) -> Algorithm {
        self.0.algorithm()
    }
}

fn signer(algorithm: &Algorithm, key: &EncodingKey) -> Result<Box<dyn JwtSigner>> {
    if key.family() != AlgorithmFamily::Hmac {
        return Err(ErrorKind::InvalidKeyFormat.into());
    }
    Ok(Box::new(HmacJwt(Keyed::new(*algorithm, key.as_bytes())?)))
}

fn verifier(algorithm: &Algorithm, key: &DecodingKey) -> Result<Box<dyn JwtVerifier>> {
    if key.family() != AlgorithmFamily::Hmac {
        return Err(ErrorKind::InvalidKeyFormat.into());
    }
    Ok(Box::new(HmacJwt(Keyed::new(*algorithm, key.try_get_as_bytes()?)?)))
}

static HMAC_ONLY: CryptoProvider =
    CryptoProvider { signer_factory: signer, verifier_factory: verifier, key_utils: KeyUtils::new_unimplemented() };

/// Makes the HMAC-only provider jsonwebtoken's provider of this process. jsonwebtoken keeps one
/// per process and takes the first installed: calling this again (every [`super::Tokens::new`]
/// does) changes nothing.
pub fn install() {
    // Err: a provider is installed already (ours, by an earlier call)
    let _ = HMAC_ONLY.install_default();
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// RFC 4231, test case 2: key "Jefe", data "what do ya want for nothing?".
    #[test]
    fn tags_are_rfc_4231s() {
        let message = b"what do ya want for nothing?";
        let hex = |alg| {
            let tag = Keyed::new(alg, b"Jefe").unwrap().tag(message);
            tag.iter().map(|b| format!("{b:02x}")).collect::<String>()
        };
        assert_eq!(hex(Algorithm::HS256), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
        assert_eq!(
            hex(Algorithm::HS384),
            "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649"
        );
        assert_eq!(
            hex(Algorithm::HS512),
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
        );
    }

    #[test]
    fn a_wrong_tag_or_another_algorithm_is_refused() {
        install();
        let key = EncodingKey::from_secret(b"secret").unwrap();
        let signed = signer(&Algorithm::HS256, &key).unwrap().try_sign(b"payload").unwrap();
        let check = verifier(&Algorithm::HS256, &DecodingKey::from_secret(b"secret").unwrap()).unwrap();
        assert!(check.verify(b"payload", &signed).is_ok());
        assert!(check.verify(b"payloaD", &signed).is_err());
        let other = verifier(&Algorithm::HS512, &DecodingKey::from_secret(b"secret").unwrap()).unwrap();
        assert!(other.verify(b"payload", &signed).is_err());
        assert!(signer(&Algorithm::RS256, &key).is_err(), "only HMAC algorithms");
    }
}
