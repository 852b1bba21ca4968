//! Turning a streamed HTTP body into text deltas: a byte-to-line splitter, an SSE event
//! decoder (OpenAI), and a driver that feeds lines to a per-protocol handler (SSE or NDJSON).

use std::collections::VecDeque;

use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use lightrag_ports::{LlmError, TextStream};

use crate::http::Transport;

/// Splits bytes into lines (`\n`, with an optional `\r` before it). Lines are decoded as UTF-8
/// once complete, so multi-byte characters split across chunks survive. Each byte is looked at
/// once (the scan resumes where the previous push stopped) and the buffer is compacted once per
/// push, so a long line arriving in small pieces costs linear time; a line longer than
/// [`MAX_LINE_BYTES`] is an error instead of unbounded memory.
#[derive(Debug, Default)]
pub(crate) struct LineSplitter {
    pending: Vec<u8>,
    /// Bytes of `pending` already known to hold no `\n`.
    scanned: usize,
}

/// The longest line a streamed answer may send (a whole SSE `data:` event of a long answer fits
/// many times over).
pub(crate) const MAX_LINE_BYTES: usize = 16 << 20;

impl LineSplitter {
    /// Adds bytes; returns the lines they completed, or an error when a line grows beyond
    /// [`MAX_LINE_BYTES`].
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<String>, LlmError> {
        self.pending.extend_from_slice(bytes);
        let mut lines = Vec::new();
        let mut start = 0;
        let mut from = self.scanned;
        while let Some(offset) = self.pending[from..].iter().position(|b| *b == b'\n') {
            let end = from + offset;
            let mut line = &self.pending[start..end];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            lines.push(String::from_utf8_lossy(line).into_owned());
            start = end + 1;
            from = start;
        }
        self.pending.drain(..start);
        self.scanned = self.pending.len();
        if self.pending.len() > MAX_LINE_BYTES {
            self.pending.clear();
            self.scanned = 0;
            return Err(LlmError::InvalidResponse(format!(
                "a streamed line grew beyond {} MiB without ending",
                MAX_LINE_BYTES >> 20
            )));
        }
        Ok(lines)
    }

    /// The unterminated last line, if any.
    pub fn finish(&mut self) -> Option<String> {
        if self.pending.is_empty() {
            return None;
        }
        let line = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        self.scanned = 0;
        Some(line)
    }
}

/// Collects SSE `data:` lines into events; an empty line ends an event.
#[derive(Debug, Default)]
pub(crate) struct SseDecoder {
    data: Vec<String>,
}

