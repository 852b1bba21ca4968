//! Settings of every binding a LightRAG `.env` can name (LLM `lollms`, `gemini`, `bedrock` /
//! `aws_bedrock`, `openai-ollama`; embeddings `jina`, `voyageai`, `gemini`, `bedrock`,
//! `lollms`; rerank `cohere`, `jina`, `aliyun`), their defaults and their start-up errors, and
//! that each one builds its client without a network call.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use lightrag_config::{ConfigError, EmbeddingBinding, LlmBinding, Providers, RawConfig, Settings};

fn load(p: &[(&str, &str)]) -> Result<Settings, ConfigError> {
    let env = [("HOME", "/h")].iter().chain(p).map(|(k, v)| (k.to_string(), v.to_string()));
    Settings::from_raw(&RawConfig::from_sources(env, None, None, BTreeMap::new())?)
}

fn err(p: &[(&str, &str)]) -> String {
    load(p).err().map(|e| e.to_string()).unwrap_or_else(|| "no error".into())
}

const AWS: [(&str, &str); 3] =
    [("AWS_REGION", "eu-central-1"), ("AWS_ACCESS_KEY_ID", "AKID"), ("AWS_SECRET_ACCESS_KEY", "shh-secret")];

#[test]
fn gemini_chat_and_embeddings_take_their_keys_defaults_and_options() {
    let s = load(&[
        ("LLM_BINDING", "gemini"),
        ("LLM_BINDING_HOST", "DEFAULT_GEMINI_ENDPOINT"),
        ("GEMINI_API_KEY", "g-key"),
        ("GEMINI_LLM_MAX_OUTPUT_TOKENS", "900"),
        ("GEMINI_LLM_TEMPERATURE", "0.4"),
        ("GEMINI_LLM_THINKING_CONFIG", r#"{"thinking_budget": 0}"#),
        ("GEMINI_LLM_STOP_SEQUENCES", r#"["END"]"#),
        ("EMBEDDING_BINDING", "gemini"),
    ])
    .unwrap();
    assert_eq!(s.llm.binding, LlmBinding::Gemini);
    assert_eq!(s.llm.host, "https://generativelanguage.googleapis.com");
    assert_eq!(s.llm.model, "gemini-2.5-flash");
    assert_eq!(s.llm.api_key.as_ref().map(|k| k.expose()), Some("g-key"));
    assert_eq!(s.llm.max_tokens, Some(900));
    assert_eq!(s.llm.temperature, Some(0.4));
    assert_eq!(s.llm.stop, vec!["END".to_string()]);
    assert_eq!(s.llm.extra_body, Some(serde_json::json!({"thinkingConfig": {"thinking_budget": 0}})));
    assert_eq!(s.embedding.binding, EmbeddingBinding::Gemini);
    assert_eq!(s.embedding.model, "gemini-embedding-001");
    assert_eq!(s.embedding.dim, 1536, "LightRAG's default dimension");
    assert!(s.embedding.send_dim, "Gemini always receives the dimension");
    assert_eq!(s.embedding.api_key.as_ref().map(|k| k.expose()), Some("g-key"), "falls back to GEMINI_API_KEY");
    Providers::build(&s).unwrap();
}

#[test]
fn gemini_without_a_key_or_in_vertex_mode_is_a_start_up_error() {
    let e = err(&[("LLM_BINDING", "gemini")]);
    assert!(e.contains("LLM_BINDING_API_KEY") && e.contains("GEMINI_API_KEY"), "{e}");
    let e = err(&[("LLM_BINDING", "gemini"), ("GEMINI_API_KEY", "k"), ("GOOGLE_GENAI_USE_VERTEXAI", "true")]);
    assert!(e.contains("Vertex AI") && e.contains("LLM_BINDING=openai"), "{e}");
}

#[test]
fn bedrock_reads_aws_credentials_and_defaults_to_the_regional_endpoint() {
    let mut p = vec![
        ("LLM_BINDING", "aws_bedrock"),
        ("LLM_MODEL", "anthropic.claude-3-haiku-20240307-v1:0"),
        ("AWS_SESSION_TOKEN", "tok"),
        ("BEDROCK_LLM_MAX_TOKENS", "2048"),
        ("BEDROCK_LLM_EXTRA_FIELDS", r#"{"top_k": 50}"#),
        ("EMBEDDING_BINDING", "bedrock"),
    ];
    p.extend(AWS);
    let s = load(&p).unwrap();
    assert_eq!(s.llm.binding, LlmBinding::Bedrock);
    assert_eq!(s.llm.host, "https://bedrock-runtime.eu-central-1.amazonaws.com");
    let aws = s.llm.aws.as_ref().unwrap();
    assert_eq!(aws.region, "eu-central-1");
    assert_eq!(aws.access_key_id.as_deref(), Some("AKID"));
    assert_eq!(s.llm.max_tokens, Some(2048));
    assert_eq!(s.embedding.model, "amazon.titan-embed-text-v2:0");
    assert_eq!(s.embedding.dim, 1024);
    assert!(!format!("{s:?}").contains("shh-secret"), "secrets stay out of Debug");
    Providers::build(&s).unwrap();
}

#[test]
fn bedrock_without_region_model_or_full_credentials_is_a_start_up_error() {
    let e = err(&[
        ("LLM_BINDING", "bedrock"),
        ("LLM_MODEL", "m"),
        ("AWS_ACCESS_KEY_ID", "a"),
        ("AWS_SECRET_ACCESS_KEY", "b"),
    ]);
    assert!(e.contains("AWS_REGION"), "{e}");
    let e =
        err(&[("LLM_BINDING", "bedrock"), ("LLM_MODEL", "m"), ("AWS_REGION", "us-east-1"), ("AWS_ACCESS_KEY_ID", "a")]);
    assert!(e.contains("both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"), "{e}");
    let e = err(&[("LLM_BINDING", "bedrock"), ("LLM_MODEL", "m"), ("AWS_REGION", "us-east-1")]);
    assert!(e.contains("AWS_BEARER_TOKEN_BEDROCK"), "{e}");
    let e = err(&[("LLM_BINDING", "bedrock"), ("AWS_REGION", "us-east-1"), ("AWS_BEARER_TOKEN_BEDROCK", "k")]);
    assert!(e.contains("LLM_MODEL"), "{e}");
}

#[test]
fn lollms_has_its_default_host_for_chat_and_embeddings() {
    let s = load(&[("LLM_BINDING", "lollms"), ("EMBEDDING_BINDING", "lollms")]).unwrap();
    assert_eq!(s.llm.host, "http://localhost:9600");
    assert_eq!(s.embedding.host.as_deref(), Some("http://localhost:9600"));
    assert_eq!(s.embedding.dim, 1024);
    Providers::build(&s).unwrap();
}

#[test]
fn openai_ollama_is_openai_chat_with_ollama_embeddings() {
    let s = load(&[("LLM_BINDING", "openai-ollama"), ("LLM_BINDING_HOST", "http://127.0.0.1:8000/v1")]).unwrap();
    assert_eq!(s.llm.binding, LlmBinding::OpenAi);
    assert_eq!(s.embedding.binding, EmbeddingBinding::Ollama);
    assert_eq!(s.embedding.host.as_deref(), Some("http://localhost:11434"));
    // as in LightRAG, another EMBEDDING_BINDING is overridden, and said so at start-up
    let s =
        load(&[("LLM_BINDING", "openai-ollama"), ("LLM_BINDING_HOST", "http://h/v1"), ("EMBEDDING_BINDING", "openai")])
            .unwrap();
    assert_eq!(s.embedding.binding, EmbeddingBinding::Ollama);
    assert!(s.ignored.iter().any(|i| i.key == "EMBEDDING_BINDING"), "{:?}", s.ignored);
}

#[test]
fn jina_and_voyage_embeddings_take_their_keys_and_defaults() {
    let s = load(&[("EMBEDDING_BINDING", "jina"), ("JINA_API_KEY", "j")]).unwrap();
    assert_eq!(s.embedding.model, "jina-embeddings-v4");
    assert_eq!(s.embedding.dim, 2048);
    assert_eq!(s.embedding.host.as_deref(), Some("https://api.jina.ai/v1"));
    assert!(s.embedding.send_dim);
    Providers::build(&s).unwrap();
    let s = load(&[("EMBEDDING_BINDING", "voyageai"), ("VOYAGE_API_KEY", "v"), ("EMBEDDING_MODEL", "voyage-3-lite")])
        .unwrap();
    assert_eq!(s.embedding.dim, 512);
    assert_eq!(s.embedding.api_key.as_ref().map(|k| k.expose()), Some("v"));
    let e = err(&[("EMBEDDING_BINDING", "jina")]);
    assert!(e.contains("JINA_API_KEY"), "{e}");
    let e = err(&[("EMBEDDING_BINDING", "jina"), ("JINA_API_KEY", "j"), ("EMBEDDING_MODEL", "my-own-model")]);
    assert!(e.contains("EMBEDDING_DIM"), "a custom model needs its dimension: {e}");
}

#[test]
fn rerank_settings_follow_lightrag() {
    let s = load(&[]).unwrap();
    assert!(s.rerank.is_none());
    assert!(s.engine.query.rerank_by_default);
    assert_eq!(s.engine.rerank.timeout_secs, 30);
    let s = load(&[
        ("RERANK_BINDING", "cohere"),
        ("COHERE_API_KEY", "c"),
        ("MIN_RERANK_SCORE", "0.25"),
        ("RERANK_BY_DEFAULT", "false"),
        ("MAX_ASYNC", "6"),
        ("RERANK_TIMEOUT", "9"),
        ("RERANK_ENABLE_CHUNKING", "true"),
        ("EMBEDDING_BINDING", "ollama"),
    ])
    .unwrap();
    let r = s.rerank.as_ref().unwrap();
    assert_eq!(r.model, "rerank-v3.5");
    assert_eq!(r.host, "https://api.cohere.com/v2/rerank");
    assert!(r.enable_chunking);
    assert_eq!(r.max_tokens_per_doc, 4096);
    assert_eq!(s.engine.query.min_rerank_score, 0.25);
    assert!(!s.engine.query.rerank_by_default);
    assert_eq!(s.engine.rerank.max_async, 6, "MAX_ASYNC_RERANK falls back to MAX_ASYNC");
    assert_eq!(s.engine.rerank.timeout_secs, 9);
    assert!(Providers::build(&s).unwrap().reranker.is_some());
    let s = load(&[("RERANK_BINDING", "aliyun"), ("DASHSCOPE_API_KEY", "d"), ("MAX_ASYNC_RERANK", "2")]).unwrap();
    assert_eq!(s.rerank.as_ref().unwrap().model, "gte-rerank-v2");
    assert_eq!(s.engine.rerank.max_async, 2);
    let s = load(&[("RERANK_BINDING", "jina"), ("RERANK_BINDING_HOST", "http://127.0.0.1:1/rerank")]).unwrap();
    assert_eq!(s.rerank.as_ref().unwrap().model, "jina-reranker-v2-base-multilingual");
    let e = err(&[("RERANK_BINDING", "cohere")]);
    assert!(e.contains("RERANK_BINDING_API_KEY") && e.contains("COHERE_API_KEY"), "{e}");
    let e = err(&[("RERANK_BINDING", "voyage")]);
    assert!(e.contains("one of null, cohere, jina, aliyun"), "{e}");
}

#[test]
fn role_models_can_use_bedrock_with_their_own_aws_settings() {
    let mut p = vec![
        ("LLM_BINDING", "openai"),
        ("LLM_BINDING_HOST", "http://main/v1"),
        ("EXTRACT_LLM_BINDING", "bedrock"),
        ("EXTRACT_LLM_MODEL", "amazon.nova-lite-v1:0"),
        ("EXTRACT_AWS_REGION", "us-west-2"),
        ("EXTRACT_AWS_ACCESS_KEY_ID", "ROLEKEY"),
        ("EXTRACT_AWS_SECRET_ACCESS_KEY", "role-secret"),
    ];
    p.extend([("AWS_REGION", "eu-central-1")]);
    let s = load(&p).unwrap();
    let extract = &s.role_llms[0].llm;
    assert_eq!(extract.binding, LlmBinding::Bedrock);
    assert_eq!(extract.aws.as_ref().unwrap().region, "us-west-2");
    assert_eq!(extract.aws.as_ref().unwrap().access_key_id.as_deref(), Some("ROLEKEY"));
    assert_eq!(extract.host, "https://bedrock-runtime.us-west-2.amazonaws.com");
    let e = err(&[("LLM_BINDING", "openai"), ("LLM_BINDING_HOST", "http://main/v1"), ("QUERY_LLM_BINDING", "gemini")]);
    assert!(e.contains("QUERY_LLM_MODEL"), "a cross-provider role needs its own model: {e}");
}
