//! Settings particular to one provider: Amazon Bedrock access (`AWS_*`), and the generation
//! options of Gemini (`GEMINI_LLM_*`) and Bedrock (`BEDROCK_LLM_*`).

use crate::error::ConfigError;
use crate::parse::Reader;
use crate::secret::Secret;

type Result<T> = std::result::Result<T, ConfigError>;

/// LightRAG's placeholder host meaning "the provider's default endpoint".
pub const DEFAULT_GEMINI_ENDPOINT: &str = "DEFAULT_GEMINI_ENDPOINT";
/// LightRAG's placeholder host meaning "the region's Bedrock endpoint".
pub const DEFAULT_BEDROCK_ENDPOINT: &str = "DEFAULT_BEDROCK_ENDPOINT";

/// Amazon Bedrock access (`AWS_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
/// `AWS_SESSION_TOKEN`, `AWS_BEARER_TOKEN_BEDROCK`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwsSettings {
    /// `AWS_REGION` (or `AWS_DEFAULT_REGION`).
    pub region: String,
    /// `AWS_ACCESS_KEY_ID`.
    pub access_key_id: Option<String>,
    /// `AWS_SECRET_ACCESS_KEY`.
    pub secret_access_key: Option<Secret>,
    /// `AWS_SESSION_TOKEN`.
    pub session_token: Option<Secret>,
    /// `AWS_BEARER_TOKEN_BEDROCK` (a Bedrock API key; wins over the key pair).
    pub bearer_token: Option<Secret>,
}

/// Reads and checks the Bedrock access settings; `what` names the setting group in errors.
pub(crate) fn aws_settings(r: Reader<'_>, what: &str) -> Result<AwsSettings> {
    let region = r.first_string(&["AWS_REGION", "AWS_DEFAULT_REGION"]).unwrap_or_default();
    if region.trim().is_empty() {
        return Err(ConfigError::Missing {
            key: "AWS_REGION".into(),
            hint: format!("{what}=bedrock needs the AWS region of the Bedrock endpoint, e.g. AWS_REGION=us-east-1"),
        });
    }
    let access_key_id = r.opt_string("AWS_ACCESS_KEY_ID");
    let secret_access_key = r.secret("AWS_SECRET_ACCESS_KEY");
    let bearer_token = r.secret("AWS_BEARER_TOKEN_BEDROCK");
    if access_key_id.is_some() != secret_access_key.is_some() {
        return Err(ConfigError::Conflict(format!(
            "{what}=bedrock needs both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY when either is set"
        )));
    }
    if access_key_id.is_none() && bearer_token.is_none() {
        return Err(ConfigError::Missing {
            key: "AWS_ACCESS_KEY_ID".into(),
            hint: format!(
                "{what}=bedrock needs credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (plus \
                 AWS_SESSION_TOKEN for temporary ones), or AWS_BEARER_TOKEN_BEDROCK; AWS profiles, SSO and \
                 instance roles are not read"
            ),
        });
    }
    Ok(AwsSettings {
        region,
        access_key_id,
        secret_access_key,
        session_token: r.secret("AWS_SESSION_TOKEN"),
        bearer_token,
    })
}

impl AwsSettings {
    /// The adapter's configuration.
    pub fn to_adapter(&self) -> lightrag_llm_http::AwsConfig {
        lightrag_llm_http::AwsConfig {
            region: self.region.clone(),
            access_key_id: self.access_key_id.clone(),
            secret_access_key: self.secret_access_key.as_ref().map(|s| s.expose().to_string()),
            session_token: self.session_token.as_ref().map(|s| s.expose().to_string()),
            bearer_token: self.bearer_token.as_ref().map(|s| s.expose().to_string()),
        }
    }

    /// The region's Bedrock Runtime endpoint.
    pub fn default_endpoint(&self) -> String {
        format!("https://bedrock-runtime.{}.amazonaws.com", self.region)
    }
}

/// A JSON list of strings (`["END", "</s>"]`), or one string.
fn string_list(s: &str) -> Option<Vec<String>> {
    match serde_json::from_str::<serde_json::Value>(s) {
        Ok(serde_json::Value::Array(items)) => items.iter().map(|i| i.as_str().map(str::to_string)).collect(),
        Ok(serde_json::Value::String(one)) => Some(vec![one]),
        _ => (!s.trim().is_empty()).then(|| vec![s.to_string()]),
    }
}

