//! lollms, Gemini, Amazon Bedrock, Jina AI and Voyage AI against the scripted server's routes
//! for each wire format: request shapes and auth (API-key headers, bearer tokens, AWS SigV4
//! verified by the server), answers and usage, streaming, and error classes.

use std::time::Duration;

use lightrag_llm_http::{
    AwsConfig, HttpEmbedConfig, HttpLlmConfig, LlmBinding, RerankBinding, RerankConfig, build_embedder, build_llm,
};
use lightrag_ports::{ChatRequest, EmbedError, LlmError};
use lightrag_scripted_llm::{
    AwsTestCredentials, Fault, FaultAction, RouteKind, ScriptConfig, ScriptedLlm, ScriptedServer,
};

use super::{collect, extraction_request, question};

/// The key every bearer/API-key route of the server requires.
pub const KEY: &str = "test-key";

/// A server that checks keys and AWS signatures.
pub async fn signed_server() -> ScriptedServer {
    ScriptedLlm::start(ScriptConfig {
        api_key: Some(KEY.into()),
        aws: Some(AwsTestCredentials::default()),
        ..ScriptConfig::default()
    })
    .await
    .unwrap()
}

/// SigV4 credentials matching the server's.
pub fn aws() -> AwsConfig {
    let c = AwsTestCredentials::default();
    AwsConfig {
        region: c.region,
        access_key_id: Some(c.access_key_id),
        secret_access_key: Some(c.secret_access_key),
        session_token: Some("session-token".into()),
        bearer_token: None,
    }
}

fn llm(binding: LlmBinding, host: String, model: &str) -> HttpLlmConfig {
    HttpLlmConfig {
        binding,
        host,
        api_key: Some(KEY.into()),
        model: model.into(),
        timeout: Duration::from_secs(10),
        ..HttpLlmConfig::default()
    }
}

/// Every chat client, configured for `server`.
pub fn chat_configs(server: &ScriptedServer) -> Vec<(&'static str, HttpLlmConfig)> {
    let root = server.root_url();
    vec![
        ("openai", llm(LlmBinding::OpenAi, server.base_url(), "m")),
        ("ollama", llm(LlmBinding::Ollama, root.clone(), "m")),
        (
            "azure",
            HttpLlmConfig {
                api_version: Some("2024-08-01-preview".into()),
                ..llm(LlmBinding::AzureOpenAi, root.clone(), "m")
            },
        ),
        ("lollms", llm(LlmBinding::Lollms, root.clone(), "m")),
        ("gemini", llm(LlmBinding::Gemini, root.clone(), "gemini-test")),
        (
            "bedrock",
            HttpLlmConfig {
                aws: Some(aws()),
                api_key: None,
                ..llm(LlmBinding::Bedrock, root.clone(), "anthropic.claude-test-v1:0")
            },
        ),
    ]
}

fn embed(binding: LlmBinding, host: String, model: &str, dim: usize) -> HttpEmbedConfig {
    HttpEmbedConfig {
        binding,
        host,
        api_key: Some(KEY.into()),
        model: model.into(),
        dim,
        timeout: Duration::from_secs(10),
        ..HttpEmbedConfig::default()
    }
}

/// Every embedding client, configured for `server`.
pub fn embed_configs(server: &ScriptedServer) -> Vec<(&'static str, HttpEmbedConfig)> {
    let root = server.root_url();
    let bedrock = |model: &str| HttpEmbedConfig {
        aws: Some(aws()),
        api_key: None,
        ..embed(LlmBinding::Bedrock, root.clone(), model, 64)
    };
    vec![
        ("openai", embed(LlmBinding::OpenAi, server.base_url(), "e", 64)),
        ("ollama", embed(LlmBinding::Ollama, root.clone(), "e", 64)),
        ("lollms", embed(LlmBinding::Lollms, root.clone(), "e", 64)),
        ("gemini", embed(LlmBinding::Gemini, root.clone(), "gemini-embedding-001", 48)),
        ("jina", embed(LlmBinding::Jina, format!("{root}/jina/v1"), "jina-embeddings-v4", 32)),
        ("voyageai", embed(LlmBinding::VoyageAi, format!("{root}/voyage/v1"), "voyage-3", 64)),
        ("bedrock titan", bedrock("amazon.titan-embed-text-v2:0")),
        ("bedrock cohere", bedrock("cohere.embed-english-v3")),
    ]
}

