//! Rerank services behind [`lightrag_ports::Reranker`]: Cohere (`POST /v2/rerank`, also any
//! Cohere-compatible server such as vLLM), Jina AI (`POST /v1/rerank`) and Aliyun DashScope
//! (`text-rerank`). Cohere and Jina take `{model, query, documents, top_n}` and answer
//! `{"results": [{"index", "relevance_score"}]}`; DashScope wraps the request as
//! `{model, input: {query, documents}, parameters: {top_n}}` and the answer as
//! `{"output": {"results": [...]}}`. Every service takes a bearer key.
//!
//! For Cohere, long documents can be split before scoring (`RERANK_ENABLE_CHUNKING`,
//! `RERANK_MAX_TOKENS_PER_DOC`): each piece is scored and a document keeps its best piece's score.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use lightrag_ports::{RerankError, RerankHit, Reranker, Tokenizer, clean_hits};
use serde_json::{Value, json};

use crate::error::{BuildError, Failure};
use crate::http::{Auth, Transport, normalise_host, truncate};

/// Tokens shared by consecutive pieces of a split document.
const CHUNK_OVERLAP_TOKENS: usize = 32;

/// Which rerank service (`RERANK_BINDING`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RerankBinding {
    /// Cohere `/v2/rerank` or a compatible server.
    Cohere,
    /// Jina AI `/v1/rerank`.
    Jina,
    /// Aliyun DashScope text rerank.
    Aliyun,
}

impl RerankBinding {
    /// `cohere`, `jina` or `aliyun`.
    pub fn as_str(self) -> &'static str {
        match self {
            RerankBinding::Cohere => "cohere",
            RerankBinding::Jina => "jina",
            RerankBinding::Aliyun => "aliyun",
        }
    }

    /// LightRAG's default model of the service.
    pub fn default_model(self) -> &'static str {
        match self {
            RerankBinding::Cohere => "rerank-v3.5",
            RerankBinding::Jina => "jina-reranker-v2-base-multilingual",
            RerankBinding::Aliyun => "gte-rerank-v2",
        }
    }

    /// LightRAG's default endpoint of the service (the full URL).
    pub fn default_url(self) -> &'static str {
        match self {
            RerankBinding::Cohere => "https://api.cohere.com/v2/rerank",
            RerankBinding::Jina => "https://api.jina.ai/v1/rerank",
            RerankBinding::Aliyun => "https://dashscope.aliyuncs.com/api/v1/services/rerank/text-rerank/text-rerank",
        }
    }
}

impl fmt::Display for RerankBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown rerank service name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rerank binding `{0}`: use cohere, jina, aliyun (or null for none)")]
pub struct UnknownRerankBinding(pub String);

impl FromStr for RerankBinding {
    type Err = UnknownRerankBinding;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cohere" => Ok(RerankBinding::Cohere),
            "jina" => Ok(RerankBinding::Jina),
            "aliyun" | "dashscope" => Ok(RerankBinding::Aliyun),
            _ => Err(UnknownRerankBinding(s.to_string())),
        }
    }
}

/// Splitting long documents before scoring (Cohere only).
#[derive(Clone)]
pub struct RerankChunking {
    /// Largest piece, in tokens (`RERANK_MAX_TOKENS_PER_DOC`).
    pub max_tokens_per_doc: usize,
    /// Tokenizer that measures and cuts the documents.
    pub tokenizer: Arc<dyn Tokenizer>,
}

/// Configuration of a rerank client. `Debug` never prints the key.
#[derive(Clone)]
pub struct RerankConfig {
    /// The service.
    pub binding: RerankBinding,
    /// The endpoint URL (`RERANK_BINDING_HOST`; the full URL, as in LightRAG).
    pub url: String,
    /// Bearer key (`RERANK_BINDING_API_KEY`).
    pub api_key: Option<String>,
    /// Model (`RERANK_MODEL`).
    pub model: String,
    /// Per-request timeout (`RERANK_TIMEOUT`).
    pub timeout: Duration,
    /// Split long documents (Cohere, `RERANK_ENABLE_CHUNKING`).
    pub chunking: Option<RerankChunking>,
}

impl fmt::Debug for RerankConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RerankConfig")
            .field("binding", &self.binding)
            .field("url", &self.url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .field("chunking", &self.chunking.as_ref().map(|c| c.max_tokens_per_doc))
            .finish()
    }
}

/// A rerank service reached over HTTP.
#[derive(Clone)]
pub struct HttpReranker {
    binding: RerankBinding,
    url: String,
    model: String,
    chunking: Option<RerankChunking>,
    transport: Transport,
}

