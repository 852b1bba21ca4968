//! Encoding of the AWS event-stream framing (`application/vnd.amazon.eventstream`) used by the
//! Bedrock `ConverseStream` route: prelude (total length, headers length, CRC-32), string
//! headers, payload, CRC-32 of the whole message.

/// One message with string headers (type 7) and `payload`.
pub(crate) fn frame(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    for (name, value) in headers {
        h.push(name.len() as u8);
        h.extend_from_slice(name.as_bytes());
        h.push(7);
        h.extend_from_slice(&(value.len() as u16).to_be_bytes());
        h.extend_from_slice(value.as_bytes());
    }
    let total = 12 + h.len() + payload.len() + 4;
    let mut m = Vec::with_capacity(total);
    m.extend_from_slice(&(total as u32).to_be_bytes());
    m.extend_from_slice(&(h.len() as u32).to_be_bytes());
    let prelude_crc = crc32fast::hash(&m);
    m.extend_from_slice(&prelude_crc.to_be_bytes());
    m.extend_from_slice(&h);
    m.extend_from_slice(payload);
    let crc = crc32fast::hash(&m);
    m.extend_from_slice(&crc.to_be_bytes());
    m
}

/// An event of a Converse stream.
pub(crate) fn event(event_type: &str, payload: &serde_json::Value) -> Vec<u8> {
    frame(
        &[(":event-type", event_type), (":content-type", "application/json"), (":message-type", "event")],
        payload.to_string().as_bytes(),
    )
}

/// An exception of a Converse stream.
pub(crate) fn exception(exception_type: &str, message: &str) -> Vec<u8> {
    let payload = serde_json::json!({ "message": message }).to_string();
    frame(
        &[(":exception-type", exception_type), (":content-type", "application/json"), (":message-type", "exception")],
        payload.as_bytes(),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn frames_carry_their_lengths_and_checksums() {
        let m = frame(&[(":event-type", "x")], b"{}");
        let total = u32::from_be_bytes([m[0], m[1], m[2], m[3]]) as usize;
        assert_eq!(total, m.len());
        assert_eq!(u32::from_be_bytes([m[8], m[9], m[10], m[11]]), crc32fast::hash(&m[..8]));
        assert_eq!(u32::from_be_bytes(m[m.len() - 4..].try_into().unwrap()), crc32fast::hash(&m[..m.len() - 4]));
    }
}
