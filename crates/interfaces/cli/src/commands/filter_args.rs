//! Metadata and query-filter options shared by `lightrag insert` (`--meta`, `--metadata`) and
//! `lightrag query` (`--doc-id`, `--path`, `--meta`, `--created-after`, …).

use anyhow::{Context, bail};
use lightrag_engine::retrieval::query::{QueryFilter, parse_time};
use serde_json::{Map, Value};

use crate::cli::QueryArgs;

/// One `key=value`: the value is read as JSON when it parses (`2024`, `true`, `["a"]`), else
/// taken as a string.
pub fn key_value(text: &str) -> anyhow::Result<(String, Value)> {
    let Some((key, value)) = text.split_once('=') else {
        bail!("--meta takes key=value (e.g. --meta team=ops), got '{text}'");
    };
    let key = key.trim();
    if key.is_empty() {
        bail!("--meta '{text}' has no key before '='");
    }
    let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_string()));
    Ok((key.to_string(), value))
}

/// The metadata object of `--metadata JSON` and the `--meta key=value` pairs (which win).
pub fn metadata(json: Option<&str>, pairs: &[String]) -> anyhow::Result<Map<String, Value>> {
    let mut out = match json {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text).context("--metadata must be a JSON object")? {
            Value::Object(map) => map,
            other => bail!("--metadata must be a JSON object like '{{\"team\": \"ops\"}}', not {other}"),
        },
    };
    for pair in pairs {
        let (key, value) = key_value(pair)?;
        out.insert(key, value);
    }
    Ok(out)
}

/// The query's filter from its options, `None` when none is given (the query use case checks it).
pub fn query_filter(args: &QueryArgs) -> anyhow::Result<Option<QueryFilter>> {
    let time = |flag: &str, value: &Option<String>| -> anyhow::Result<Option<i64>> {
        value.as_deref().map(|v| parse_time(v).with_context(|| format!("--{flag}"))).transpose()
    };
    let filter = QueryFilter {
        doc_ids: args.doc_id.clone(),
        file_paths: args.path.clone(),
        metadata: metadata(None, &args.meta)?,
        created_after: time("created-after", &args.created_after)?,
        created_before: time("created-before", &args.created_before)?,
        updated_after: time("updated-after", &args.updated_after)?,
        updated_before: time("updated-before", &args.updated_before)?,
    };
    Ok((!filter.is_empty()).then_some(filter))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn meta_values_are_json_when_they_parse() {
        let m = metadata(
            Some(r#"{"team": "dev", "x": 1}"#),
            &["team=ops".into(), "year=2024".into(), "tags=[\"a\"]".into()],
        )
        .unwrap();
        assert_eq!(Value::Object(m), json!({"team": "ops", "x": 1, "year": 2024, "tags": ["a"]}));
        assert!(key_value("novalue").is_err());
        assert!(metadata(Some("[1]"), &[]).is_err());
        assert_eq!(key_value("a=b=c").unwrap(), ("a".to_string(), json!("b=c")));
    }
}