impl fmt::Debug for HttpReranker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpReranker").field("binding", &self.binding).field("url", &self.url).finish()
    }
}

impl HttpReranker {
    /// Checks the configuration. Does not contact the service.
    pub fn new(config: &RerankConfig) -> Result<Self, BuildError> {
        if config.model.trim().is_empty() {
            return Err(BuildError::MissingModel);
        }
        let auth = match &config.api_key {
            Some(k) if !k.is_empty() => Auth::Bearer(k.clone()),
            _ => Auth::None,
        };
        let chunking =
            config.chunking.clone().filter(|c| c.max_tokens_per_doc > 0 && config.binding == RerankBinding::Cohere);
        Ok(Self {
            binding: config.binding,
            url: normalise_host(&config.url)?,
            model: config.model.clone(),
            chunking,
            transport: Transport::new(config.timeout, auth)?,
        })
    }

    fn body(&self, query: &str, documents: &[String], top_n: Option<usize>) -> Value {
        match self.binding {
            RerankBinding::Aliyun => {
                let mut parameters = json!({ "return_documents": false });
                if let Some(n) = top_n {
                    parameters["top_n"] = json!(n);
                }
                json!({ "model": self.model, "input": { "query": query, "documents": documents }, "parameters": parameters })
            }
            binding => {
                let mut body = json!({ "model": self.model, "query": query, "documents": documents });
                if let Some(n) = top_n {
                    body["top_n"] = json!(n);
                }
                if binding == RerankBinding::Jina {
                    body["return_documents"] = json!(false);
                }
                body
            }
        }
    }

    /// The hits of an answer; malformed entries are skipped (and counted by the caller).
    fn parse(&self, v: &Value) -> Result<Vec<RerankHit>, Failure> {
        let pointer = if self.binding == RerankBinding::Aliyun { "/output/results" } else { "/results" };
        let results = v.pointer(pointer).and_then(Value::as_array).ok_or_else(|| {
            Failure::Invalid(format!("{} answer has no {pointer} list: {}", self.binding, truncate(&v.to_string())))
        })?;
        Ok(results
            .iter()
            .filter_map(|r| {
                let index = r.get("index")?.as_u64()? as usize;
                let relevance_score = r.get("relevance_score")?.as_f64()?;
                Some(RerankHit { index, relevance_score })
            })
            .collect())
    }

    async fn call(&self, query: &str, documents: &[String], top_n: Option<usize>) -> Result<Vec<RerankHit>, Failure> {
        let response = self.transport.post(&self.url, &self.body(query, documents, top_n), true).await?;
        let v = self.transport.read_json(response).await?;
        self.parse(&v)
    }
}

/// Splits documents longer than `max` tokens into overlapping pieces. Returns the pieces and, for
/// each, the document it came from.
pub fn split_documents(documents: &[String], max: usize, tokenizer: &dyn Tokenizer) -> (Vec<String>, Vec<usize>) {
    let overlap = if CHUNK_OVERLAP_TOKENS >= max { max / 2 } else { CHUNK_OVERLAP_TOKENS };
    let mut pieces = Vec::new();
    let mut owners = Vec::new();
    for (i, doc) in documents.iter().enumerate() {
        let tokens = tokenizer.encode(doc);
        if tokens.len() <= max {
            pieces.push(doc.clone());
            owners.push(i);
            continue;
        }
        let mut start = 0;
        loop {
            let end = (start + max).min(tokens.len());
            pieces.push(tokenizer.decode(&tokens[start..end]));
            owners.push(i);
            if end >= tokens.len() {
                break;
            }
            start = end - overlap;
        }
    }
    (pieces, owners)
}

/// Folds piece hits back to their documents, keeping each document's best score.
fn best_per_document(hits: &[RerankHit], owners: &[usize]) -> Vec<RerankHit> {
    let mut best: Vec<Option<f64>> = vec![None; owners.iter().max().map_or(0, |m| m + 1)];
    for hit in hits {
        let Some(&doc) = owners.get(hit.index) else { continue };
        if !hit.relevance_score.is_finite() {
            continue;
        }
        let slot = &mut best[doc];
        *slot = Some(slot.map_or(hit.relevance_score, |s| s.max(hit.relevance_score)));
    }
    best.into_iter()
        .enumerate()
        .filter_map(|(index, s)| s.map(|relevance_score| RerankHit { index, relevance_score }))
        .collect()
}

#[async_trait]
impl Reranker for HttpReranker {
    /// `binding:model`.
    fn identity(&self) -> String {
        format!("{}:{}", self.binding, self.model)
    }

