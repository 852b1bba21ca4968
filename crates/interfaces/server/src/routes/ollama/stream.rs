//! NDJSON answers: one JSON object per line — a line per piece of the answer (`done: false`),
//! then a closing line with `done: true` and the timing fields. A failure after the stream has
//! started becomes an error line followed by a bare `done: true` line (HTTP status stays 200).

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt};
use lightrag_engine::Engine;
use lightrag_ports::TextStream;
use serde_json::Value;

use super::models::{Clock, Flavor};

/// What every line of an answer needs to know.
pub struct LineContext {
    /// Generate or chat shapes.
    pub flavor: Flavor,
    /// The emulated model name.
    pub model: String,
    /// Timing since the request arrived.
    pub clock: Clock,
    /// Tokens of the prompt.
    pub prompt_tokens: usize,
    /// Counts the answer's tokens.
    pub engine: Engine,
}

fn to_line(value: &Value) -> String {
    format!("{value}\n")
}

/// A 200 response streaming `lines` as `application/x-ndjson`.
pub fn ndjson_response(lines: impl Stream<Item = String> + Send + 'static) -> Response {
    let body = Body::from_stream(lines.map(Ok::<_, std::convert::Infallible>));
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/x-ndjson"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// A complete text sent as a stream: one line with the text, then the closing line (LightRAG
/// does the same when the answer is a string: the context, or the no-result sentence).
pub fn whole_text(mut ctx: LineContext, text: String) -> impl Stream<Item = String> + Send + 'static {
    ctx.clock.mark();
    let first = to_line(&Value::Object(ctx.flavor.line(&ctx.model, &text, false)));
    let timings = ctx.clock.timings(ctx.prompt_tokens, ctx.engine.count_tokens(&text));
    let last = to_line(&ctx.flavor.final_line(&ctx.model, "", &timings));
    futures::stream::iter([first, last])
}

struct Pieces {
    ctx: LineContext,
    source: TextStream,
    text: String,
    finished: bool,
}

/// The LLM's pieces as lines, then the closing line with timings and token counts. Empty pieces
/// are skipped. An error ends the stream with an error line and a bare `done: true` line.
pub fn pieces(ctx: LineContext, source: TextStream) -> impl Stream<Item = String> + Send + 'static {
    let state = Pieces { ctx, source, text: String::new(), finished: false };
    futures::stream::unfold(state, |mut st| async move {
        if st.finished {
            return None;
        }
        loop {
            match st.source.next().await {
                Some(Ok(piece)) if piece.is_empty() => continue,
                Some(Ok(piece)) => {
                    st.ctx.clock.mark();
                    st.text.push_str(&piece);
                    let line = to_line(&Value::Object(st.ctx.flavor.line(&st.ctx.model, &piece, false)));
                    return Some((line, st));
                }
                Some(Err(e)) => {
                    st.finished = true;
                    tracing::warn!(error = %e, "the LLM stream failed");
                    let ctx = &st.ctx;
                    let error = to_line(&ctx.flavor.error_line(&ctx.model, &format!("Provider error: {e}")));
                    let close = to_line(&Value::Object(ctx.flavor.line(&ctx.model, "", true)));
                    return Some((error + &close, st));
                }
                None => {
                    st.finished = true;
                    let ctx = &st.ctx;
                    let timings = ctx.clock.timings(ctx.prompt_tokens, ctx.engine.count_tokens(&st.text));
                    let line = to_line(&ctx.flavor.final_line(&ctx.model, "", &timings));
                    return Some((line, st));
                }
            }
        }
    })
}