impl SseDecoder {
    /// Feeds one line; returns the event's data when the line completes an event.
    pub fn line(&mut self, line: &str) -> Option<String> {
        if line.is_empty() {
            if self.data.is_empty() {
                return None;
            }
            let event = self.data.join("\n");
            self.data.clear();
            return Some(event);
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        if field == "data" {
            self.data.push(value.strip_prefix(' ').unwrap_or(value).to_string());
        }
        None
    }
}

/// What a protocol handler makes of one line.
pub(crate) enum Step {
    /// A text delta to yield (empty ones are skipped).
    Text(String),
    /// Nothing to yield.
    Skip,
    /// The answer is complete.
    Done,
    /// The stream reported an error or could not be read.
    Fail(LlmError),
}

struct Driver<F> {
    body: BoxStream<'static, reqwest::Result<Bytes>>,
    lines: LineSplitter,
    ready: VecDeque<String>,
    eof: bool,
    finished: bool,
    on_line: F,
    transport: Transport,
}

/// Feeds the body's lines to `on_line` and yields its text deltas. At the end of the body an
/// empty line is fed (to flush a pending SSE event). A body that ends without `Step::Done`
/// just ends the stream.
pub(crate) fn text_stream<F>(response: reqwest::Response, transport: Transport, on_line: F) -> TextStream
where
    F: FnMut(&str) -> Step + Send + 'static,
{
    let driver = Driver {
        body: response.bytes_stream().boxed(),
        lines: LineSplitter::default(),
        ready: VecDeque::new(),
        eof: false,
        finished: false,
        on_line,
        transport,
    };
    Box::pin(futures::stream::unfold(driver, |mut d| async move {
        loop {
            if d.finished {
                return None;
            }
            if let Some(line) = d.ready.pop_front() {
                match (d.on_line)(&line) {
                    Step::Text(text) if !text.is_empty() => return Some((Ok(text), d)),
                    Step::Text(_) | Step::Skip => continue,
                    // Returning `None` ends the stream; the state is dropped.
                    Step::Done => return None,
                    Step::Fail(e) => {
                        d.finished = true;
                        return Some((Err(e), d));
                    }
                }
            }
            if d.eof {
                return None;
            }
            match d.body.next().await {
                Some(Ok(bytes)) => match d.lines.push(&bytes) {
                    Ok(lines) => d.ready.extend(lines),
                    Err(e) => {
                        d.finished = true;
                        return Some((Err(e), d));
                    }
                },
                Some(Err(e)) => {
                    d.finished = true;
                    let failure = d.transport.failure(&e);
                    return Some((Err(failure.into()), d));
                }
                None => {
                    d.eof = true;
                    if let Some(rest) = d.lines.finish() {
                        d.ready.push_back(rest);
                    }
                    d.ready.push_back(String::new());
                }
            }
        }
    }))
}

struct BytesDriver<F> {
    body: BoxStream<'static, reqwest::Result<Bytes>>,
    ready: VecDeque<Step>,
    eof: bool,
    finished: bool,
    on_bytes: F,
    transport: Transport,
}

/// Feeds the raw body to `on_bytes` (`None` once at the end) and yields the text of the steps it
/// returns, for protocols that are not line based (plain text, binary event streams).
pub(crate) fn bytes_stream<F>(response: reqwest::Response, transport: Transport, on_bytes: F) -> TextStream
where
    F: FnMut(Option<&[u8]>) -> Vec<Step> + Send + 'static,
{
    let driver = BytesDriver {
        body: response.bytes_stream().boxed(),
        ready: VecDeque::new(),
        eof: false,
        finished: false,
        on_bytes,
        transport,
    };
    Box::pin(futures::stream::unfold(driver, |mut d| async move {
        loop {
            if d.finished {
                return None;
            }
            if let Some(step) = d.ready.pop_front() {
                match step {
                    Step::Text(text) if !text.is_empty() => return Some((Ok(text), d)),
                    Step::Text(_) | Step::Skip => continue,
                    Step::Done => return None,
                    Step::Fail(e) => {
                        d.finished = true;
                        return Some((Err(e), d));
                    }
                }
            }
            if d.eof {
                return None;
            }
            match d.body.next().await {
                Some(Ok(bytes)) => {
                    let steps = (d.on_bytes)(Some(&bytes));
                    d.ready.extend(steps);
                }
                Some(Err(e)) => {
                    d.finished = true;
                    let failure = d.transport.failure(&e);
                    return Some((Err(failure.into()), d));
                }
                None => {
                    d.eof = true;
                    let steps = (d.on_bytes)(None);
                    d.ready.extend(steps);
                }
            }
        }
    }))
}

/// Decodes UTF-8 across chunk boundaries: complete characters now, an incomplete tail later.
#[derive(Debug, Default)]
pub(crate) struct Utf8Decoder {
    pending: Vec<u8>,
}

impl Utf8Decoder {
    /// Adds bytes (`None` at the end of the body) and returns the text decoded so far.
    pub fn push(&mut self, bytes: Option<&[u8]>) -> String {
        match bytes {
            Some(b) => {
                self.pending.extend_from_slice(b);
                let valid = match std::str::from_utf8(&self.pending) {
                    Ok(_) => self.pending.len(),
                    // an error with no length is an incomplete character at the end: keep it
                    Err(e) if e.error_len().is_none() => e.valid_up_to(),
                    Err(_) => self.pending.len(),
                };
                let done: Vec<u8> = self.pending.drain(..valid).collect();
                String::from_utf8_lossy(&done).into_owned()
            }
            None => {
                let rest = std::mem::take(&mut self.pending);
                String::from_utf8_lossy(&rest).into_owned()
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    #[test]
    fn utf8_survives_any_split() {
        let text = "héllo 日本 wörld";
        let bytes = text.as_bytes();
        for size in 1..=bytes.len() {
            let mut d = Utf8Decoder::default();
            let mut out: String = bytes.chunks(size).map(|c| d.push(Some(c))).collect();
            out.push_str(&d.push(None));
            assert_eq!(out, text, "chunk size {size}");
        }
    }

    use super::*;

    #[test]
    fn lines_split_across_chunks_and_keep_utf8() {
        let mut s = LineSplitter::default();
        let text = "data: h\u{e9}llo\r\n\ndata: [DONE]";
        let bytes = text.as_bytes();
        let mut lines = Vec::new();
        for chunk in bytes.chunks(3) {
            lines.extend(s.push(chunk).unwrap());
        }
        lines.extend(s.finish());
        assert_eq!(lines, vec!["data: h\u{e9}llo", "", "data: [DONE]"]);
        assert_eq!(s.finish(), None);
    }

    #[test]
    fn every_chunking_gives_the_same_lines() {
        let text = "data: {\"a\": \"\u{e9}\u{65e5}\"}\r\n\n: comment\ndata: [DONE]\n\nlast";
        let bytes = text.as_bytes();
        let mut expected = LineSplitter::default().push(bytes).unwrap();
        expected.push("last".to_string());
        for size in 1..=bytes.len() {
            let mut s = LineSplitter::default();
            let mut lines: Vec<String> = bytes.chunks(size).flat_map(|c| s.push(c).unwrap()).collect();
            lines.extend(s.finish());
            assert_eq!(lines, expected, "chunk size {size}");
        }
    }

    /// Regression: the splitter rescanned its whole buffer on every push and kept an endless
    /// line in memory. A line past the limit is an error; the splitter is usable afterwards.
    #[test]
    fn an_endless_line_is_an_error_not_unbounded_memory() {
        let mut s = LineSplitter::default();
        let piece = vec![b'x'; 1 << 20];
        let mut failed = false;
        for _ in 0..(MAX_LINE_BYTES >> 20) + 2 {
            if s.push(&piece).is_err() {
                failed = true;
                break;
            }
        }
        assert!(failed, "a line beyond MAX_LINE_BYTES is refused");
        assert_eq!(s.push(b"ok\n").unwrap(), vec!["ok"]);
    }

    #[test]
    fn sse_events_join_data_lines_and_skip_comments() {
        let mut d = SseDecoder::default();
        assert_eq!(d.line(": keep-alive"), None);
        assert_eq!(d.line("event: message"), None);
        assert_eq!(d.line("data: {\"a\":"), None);
        assert_eq!(d.line("data:1}"), None);
        assert_eq!(d.line(""), Some("{\"a\":\n1}".to_string()));
        assert_eq!(d.line(""), None);
    }
}
