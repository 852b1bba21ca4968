//! Running the questions through the engine, mode by mode.

use std::time::Instant;

use lightrag_engine::Engine;
use lightrag_engine::retrieval::query::{Answer, DataSection, QueryMode, QueryParam};
use serde::{Deserialize, Serialize};

use crate::error::EvalError;
use crate::fixture::{Question, passage_source};
use crate::metrics::{self, CUTOFFS, RetrievalScore, mean, quantile, score_retrieval};

/// The results file's format version.
pub const FORMAT_VERSION: u32 = 1;

/// One row of an evaluation: a query mode of the engine, or the BM25 baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvalMode {
    /// The engine's retrieval in this mode (`only_need_context`).
    Query(QueryMode),
    /// The baseline of plain lexical search: the store's BM25 index (SQLite FTS5, PostgreSQL
    /// `tsvector`) asked for the question's words less stop words, its best `chunk_top_k` chunks
    /// in its order. No graph, no vectors, no keywords.
    Bm25,
}

impl EvalMode {
    /// Every row of `--modes all`: each retrieval mode (bypass retrieves nothing), then BM25.
    pub fn all() -> Vec<EvalMode> {
        QueryMode::ALL
            .into_iter()
            .filter(|m| *m != QueryMode::Bypass)
            .map(EvalMode::Query)
            .chain(std::iter::once(EvalMode::Bm25))
            .collect()
    }

    /// The row's name (`naive`, …, `bm25`).
    pub fn as_str(self) -> &'static str {
        match self {
            EvalMode::Query(mode) => mode.as_str(),
            EvalMode::Bm25 => "bm25",
        }
    }
}

impl std::str::FromStr for EvalMode {
    type Err = lightrag_engine::retrieval::query::UnknownQueryMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().eq_ignore_ascii_case("bm25") {
            return Ok(EvalMode::Bm25);
        }
        s.parse().map(EvalMode::Query)
    }
}

/// What to evaluate.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    /// The modes, in report order.
    pub modes: Vec<EvalMode>,
    /// Also ask for an answer (needs a chat model) and score it against the questions' `answer`.
    pub answers: bool,
    /// The query parameters besides the mode (top-k, token budgets …).
    pub param: QueryParam,
}

/// One question in one mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionResult {
    /// The question.
    pub question: String,
    /// Its gold passages (as passage sources).
    pub gold: Vec<String>,
    /// The context's passages, in context order.
    pub passages: Vec<String>,
    /// Retrieval scores.
    pub score: RetrievalScore,
    /// Tokens of the context the model would read.
    pub context_tokens: usize,
    /// Retrieval time (keywords, searches, context), milliseconds.
    pub latency_ms: f64,
    /// The model's answer (with `answers`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// The expected answer, when the question file has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_answer: Option<String>,
    /// Exact match of the answer (with `answers` and an expected answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_match: Option<bool>,
    /// Word F1 of the answer (with `answers` and an expected answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub f1: Option<f64>,
    /// The judge's faithfulness score of the answer (with `answers`; `None` when the judge's
    /// reply held no score).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faithfulness: Option<f64>,
}

/// The summary of one mode over the question set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModeSummary {
    /// Questions asked.
    pub questions: usize,
    /// Mean all-gold@k for each cut-off.
    pub all_gold_at: Vec<f64>,
    /// Mean recall@k for each cut-off.
    pub recall_at: Vec<f64>,
    /// Share of questions with every gold passage in the context.
    pub all_gold_in_context: f64,
    /// Mean recall over the whole context.
    pub recall_in_context: f64,
    /// Mean reciprocal rank of the first gold passage.
    pub mrr: f64,
    /// Mean context tokens.
    pub context_tokens: f64,
    /// Median retrieval latency, ms.
    pub latency_p50_ms: f64,
    /// 95th-percentile retrieval latency, ms.
    pub latency_p95_ms: f64,
    /// Mean exact match over the questions with an expected answer (with `answers`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_match: Option<f64>,
    /// Mean F1 over the questions with an expected answer (with `answers`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub f1: Option<f64>,
    /// Mean judged faithfulness over the answers the judge scored (with `answers`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faithfulness: Option<f64>,
    /// Answers the judge gave no score for.
    #[serde(default)]
    pub unjudged: usize,
}

impl ModeSummary {
    /// Summarises per-question results.
    pub fn of(results: &[QuestionResult]) -> ModeSummary {
        let at = |i: usize| mean(results.iter().map(|r| f64::from(u8::from(r.score.all_gold_at[i]))));
        let latencies: Vec<f64> = results.iter().map(|r| r.latency_ms).collect();
        let answered: Vec<&QuestionResult> = results.iter().filter(|r| r.exact_match.is_some()).collect();
        let answers =
            |f: &dyn Fn(&QuestionResult) -> f64| (!answered.is_empty()).then(|| mean(answered.iter().map(|r| f(r))));
        ModeSummary {
            questions: results.len(),
            all_gold_at: (0..CUTOFFS.len()).map(at).collect(),
            recall_at: (0..CUTOFFS.len()).map(|i| mean(results.iter().map(|r| r.score.recall_at[i]))).collect(),
            all_gold_in_context: mean(results.iter().map(|r| f64::from(u8::from(r.score.all_gold_in_context)))),
            recall_in_context: mean(results.iter().map(|r| r.score.recall_in_context)),
            mrr: mean(results.iter().map(|r| r.score.reciprocal_rank)),
            context_tokens: mean(results.iter().map(|r| r.context_tokens as f64)),
            latency_p50_ms: quantile(&latencies, 0.5),
            latency_p95_ms: quantile(&latencies, 0.95),
            exact_match: answers(&|r| f64::from(u8::from(r.exact_match.unwrap_or(false)))),
            f1: answers(&|r| r.f1.unwrap_or(0.0)),
            faithfulness: {
                let judged: Vec<f64> = results.iter().filter_map(|r| r.faithfulness).collect();
                (!judged.is_empty()).then(|| mean(judged))
            },
            unjudged: results.iter().filter(|r| r.answer.is_some() && r.faithfulness.is_none()).count(),
        }
    }
}