/// Every rerank client, configured for `server`.
pub fn rerank_configs(server: &ScriptedServer) -> Vec<(&'static str, RerankConfig)> {
    let root = server.root_url();
    let config = |binding, path: &str| RerankConfig {
        binding,
        url: format!("{root}{path}"),
        api_key: Some(KEY.into()),
        model: "rerank-test".into(),
        timeout: Duration::from_secs(10),
        chunking: None,
    };
    vec![
        ("cohere", config(RerankBinding::Cohere, "/cohere/v2/rerank")),
        ("jina", config(RerankBinding::Jina, "/jina/v1/rerank")),
        ("aliyun", config(RerankBinding::Aliyun, "/dashscope/api/v1/services/rerank/text-rerank/text-rerank")),
    ]
}

fn config_named<T: Clone>(configs: Vec<(&'static str, T)>, name: &str) -> T {
    configs.into_iter().find(|(n, _)| *n == name).map(|(_, c)| c).unwrap()
}

#[tokio::test]
async fn gemini_sends_its_layout_and_key_and_reports_usage() {
    let server = signed_server().await;
    let llm = build_llm(&config_named(chat_configs(&server), "gemini")).unwrap();
    assert_eq!(llm.identity(), "gemini:gemini-test");
    let request = ChatRequest { json_mode: true, ..question("Where is Acme?") };
    let answer = llm.chat(&request).await.unwrap();
    assert!(answer.content.starts_with("Answer based on"), "{}", answer.content);
    assert!(answer.usage.is_some_and(|u| u.prompt_tokens > 0 && u.completion_tokens > 0));
    let sent = server.last_request().unwrap();
    assert_eq!(sent.path, "/v1beta/models/gemini-test:generateContent");
    assert_eq!(sent.header("x-goog-api-key"), Some(KEY));
    assert_eq!(sent.body["generationConfig"]["responseMimeType"], "application/json");
    assert!(sent.body["systemInstruction"]["parts"][0]["text"].as_str().unwrap().contains("Acme is in Berlin"));
    let (text, pieces) = collect(llm.chat_stream(&extraction_request()).await.unwrap()).await.unwrap();
    assert!(pieces > 2 && text.contains("<|COMPLETE|>"), "{pieces} pieces: {text}");
    assert_eq!(server.last_request().unwrap().path, "/v1beta/models/gemini-test:streamGenerateContent?alt=sse");
}

#[tokio::test]
async fn bedrock_signs_every_request_and_streams_the_event_stream() {
    let server = signed_server().await;
    let llm = build_llm(&config_named(chat_configs(&server), "bedrock")).unwrap();
    let answer = llm.chat(&extraction_request()).await.unwrap();
    assert!(answer.content.contains("entity<|#|>Alice Smith"), "{}", answer.content);
    assert!(answer.usage.is_some());
    let sent = server.last_request().unwrap();
    assert_eq!(sent.path, "/model/anthropic.claude-test-v1%3A0/converse");
    let auth = sent.header("authorization").unwrap();
    assert!(auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDSCRIPTED/"), "{auth}");
    assert_eq!(sent.header("x-amz-security-token"), Some("session-token"));
    assert_eq!(
        sent.body["messages"][0]["content"][0]["text"].as_str().map(|t| t.contains("---Input Text---")),
        Some(true)
    );
    let (text, pieces) = collect(llm.chat_stream(&extraction_request()).await.unwrap()).await.unwrap();
    assert!(pieces > 2, "{pieces}");
    assert_eq!(text, answer.content);
    // a wrong secret is refused by the server's signature check
    let mut bad = config_named(chat_configs(&server), "bedrock");
    bad.aws = Some(AwsConfig { secret_access_key: Some("wrong".into()), ..aws() });
    let err = build_llm(&bad).unwrap().chat(&question("q")).await.unwrap_err();
    assert!(matches!(&err, LlmError::Client { status: 403, body } if body.contains("signature")), "{err:?}");
}

#[tokio::test]
async fn bedrock_accepts_a_bearer_api_key() {
    let server =
        ScriptedLlm::start(ScriptConfig { api_key: Some(KEY.into()), ..ScriptConfig::default() }).await.unwrap();
    let mut config = config_named(chat_configs(&server), "bedrock");
    config.aws = Some(AwsConfig { region: "us-east-1".into(), bearer_token: Some(KEY.into()), ..AwsConfig::default() });
    build_llm(&config).unwrap().chat(&question("q")).await.unwrap();
    assert_eq!(server.last_request().unwrap().header("authorization"), Some(&*format!("Bearer {KEY}")));
}

#[tokio::test]
async fn bedrock_stream_exceptions_become_errors() {
    let server = signed_server().await;
    server.push_fault(Fault::invalid_json(1).on_route(RouteKind::Chat));
    let llm = build_llm(&config_named(chat_configs(&server), "bedrock")).unwrap();
    let err = collect(llm.chat_stream(&question("q")).await.unwrap()).await.unwrap_err();
    assert!(matches!(err, LlmError::Server { status: 500, .. }), "{err:?}");
}

#[tokio::test]
async fn lollms_sends_one_prompt_and_streams_plain_text() {
    let server = signed_server().await;
    let llm = build_llm(&config_named(chat_configs(&server), "lollms")).unwrap();
    let answer = llm.chat(&extraction_request()).await.unwrap();
    assert!(answer.content.contains("<|COMPLETE|>"));
    assert_eq!(answer.usage, None, "lollms reports no usage");
    let sent = server.last_request().unwrap();
    assert_eq!(sent.path, "/lollms_generate");
    assert_eq!(sent.header("authorization"), Some(&*format!("Bearer {KEY}")));
    assert!(sent.body["prompt"].as_str().unwrap().starts_with("Extract entities"), "system prompt first");
    let (text, pieces) = collect(llm.chat_stream(&extraction_request()).await.unwrap()).await.unwrap();
    assert_eq!(text, answer.content);
    assert!(pieces >= 1);
}

#[tokio::test]
async fn every_chat_client_maps_error_statuses() {
    let server = signed_server().await;
    for (name, config) in chat_configs(&server) {
        let llm = build_llm(&config).unwrap();
        server.push_fault(Fault::new(FaultAction::RateLimit { retry_after_secs: 2 }, 1));
        let e = llm.chat(&question("q")).await.unwrap_err();
        assert!(matches!(e, LlmError::RateLimited { retry_after_secs: Some(s) } if s == 2.0), "{name}: {e:?}");
        server.push_fault(Fault::server_error(1));
        let e = llm.chat(&question("q")).await.unwrap_err();
        assert!(matches!(e, LlmError::Server { status: 500, .. }) && e.is_retryable(), "{name}: {e:?}");
        server.push_fault(Fault::status(503, 1));
        assert!(
            matches!(llm.chat_stream(&question("q")).await.err(), Some(LlmError::Server { status: 503, .. })),
            "{name}"
        );
        let unauthorised = HttpLlmConfig {
            api_key: Some("wrong".into()),
            aws: config.aws.clone().map(|a| AwsConfig { access_key_id: Some("NOPE".into()), ..a }),
            ..config
        };
        let e = build_llm(&unauthorised).unwrap().chat(&question("q")).await.unwrap_err();
        assert!(matches!(e, LlmError::Client { status: 401 | 403, .. }) && !e.is_retryable(), "{name}: {e:?}");
    }
}

#[tokio::test]
async fn every_embedding_client_maps_error_statuses() {
    let server = signed_server().await;
    for (name, config) in embed_configs(&server) {
        let embedder = build_embedder(&config).unwrap();
        server.push_fault(Fault::rate_limit(1).on_route(RouteKind::Embed));
        let e = embedder.embed(&["t".to_string()]).await.unwrap_err();
        assert!(matches!(e, EmbedError::RateLimited { .. }), "{name}: {e:?}");
        server.push_fault(Fault::server_error(1).on_route(RouteKind::Embed));
        assert!(
            matches!(embedder.embed(&["t".to_string()]).await, Err(EmbedError::Server { status: 500, .. })),
            "{name}"
        );
        server.push_fault(Fault::invalid_json(1).on_route(RouteKind::Embed));
        assert!(matches!(embedder.embed(&["t".to_string()]).await, Err(EmbedError::InvalidResponse(_))), "{name}");
    }
}

#[tokio::test]
async fn embedding_requests_follow_each_wire_format() {
    let server = signed_server().await;
    let texts = vec!["Ada Lovelace".to_string(), "Charles Babbage".to_string()];
    let vectors = |name: &str| {
        let config = config_named(embed_configs(&server), name);
        let texts = texts.clone();
        async move { build_embedder(&config).unwrap().embed(&texts).await.unwrap() }
    };
    // Jina: base64 vectors, the dimension and a task always sent
    let jina = vectors("jina").await;
    assert_eq!(jina[0].len(), 32);
    let sent = server.last_request().unwrap();
    assert_eq!(sent.path, "/jina/v1/embeddings");
    assert_eq!((sent.body["embedding_type"].as_str(), sent.body["dimensions"].as_u64()), (Some("base64"), Some(32)));
    assert_eq!(sent.body["task"], "text-matching");
    // Gemini: one batch call, the dimension and task type sent, unit-length vectors back
    let gemini = vectors("gemini").await;
    let sent = server.last_request().unwrap();
    assert_eq!(sent.path, "/v1beta/models/gemini-embedding-001:batchEmbedContents");
    assert_eq!(sent.body["requests"][1]["outputDimensionality"], 48);
    assert_eq!(sent.body["requests"][0]["taskType"], "RETRIEVAL_DOCUMENT");
    let norm: f32 = gemini[0].iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4, "normalised below 3072 dimensions: {norm}");
    let single =
        build_embedder(&config_named(embed_configs(&server), "gemini")).unwrap().embed(&texts[..1]).await.unwrap();
    assert_eq!(server.last_request().unwrap().path, "/v1beta/models/gemini-embedding-001:embedContent");
    assert!(single[0].iter().zip(&gemini[0]).all(|(a, b)| (a - b).abs() < 1e-5));
    // Voyage: no dimension unless asked
    vectors("voyageai").await;
    let sent = server.last_request().unwrap();
    assert!(sent.body.get("output_dimension").is_none() && sent.body["truncation"] == true);
    // Bedrock Titan: one signed invoke per text
    server.reset_stats();
    vectors("bedrock titan").await;
    assert_eq!(server.stats().embed, 2);
    let sent = server.last_request().unwrap();
    assert_eq!(sent.path, "/model/amazon.titan-embed-text-v2%3A0/invoke");
    assert_eq!(sent.body["embeddingTypes"], serde_json::json!(["float"]));
    // Bedrock Cohere: one call for the batch
    server.reset_stats();
    vectors("bedrock cohere").await;
    assert_eq!(server.stats().embed, 1);
    assert_eq!(server.last_request().unwrap().body["input_type"], "search_document");
    // lollms: one call per text, key sent as it is
    server.reset_stats();
    vectors("lollms").await;
    assert_eq!(server.stats().embed, 2);
    assert_eq!(server.last_request().unwrap().header("authorization"), Some(KEY));
}
