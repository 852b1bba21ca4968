//! Plain text, CSV and JSON: decoded, never rewritten.

use crate::DocTextError;

/// Decodes the bytes of a plain-text file: UTF-8 (a leading byte-order mark is dropped), or UTF-16
/// when the file starts with a UTF-16 byte-order mark. The text is otherwise returned as written;
/// it may be empty or blank (unlike [`crate::extract_text`], this does not check).
///
/// # Errors
/// [`DocTextError::NotUtf8`] when the bytes are neither.
pub fn extract_plain_text(bytes: &[u8]) -> Result<String, DocTextError> {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return String::from_utf8(rest.to_vec()).map_err(|_| DocTextError::NotUtf8);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return utf16(rest, u16::from_le_bytes);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return utf16(rest, u16::from_be_bytes);
    }
    String::from_utf8(bytes.to_vec()).map_err(|_| DocTextError::NotUtf8)
}

fn utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> Result<String, DocTextError> {
    if !bytes.len().is_multiple_of(2) {
        return Err(DocTextError::NotUtf8);
    }
    let units = bytes.chunks_exact(2).map(|pair| unit([pair[0], pair[1]]));
    char::decode_utf16(units).collect::<Result<String, _>>().map_err(|_| DocTextError::NotUtf8)
}

/// A JSON file: it must parse; the text is kept as written.
pub(crate) fn extract_json(bytes: &[u8]) -> Result<String, DocTextError> {
    let text = extract_plain_text(bytes)?;
    if let Err(e) = serde_json::from_str::<serde_json::Value>(&text) {
        return Err(DocTextError::corrupt("JSON", e));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boms_are_dropped_and_utf16_is_decoded() {
        assert_eq!(extract_plain_text(b"\xEF\xBB\xBFhello").unwrap(), "hello");
        let le: Vec<u8> = [0xFF, 0xFE].into_iter().chain("héllo €".encode_utf16().flat_map(u16::to_le_bytes)).collect();
        assert_eq!(extract_plain_text(&le).unwrap(), "héllo €");
        let be: Vec<u8> = [0xFE, 0xFF].into_iter().chain("Zoë".encode_utf16().flat_map(u16::to_be_bytes)).collect();
        assert_eq!(extract_plain_text(&be).unwrap(), "Zoë");
    }

    #[test]
    fn invalid_text_is_refused() {
        assert!(matches!(extract_plain_text(b"caf\xE9"), Err(DocTextError::NotUtf8)));
        assert!(matches!(extract_plain_text(b"\xFF\xFEa"), Err(DocTextError::NotUtf8)));
        assert!(matches!(extract_plain_text(b"\xFF\xFE\x00\xD8"), Err(DocTextError::NotUtf8)));
    }

    #[test]
    fn json_must_parse_and_is_kept_verbatim() {
        let raw = "{ \"a\": [1, 2] }\n";
        assert_eq!(extract_json(raw.as_bytes()).unwrap(), raw);
        let e = extract_json(b"{\"a\": ").unwrap_err();
        assert!(matches!(e, DocTextError::Corrupt { format: "JSON", .. }), "{e}");
    }
}
