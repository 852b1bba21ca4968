//! Decoding the AWS event-stream framing (`application/vnd.amazon.eventstream`) that Bedrock's
//! `ConverseStream` answers with.
//!
//! A message is: total length (u32, big-endian), headers length (u32), CRC-32 of those 8 bytes,
//! the headers, the payload, and a CRC-32 of everything before it. A header is a name (a length
//! byte and the bytes), a type byte and a value; Bedrock uses string headers (`:event-type`,
//! `:message-type`, `:exception-type`, `:content-type`).

/// One decoded message: its string headers and its payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame {
    pub headers: Vec<(String, String)>,
    pub payload: Vec<u8>,
}

impl Frame {
    /// The value of a string header.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// Largest message accepted (Bedrock's are small; this bounds memory on garbage input).
const MAX_MESSAGE: usize = 16 * 1024 * 1024;
const PRELUDE: usize = 12;

/// Accumulates bytes and yields complete messages.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    buffer: Vec<u8>,
}

fn be_u32(b: &[u8]) -> usize {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize
}

impl Decoder {
    /// Adds bytes; returns the messages they completed, or an error for a damaged stream.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Frame>, String> {
        self.buffer.extend_from_slice(bytes);
        let mut frames = Vec::new();
        loop {
            if self.buffer.len() < PRELUDE {
                return Ok(frames);
            }
            let total = be_u32(&self.buffer[0..4]);
            let headers_len = be_u32(&self.buffer[4..8]);
            if crc32fast::hash(&self.buffer[0..8]) as usize != be_u32(&self.buffer[8..12]) {
                return Err("event-stream prelude checksum mismatch".into());
            }
            if !(PRELUDE + 4..=MAX_MESSAGE).contains(&total) || headers_len > total - PRELUDE - 4 {
                return Err(format!("event-stream message of impossible size {total}"));
            }
            if self.buffer.len() < total {
                return Ok(frames);
            }
            let message: Vec<u8> = self.buffer.drain(..total).collect();
            if crc32fast::hash(&message[..total - 4]) as usize != be_u32(&message[total - 4..]) {
                return Err("event-stream message checksum mismatch".into());
            }
            let headers = parse_headers(&message[PRELUDE..PRELUDE + headers_len])?;
            let payload = message[PRELUDE + headers_len..total - 4].to_vec();
            frames.push(Frame { headers, payload });
        }
    }

    /// Bytes left over at the end of the body (a truncated message), if any.
    pub fn leftover(&self) -> usize {
        self.buffer.len()
    }
}

fn parse_headers(mut b: &[u8]) -> Result<Vec<(String, String)>, String> {
    let bad = || "event-stream header is truncated".to_string();
    let mut out = Vec::new();
    while !b.is_empty() {
        let name_len = *b.first().ok_or_else(bad)? as usize;
        let name = b.get(1..1 + name_len).ok_or_else(bad)?;
        let name = String::from_utf8_lossy(name).into_owned();
        b = &b[1 + name_len..];
        let kind = *b.first().ok_or_else(bad)?;
        b = &b[1..];
        let fixed = |n: usize, b: &mut &[u8]| -> Result<(), String> {
            if b.len() < n {
                return Err(bad());
            }
            *b = &b[n..];
            Ok(())
        };
        match kind {
            0 | 1 => {}
            2 => fixed(1, &mut b)?,
            3 => fixed(2, &mut b)?,
            4 => fixed(4, &mut b)?,
            5 | 8 => fixed(8, &mut b)?,
            9 => fixed(16, &mut b)?,
            6 | 7 => {
                let len = b.get(0..2).map(|l| u16::from_be_bytes([l[0], l[1]]) as usize).ok_or_else(bad)?;
                let value = b.get(2..2 + len).ok_or_else(bad)?;
                if kind == 7 {
                    out.push((name, String::from_utf8_lossy(value).into_owned()));
                }
                b = &b[2 + len..];
            }
            other => return Err(format!("event-stream header of unknown type {other}")),
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
pub(crate) mod tests {
    use super::*;

    /// Encodes a message with string headers (the test side of the format).
    pub(crate) fn encode(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
        let mut h = Vec::new();
        for (k, v) in headers {
            h.push(k.len() as u8);
            h.extend_from_slice(k.as_bytes());
            h.push(7);
            h.extend_from_slice(&(v.len() as u16).to_be_bytes());
            h.extend_from_slice(v.as_bytes());
        }
        let total = PRELUDE + h.len() + payload.len() + 4;
        let mut m = Vec::new();
        m.extend_from_slice(&(total as u32).to_be_bytes());
        m.extend_from_slice(&(h.len() as u32).to_be_bytes());
        let crc = crc32fast::hash(&m);
        m.extend_from_slice(&crc.to_be_bytes());
        m.extend_from_slice(&h);
        m.extend_from_slice(payload);
        let crc = crc32fast::hash(&m);
        m.extend_from_slice(&crc.to_be_bytes());
        m
    }

    #[test]
    fn decodes_messages_split_anywhere() {
        let a = encode(
            &[(":event-type", "contentBlockDelta"), (":message-type", "event")],
            "{\"delta\":{\"text\":\"hé\"}}".as_bytes(),
        );
        let b = encode(&[(":event-type", "messageStop")], br#"{"stopReason":"end_turn"}"#);
        let all = [a, b].concat();
        for size in 1..all.len() {
            let mut d = Decoder::default();
            let frames: Vec<Frame> = all.chunks(size).flat_map(|c| d.push(c).unwrap()).collect();
            assert_eq!(frames.len(), 2, "chunk size {size}");
            assert_eq!(frames[0].header(":event-type"), Some("contentBlockDelta"));
            assert_eq!(frames[1].payload, br#"{"stopReason":"end_turn"}"#);
            assert_eq!(d.leftover(), 0);
        }
    }

    #[test]
    fn damaged_streams_are_errors_not_panics() {
        let mut m = encode(&[(":event-type", "x")], b"{}");
        let last = m.len() - 1;
        m[last] ^= 1;
        assert!(Decoder::default().push(&m).is_err());
        assert!(Decoder::default().push(&[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]).is_err());
        for n in 0..64u8 {
            let junk: Vec<u8> = (0..40).map(|i| i ^ n).collect();
            let _ = Decoder::default().push(&junk);
        }
    }
}
