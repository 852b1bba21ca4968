//! A measurement, not a test of behaviour (ignored by default): our SSE line splitter and
//! decoder against the `eventsource-stream` crate on the same 64 MiB OpenAI-style stream, fed in
//! 16 KiB pieces. Run it with
//! `cargo test -p lightrag-llm-http --release --lib -- --ignored sse_decoding_throughput --nocapture`;
//! the figures are in BENCHMARKS.md ("Streamed answers: our splitter or eventsource-stream").

use std::time::Instant;

use bytes::Bytes;
use futures::StreamExt;

use crate::stream::{LineSplitter, SseDecoder};

fn openai_stream(bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 256);
    let mut i = 0usize;
    while out.len() < bytes {
        let event = format!(
            "data: {{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"word{} \"}}}}]}}\n\n",
            i % 1000
        );
        out.extend_from_slice(event.as_bytes());
        i += 1;
    }
    out.extend_from_slice(b"data: [DONE]\n\n");
    out
}

#[test]
#[ignore = "a measurement; run with --release --ignored"]
fn sse_decoding_throughput() {
    let body = openai_stream(64 << 20);
    let pieces: Vec<Bytes> = body.chunks(16 << 10).map(Bytes::copy_from_slice).collect();
    let mib = body.len() as f64 / f64::from(1 << 20);

    for round in 0..3 {
        let started = Instant::now();
        let (mut splitter, mut decoder, mut ours) = (LineSplitter::default(), SseDecoder::default(), 0usize);
        for piece in &pieces {
            for line in splitter.push(piece).expect("lines") {
                ours += usize::from(decoder.line(&line).is_some());
            }
        }
        let ours_secs = started.elapsed().as_secs_f64();

        let started = Instant::now();
        let stream = futures::stream::iter(pieces.iter().cloned().map(Ok::<Bytes, std::io::Error>));
        let theirs = futures::executor::block_on(
            eventsource_stream::Eventsource::eventsource(stream).filter(|e| futures::future::ready(e.is_ok())).count(),
        );
        let theirs_secs = started.elapsed().as_secs_f64();
        assert_eq!(ours, theirs, "both decoders see every event");
        eprintln!(
            "round {round}: {ours} events in {mib:.0} MiB — ours {ours_secs:.3} s ({:.0} MiB/s), eventsource-stream {theirs_secs:.3} s ({:.0} MiB/s)",
            mib / ours_secs,
            mib / theirs_secs
        );
    }
}
