//! Azure OpenAI: deployment URLs, api-version, and the `api-key` header.

use lightrag_llm_http::{HttpEmbedConfig, HttpLlmConfig, LlmBinding, build_embedder, build_llm};
use lightrag_scripted_llm::{ScriptConfig, ScriptedLlm, ScriptedServer};

use super::{collect, embed_config, llm_config, question};

async fn keyed_server() -> ScriptedServer {
    ScriptedLlm::start(ScriptConfig { api_key: Some("azure-key".into()), ..ScriptConfig::default() }).await.unwrap()
}

fn azure_llm(server: &ScriptedServer) -> HttpLlmConfig {
    HttpLlmConfig {
        binding: LlmBinding::AzureOpenAi,
        host: server.root_url(),
        api_key: Some("azure-key".into()),
        deployment: Some("my-gpt".into()),
        api_version: Some("2024-06-01".into()),
        ..llm_config(server)
    }
}

#[tokio::test]
async fn chat_goes_to_the_deployment_with_api_key_header() {
    let server = keyed_server().await;
    let llm = build_llm(&azure_llm(&server)).unwrap();
    let answer = llm.chat(&question("Where?")).await.unwrap();
    assert!(answer.content.starts_with("Answer based on"));
    let sent = server.last_request().unwrap();
    assert_eq!(sent.path, "/openai/deployments/my-gpt/chat/completions?api-version=2024-06-01");
    assert_eq!(sent.header("api-key"), Some("azure-key"));
    assert_eq!(sent.header("authorization"), None);
    let (streamed, _) = collect(llm.chat_stream(&question("Where?")).await.unwrap()).await.unwrap();
    assert_eq!(streamed, answer.content);
}

#[tokio::test]
async fn embeddings_default_the_deployment_to_the_model() {
    let server = keyed_server().await;
    let config = HttpEmbedConfig {
        binding: LlmBinding::AzureOpenAi,
        host: server.root_url(),
        api_key: Some("azure-key".into()),
        ..embed_config(&server)
    };
    let vectors = build_embedder(&config).unwrap().embed(&["x".to_string()]).await.unwrap();
    assert_eq!(vectors[0].len(), 64);
    let sent = server.last_request().unwrap();
    assert_eq!(sent.path, "/openai/deployments/test-embed/embeddings?api-version=2024-08-01-preview");
    assert_eq!(sent.header("api-key"), Some("azure-key"));
}