/// One mode's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModeResult {
    /// The mode's name.
    pub mode: String,
    /// The summary.
    pub summary: ModeSummary,
    /// Every question, in the question file's order.
    pub questions: Vec<QuestionResult>,
}

/// A whole evaluation: what `lightrag eval` writes as JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    /// [`FORMAT_VERSION`].
    pub format: u32,
    /// The cut-offs `all_gold_at` and `recall_at` are given for.
    pub cutoffs: Vec<usize>,
    /// The modes, in the order asked.
    pub modes: Vec<ModeResult>,
}

/// Asks every question in every mode of `options` and scores the answers; `progress` is called
/// after each query with (done, total).
pub async fn evaluate(
    engine: &Engine,
    questions: &[Question],
    options: &EvalOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<EvalReport, EvalError> {
    let total = questions.len() * options.modes.len();
    let mut done = 0;
    let mut modes = Vec::new();
    for &mode in &options.modes {
        let mut results = Vec::with_capacity(questions.len());
        for (i, q) in questions.iter().enumerate() {
            let failed = |source| EvalError::Query { index: i + 1, mode: mode.as_str().to_string(), source };
            let result = match mode {
                EvalMode::Query(mode) => ask(engine, q, mode, options).await,
                EvalMode::Bm25 => ask_bm25(engine, q, options).await,
            };
            results.push(result.map_err(failed)?);
            done += 1;
            progress(done, total);
        }
        modes.push(ModeResult {
            mode: mode.as_str().to_string(),
            summary: ModeSummary::of(&results),
            questions: results,
        });
    }
    Ok(EvalReport { format: FORMAT_VERSION, cutoffs: CUTOFFS.to_vec(), modes })
}

async fn ask(
    engine: &Engine,
    q: &Question,
    mode: QueryMode,
    options: &EvalOptions,
) -> Result<QuestionResult, lightrag_engine::EngineError> {
    let param = QueryParam { mode, only_need_context: true, stream: false, ..options.param.clone() };
    let started = Instant::now();
    let result = engine.query(&q.question, &param).await?;
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    let context = match &result.answer {
        Answer::Context(text) => text.as_str(),
        _ => "",
    };
    let context_tokens = if context.is_empty() { 0 } else { engine.count_tokens(context) };
    let passages = ranked_passages(&result.data.data);
    let gold: Vec<String> = q.gold_titles.iter().map(|t| passage_source(t)).collect();
    let score = score_retrieval(&passages, &gold);
    let mut out = QuestionResult {
        question: q.question.clone(),
        gold,
        passages,
        score,
        context_tokens,
        latency_ms,
        answer: None,
        expected_answer: q.answer.clone(),
        exact_match: None,
        f1: None,
        faithfulness: None,
    };
    if options.answers {
        let param = QueryParam { mode, only_need_context: false, stream: false, ..options.param.clone() };
        let answered = engine.query(&q.question, &param).await?;
        let text = answered.answer.text().unwrap_or_default().trim().to_string();
        if let Some(expected) = &q.answer {
            out.exact_match = Some(metrics::exact_match(&text, expected));
            out.f1 = Some(metrics::f1(&text, expected));
        }
        out.faithfulness = crate::judge::judge(engine, &q.question, context, &text).await?;
        out.answer = Some(text);
    }
    Ok(out)
}

/// The BM25 baseline for one question (see [`EvalMode::Bm25`]).
async fn ask_bm25(
    engine: &Engine,
    q: &Question,
    options: &EvalOptions,
) -> Result<QuestionResult, lightrag_engine::EngineError> {
    let top_k = options.param.chunk_top_k.unwrap_or(engine.config().query.chunk_top_k);
    let started = Instant::now();
    let store = engine.store();
    let words = lightrag_engine::retrieval::query::fusion::question_words(&q.question);
    let hits = store.search_chunk_text(&words, top_k).await?;
    let ids: Vec<String> = hits.into_iter().map(|h| h.key).collect();
    let chunks: Vec<_> = store.get_chunks(&ids).await?.into_iter().flatten().collect();
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    let context: Vec<&str> = chunks.iter().map(|c| c.content.as_str()).collect();
    let context_tokens = if context.is_empty() { 0 } else { engine.count_tokens(&context.join("\n")) };
    let mut seen = std::collections::HashSet::new();
    let passages: Vec<String> =
        chunks.iter().filter(|c| seen.insert(c.file_path.as_str())).map(|c| c.file_path.clone()).collect();
    let gold: Vec<String> = q.gold_titles.iter().map(|t| passage_source(t)).collect();
    let score = score_retrieval(&passages, &gold);
    Ok(QuestionResult {
        question: q.question.clone(),
        gold,
        passages,
        score,
        context_tokens,
        latency_ms,
        answer: None,
        expected_answer: q.answer.clone(),
        exact_match: None,
        f1: None,
        faithfulness: None,
    })
}

/// The distinct passages (file paths) of the context's chunks, in context order.
pub fn ranked_passages(data: &DataSection) -> Vec<String> {
    let DataSection::Retrieved(data) = data else { return Vec::new() };
    let mut seen = std::collections::HashSet::new();
    data.chunks.iter().filter(|c| seen.insert(c.file_path.as_str())).map(|c| c.file_path.clone()).collect()
}