    async fn rerank(
        &self,
        query: &str,
        documents: &[String],
        top_n: Option<usize>,
    ) -> Result<Vec<RerankHit>, RerankError> {
        if documents.is_empty() {
            return Ok(Vec::new());
        }
        let hits = match &self.chunking {
            Some(c) => {
                let (pieces, owners) = split_documents(documents, c.max_tokens_per_doc, c.tokenizer.as_ref());
                if pieces.len() == documents.len() {
                    self.call(query, documents, top_n).await?
                } else {
                    // every piece must be scored for a document to get its best score
                    let piece_hits = self.call(query, &pieces, None).await?;
                    best_per_document(&piece_hits, &owners)
                }
            }
            None => self.call(query, documents, top_n).await?,
        };
        let (kept, dropped) = clean_hits(hits, documents.len(), top_n);
        if dropped > 0 {
            tracing::warn!("{}: ignored {dropped} malformed rerank results", self.binding);
        }
        Ok(kept)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn reranker(binding: RerankBinding) -> HttpReranker {
        HttpReranker::new(&RerankConfig {
            binding,
            url: "http://127.0.0.1:9/rerank".into(),
            api_key: Some("k".into()),
            model: "m".into(),
            timeout: Duration::from_secs(5),
            chunking: None,
        })
        .unwrap()
    }

    /// Whitespace "tokens".
    struct Words;
    impl Tokenizer for Words {
        fn encode(&self, text: &str) -> Vec<u32> {
            text.split_whitespace().map(|w| w.len() as u32).collect()
        }
        fn decode(&self, tokens: &[u32]) -> String {
            tokens.iter().map(|n| "x".repeat(*n as usize)).collect::<Vec<_>>().join(" ")
        }
    }

    #[test]
    fn bodies_follow_each_service() {
        let docs = vec!["a".to_string(), "b".to_string()];
        assert_eq!(
            reranker(RerankBinding::Cohere).body("q", &docs, Some(1)),
            json!({"model": "m", "query": "q", "documents": ["a", "b"], "top_n": 1})
        );
        assert_eq!(reranker(RerankBinding::Jina).body("q", &docs, None)["return_documents"], json!(false));
        assert_eq!(
            reranker(RerankBinding::Aliyun).body("q", &docs, Some(2)),
            json!({"model": "m", "input": {"query": "q", "documents": ["a", "b"]},
                   "parameters": {"return_documents": false, "top_n": 2}})
        );
    }

    #[test]
    fn answers_parse_for_each_service() {
        let standard = json!({"results": [{"index": 1, "relevance_score": 0.9}, {"index": "x"}, {"index": 0, "relevance_score": 0.1}]});
        let hits = reranker(RerankBinding::Cohere).parse(&standard).unwrap();
        assert_eq!(hits.len(), 2);
        let aliyun =
            json!({"output": {"results": [{"index": 0, "relevance_score": 0.5}]}, "usage": {"total_tokens": 3}});
        assert_eq!(reranker(RerankBinding::Aliyun).parse(&aliyun).unwrap().len(), 1);
        assert!(reranker(RerankBinding::Aliyun).parse(&standard).is_err());
    }

    #[test]
    fn long_documents_split_with_overlap_and_keep_their_best_score() {
        let docs = vec!["a b c d e f g h i j".to_string(), "short".to_string()];
        let (pieces, owners) = split_documents(&docs, 4, &Words);
        // overlap is clamped to 2 when 32 >= 4: windows 0..4, 2..6, 4..8, 6..10
        assert_eq!(owners, vec![0, 0, 0, 0, 1]);
        assert_eq!(pieces.len(), 5);
        let hits = vec![
            RerankHit { index: 0, relevance_score: 0.2 },
            RerankHit { index: 3, relevance_score: 0.8 },
            RerankHit { index: 4, relevance_score: 0.5 },
            RerankHit { index: 9, relevance_score: 1.0 },
        ];
        let best = best_per_document(&hits, &owners);
        assert_eq!(
            best,
            vec![RerankHit { index: 0, relevance_score: 0.8 }, RerankHit { index: 1, relevance_score: 0.5 }]
        );
    }

    #[test]
    fn bindings_parse() {
        assert_eq!("Cohere".parse::<RerankBinding>(), Ok(RerankBinding::Cohere));
        assert_eq!("aliyun".parse::<RerankBinding>().map(|b| b.default_model()), Ok("gte-rerank-v2"));
        assert!("null".parse::<RerankBinding>().is_err());
    }
}
