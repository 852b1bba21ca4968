//! A PDF compression-bomb guard, run on the raw bytes before `lopdf` parses anything: `lopdf`
//! inflates object streams while loading and `pdf-extract` inflates content streams and fonts,
//! neither with a limit, so a 500 KiB file of zeros compressed a thousandfold takes a gigabyte.
//!
//! The scan finds every `stream … endstream` whose dictionary asks for `/FlateDecode`, inflates
//! it into nothing (no allocation beyond a buffer) and stops as soon as all of them together
//! pass [`MAX_INFLATED_BYTES`]. Image streams (`/Subtype /Image`) are not counted: the text
//! reader never inflates them. Streams that are not valid zlib data count what they yielded.

use std::io::Read;

/// The most bytes the non-image streams of one PDF may inflate to, together.
pub const MAX_INFLATED_BYTES: u64 = 256 * 1024 * 1024;

/// How far back from `stream` the scan looks for the stream's dictionary.
const DICT_LOOKBACK: usize = 4096;

/// `Err` with the reason when the PDF's streams inflate to more than `limit` bytes.
pub(crate) fn check(bytes: &[u8], limit: u64) -> Result<(), String> {
    let mut total: u64 = 0;
    let mut at = 0;
    while let Some(found) = find(&bytes[at..], b"stream") {
        let keyword = at + found;
        at = keyword + b"stream".len();
        // `endstream` contains `stream`: skip it
        if keyword >= 3 && &bytes[keyword - 3..keyword] == b"end" {
            continue;
        }
        let data_start = match bytes.get(at..at + 2) {
            Some([b'\r', b'\n']) => at + 2,
            Some([b'\n', _]) | Some([b'\r', _]) => at + 1,
            _ => continue,
        };
        let dict = &bytes[keyword.saturating_sub(DICT_LOOKBACK)..keyword];
        let dict = match rfind(dict, b"obj") {
            Some(obj) => &dict[obj..],
            None => dict,
        };
        if find(dict, b"/FlateDecode").is_none() || find(dict, b"/Image").is_some() {
            continue;
        }
        let end = find(&bytes[data_start..], b"endstream").map_or(bytes.len(), |e| data_start + e);
        let remaining = limit.saturating_sub(total);
        let mut inflater = flate2::read::ZlibDecoder::new(&bytes[data_start..end]).take(remaining + 1);
        let inflated = std::io::copy(&mut inflater, &mut std::io::sink()).unwrap_or(0);
        total += inflated;
        if total > limit {
            return Err(format!(
                "its compressed streams inflate to more than {} MiB (a compression bomb?)",
                limit / (1024 * 1024)
            ));
        }
        at = end;
    }
    Ok(())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::io::Write;

    use super::*;

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn pdf_with_stream(dict: &str, data: &[u8]) -> Vec<u8> {
        let mut out = format!("%PDF-1.4\n4 0 obj\n<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
        out.extend_from_slice(data);
        out.extend_from_slice(b"\nendstream\nendobj\n%%EOF\n");
        out
    }

    #[test]
    fn streams_are_counted_until_the_limit() {
        let zeros = zlib(&vec![0u8; 1 << 20]);
        assert!(zeros.len() < 4096, "a thousandfold");
        let pdf = pdf_with_stream("/Filter /FlateDecode", &zeros);
        assert!(check(&pdf, 2 << 20).is_ok());
        let err = check(&pdf, 512 << 10).unwrap_err();
        assert!(err.contains("compression bomb"), "{err}");
        // images are never inflated by the text reader; unfiltered streams cost nothing
        assert!(check(&pdf_with_stream("/Subtype /Image /Filter /FlateDecode", &zeros), 1024).is_ok());
        assert!(check(&pdf_with_stream("", &vec![0u8; 4096]), 1024).is_ok());
        // garbage instead of zlib data counts what it yields (nothing)
        assert!(check(&pdf_with_stream("/Filter /FlateDecode", b"not zlib at all"), 1).is_ok());
    }
}
