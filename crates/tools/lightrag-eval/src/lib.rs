//! `lightrag eval`: how well a knowledge base finds the evidence for questions whose supporting
//! passages are known, mode by mode — and, with a chat model, how well it answers them.
//!
//! * [`fixture`] reads a corpus (JSONL `title`, `text`: one document per passage, named by its
//!   title) and questions (JSONL `question`, `gold_titles`, optional `answer`);
//! * [`run`] asks every question in every mode through the engine (`only_need_context`, so the
//!   retrieval alone is timed) and, on request, once more for an answer;
//! * [`metrics`] scores each question: all-gold@k and recall@k (k = 2, 5, 8 and the whole
//!   context), reciprocal rank of the first gold passage, context tokens, latency, answer exact
//!   match and F1, and [`judge`] has the chat model rate the answer's faithfulness to the
//!   context;
//! * [`report`] renders the summary as a Markdown table and an SVG chart, [`compare`] puts two
//!   runs side by side with the questions won and lost.
//!
//! The results JSON ([`EvalReport`]) keeps every per-question result, so that a later run can be
//! compared with it (`lightrag eval --baseline results.json`).

pub mod compare;
pub mod error;
pub mod fixture;
pub mod judge;
pub mod metrics;
pub mod report;
pub mod run;

pub use error::EvalError;
pub use run::{EvalOptions, EvalReport, evaluate};
