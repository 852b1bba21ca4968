//! A deterministic, scriptable LLM server (chat, streaming chat, embeddings, rerank) speaking the
//! wire formats of every provider lightrag-rs supports, with fault injection, for tests and
//! benchmarks. No network, no keys, no model.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use lightrag_scripted_llm::{Fault, ScriptConfig, ScriptedLlm};
//! let server = ScriptedLlm::start(ScriptConfig::default()).await?;
//! let base = server.base_url(); // http://127.0.0.1:PORT/v1
//! server.push_fault(Fault::rate_limit(2)); // the next two requests get HTTP 429
//! // ... point a client at `base` ...
//! println!("{} extraction calls", server.stats().extract);
//! server.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! # Routes
//! * `POST /v1/chat/completions` (JSON, or SSE with `"stream": true`), `POST /v1/embeddings`,
//!   `GET /v1/models`;
//! * Ollama native: `POST /api/chat` (NDJSON stream unless `"stream": false`), `POST /api/embed`,
//!   `GET /api/tags`;
//! * Azure OpenAI: `POST /openai/deployments/{d}/chat/completions?api-version=V` and
//!   `.../embeddings?api-version=V`;
//! * Gemini API: `POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent?alt=sse`,
//!   `:embedContent`, `:batchEmbedContents` (`x-goog-api-key`);
//! * Amazon Bedrock Runtime: `POST /model/{id}/converse`, `/converse-stream` (AWS event stream),
//!   `/invoke` (Titan and Cohere embeddings), with SigV4 verification when
//!   [`ScriptConfig::aws`] is set;
//! * lollms: `POST /lollms_generate` (plain text, streamed when asked), `POST /lollms_embed`;
//! * Jina AI: `POST /jina/v1/embeddings` (base64 vectors), `POST /jina/v1/rerank`; Voyage AI:
//!   `POST /voyage/v1/embeddings`; Cohere: `POST /cohere/v2/rerank`; Aliyun DashScope:
//!   `POST /dashscope/api/v1/services/rerank/text-rerank/text-rerank`. Rerank scores are
//!   [`rerank_score`]: the share of the query's words found in the document;
//! * control: `POST /_control/faults` (a [`Fault`], a list, or `{"faults": [...], "append": bool}`),
//!   `GET /_control/faults`, `GET /_control/stats` ([`Stats`]), `POST /_control/reset`.
//!
//! # How prompts are recognised ([`recognise()`])
//! * **extract**: the last user message has a line `---Input Text---` followed by a fenced
//!   block → LightRAG records (`entity<|#|>Name<|#|>type<|#|>description`,
//!   `relation<|#|>Source<|#|>Target<|#|>kw1,kw2<|#|>description`) and `<|COMPLETE|>`.
//!   Entities are the capitalised name runs of the text; relations join consecutive names of a
//!   sentence.
//! * **JSON extract / glean**: the same, when a message shows both quoted keys `"entities"` and
//!   `"relationships"` (LightRAG's JSON extraction layout) → the same records as one JSON object
//!   `{"entities": [{name, type, description}], "relationships": [{source, target, keywords,
//!   description}]}` ([`extraction_json_output`]); gleaning → empty lists.
//! * **glean**: an extraction in the history and a new user message without `---Input Text---`
//!   → `<|COMPLETE|>` (or one extra `Gleaned Entity` record with
//!   [`ScriptConfig::glean_extra_entity`]).
//! * **summary**: `Name: X` and `Description List:` with fenced `{"Description": ...}` lines →
//!   `X: ` + the first sentence of each description (≤ 600 chars).
//! * **keywords**: the messages mention `high_level_keywords` and `low_level_keywords` and have a
//!   `User Query:` line → JSON; low = capitalised names of the question, high = other words.
//! * **judge**: a prompt asking for `"faithfulness"` with `Context:` and `Answer:` sections (the
//!   `lightrag eval` judge) → `{"faithfulness": S}`, S the share of the answer's non-stop words
//!   found in the context ([`judge_output`]).
//! * **decompose**: a prompt showing `"sub_questions"` with a `Question:` line (the engine's query
//!   decomposition) → `{"sub_questions": [...]}`, one `Who or what is <name>?` per capitalised
//!   name of the question, none when it has fewer than two ([`decompose_output`]).
//! * **answer**: anything else → `Answer based on N context lines. ` + an excerpt of the
//!   `Document Chunks` section (or of the system prompt), plus a `### References` section
//!   copied from a `Reference Document List`.
//!
//! Embeddings are hashed bags of words and character trigrams, L2-normalised
//! ([`embed_text`]). Usage counts words as tokens.

mod eventstream;
mod extract;
mod faults;
mod generate;
mod providers;
mod recognise;
mod routes;
mod server;
mod services;
mod sigv4;
mod stats;
mod text;

pub use extract::{
    COMPLETION_DELIMITER, TUPLE_DELIMITER, extraction_json_output, extraction_output, glean_json_output, glean_output,
    malformed_extraction_output,
};
pub use faults::{Fault, FaultAction, RouteKind};
pub use generate::{
    answer_output, decompose_output, embed_text, judge_output, keywords_output, respond, summary_output,
};
pub use recognise::{Message, PromptKind, Recognised, messages_from_body, recognise};
pub use server::{AwsTestCredentials, ScriptConfig, ScriptedLlm, ScriptedServer};
pub use services::rerank_score;
pub use stats::{RecordedRequest, Stats};