fn json_object(s: &str) -> Option<serde_json::Value> {
    serde_json::from_str::<serde_json::Value>(s).ok().filter(|v| v.is_object())
}

/// Sampling options shared by the chat bindings.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Sampling {
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
    pub top_p: Option<f32>,
    pub stop: Vec<String>,
    /// Gemini: extra `generationConfig` fields; Bedrock: `additionalModelRequestFields`.
    pub extra: Option<serde_json::Value>,
}

fn temperature(r: Reader<'_>, key: &str) -> Result<Option<f32>> {
    r.opt_with(key, "a number between 0 and 2", |s| {
        s.parse::<f32>().ok().filter(|t| t.is_finite() && (0.0..=2.0).contains(t))
    })
}

fn unit(r: Reader<'_>, key: &str) -> Result<Option<f32>> {
    r.opt_with(key, "a number between 0 and 1", |s| {
        s.parse::<f32>().ok().filter(|t| t.is_finite() && (0.0..=1.0).contains(t))
    })
}

fn positive(r: Reader<'_>, key: &str) -> Result<Option<u32>> {
    r.opt_with(key, "a positive integer", |s| s.parse::<u32>().ok().filter(|n| *n > 0))
}

/// `GEMINI_LLM_*`: temperature, max output tokens, top-p, top-k, stop sequences, seed,
/// presence/frequency penalties, thinking configuration.
pub(crate) fn gemini_sampling(r: Reader<'_>) -> Result<Sampling> {
    let mut extra = serde_json::Map::new();
    if let Some(k) = positive(r, "GEMINI_LLM_TOP_K")? {
        extra.insert("topK".into(), k.into());
    }
    if let Some(seed) = r.opt_with("GEMINI_LLM_SEED", "an integer", |s| s.parse::<i64>().ok())? {
        extra.insert("seed".into(), seed.into());
    }
    for (key, field) in
        [("GEMINI_LLM_PRESENCE_PENALTY", "presencePenalty"), ("GEMINI_LLM_FREQUENCY_PENALTY", "frequencyPenalty")]
    {
        let value = r.opt_with(key, "a number between -2 and 2", |s| {
            s.parse::<f64>().ok().filter(|x| x.is_finite() && (-2.0..=2.0).contains(x))
        })?;
        if let Some(v) = value {
            extra.insert(field.into(), v.into());
        }
    }
    if let Some(thinking) =
        r.opt_with("GEMINI_LLM_THINKING_CONFIG", "a JSON object such as {\"thinking_budget\": 1024}", json_object)?
    {
        extra.insert("thinkingConfig".into(), thinking);
    }
    Ok(Sampling {
        temperature: temperature(r, "GEMINI_LLM_TEMPERATURE")?,
        max_tokens: positive(r, "GEMINI_LLM_MAX_OUTPUT_TOKENS")?,
        top_p: unit(r, "GEMINI_LLM_TOP_P")?,
        stop: r.opt_with("GEMINI_LLM_STOP_SEQUENCES", "a JSON list of strings", string_list)?.unwrap_or_default(),
        extra: (!extra.is_empty()).then_some(serde_json::Value::Object(extra)),
    })
}

/// `BEDROCK_LLM_*`: temperature, max tokens, top-p, stop sequences, extra model fields.
pub(crate) fn bedrock_sampling(r: Reader<'_>) -> Result<Sampling> {
    Ok(Sampling {
        temperature: temperature(r, "BEDROCK_LLM_TEMPERATURE")?,
        max_tokens: positive(r, "BEDROCK_LLM_MAX_TOKENS")?,
        top_p: unit(r, "BEDROCK_LLM_TOP_P")?,
        stop: r.opt_with("BEDROCK_LLM_STOP_SEQUENCES", "a JSON list of strings", string_list)?.unwrap_or_default(),
        extra: r.opt_with("BEDROCK_LLM_EXTRA_FIELDS", "a JSON object", json_object)?,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn string_lists_accept_json_or_one_value() {
        assert_eq!(string_list(r#"["a", "b"]"#), Some(vec!["a".to_string(), "b".to_string()]));
        assert_eq!(string_list("END"), Some(vec!["END".to_string()]));
        assert_eq!(string_list("[1]"), None);
    }
}
