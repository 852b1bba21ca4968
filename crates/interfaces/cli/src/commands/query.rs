//! `lightrag query QUESTION`

use std::io::Write;

use anyhow::Context;
use futures::StreamExt;
use lightrag_application::{AppError, query};
use lightrag_config::Settings;
use lightrag_engine::retrieval::query::Answer;
use serde_json::json;

use crate::cli::QueryArgs;

/// The option of `lightrag query` that sets a field of the query use case (`top_k` →
/// `--top-k`, `filter.file_paths` → `--path`); the question itself is `QUESTION`.
fn option_of(field: &[String]) -> String {
    match field.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["query"] => "QUESTION".to_string(),
        ["filter", "doc_ids", ..] => "--doc-id".to_string(),
        ["filter", "file_paths", ..] => "--path".to_string(),
        ["filter", "metadata", ..] => "--meta".to_string(),
        ["filter", other, ..] => format!("--{}", other.replace('_', "-")),
        [first, ..] => format!("--{}", first.replace('_', "-")),
        [] => String::new(),
    }
}

/// A query the use case refused, each problem named by the option that set it.
fn named_by_option(e: AppError) -> anyhow::Error {
    match e {
        AppError::Invalid(problems) => {
            let lines: Vec<String> = problems
                .iter()
                .map(|p| match option_of(&p.field) {
                    option if option.is_empty() => p.message.clone(),
                    option => format!("{option}: {}", p.message),
                })
                .collect();
            anyhow::anyhow!("{}", lines.join("; "))
        }
        other => other.into(),
    }
}

pub async fn run(settings: &Settings, args: QueryArgs) -> anyhow::Result<()> {
    let count = |value: Option<usize>| value.map(|v| i64::try_from(v).unwrap_or(i64::MAX));
    let request = query::QueryRequest {
        query: args.question.join(" "),
        mode: args.mode.clone(),
        only_need_context: args.only_context,
        only_need_prompt: args.only_prompt,
        response_type: Some(args.response_type.clone()),
        top_k: count(args.top_k),
        chunk_top_k: count(args.chunk_top_k),
        max_entity_tokens: count(args.max_entity_tokens),
        max_relation_tokens: count(args.max_relation_tokens),
        max_total_tokens: count(args.max_total_tokens),
        hl_keywords: args.hl_keywords.clone(),
        ll_keywords: args.ll_keywords.clone(),
        user_prompt: args.user_prompt.clone(),
        include_references: Some(true),
        use_llm_keywords: args.no_llm_keywords.then_some(false),
        chunk_fusion: args.chunk_fusion.map(|f| f.as_str().to_string()),
        filter: super::filter_args::query_filter(&args)?,
        stream: args.stream && !args.json,
        ..query::QueryRequest::default()
    };
    // checked before the knowledge base is opened: a bad option costs nothing
    let valid = request.validate(settings.engine.query.default_mode).map_err(named_by_option)?;
    let engine = super::open(settings).await?;
    let result = query::run(&engine, &valid).await?;
    // --trace needs --json, which never streams: the trace is complete here
    let trace = args.trace.then_some(result.trace);
    let references = match &result.data.data {
        lightrag_engine::retrieval::query::DataSection::Retrieved(d) => serde_json::to_value(&d.references)?,
        _ => json!([]),
    };
    let mut stdout = std::io::stdout();
    let response = match result.answer {
        Answer::Stream(mut stream) => {
            let mut text = String::new();
            while let Some(delta) = stream.next().await {
                let delta = delta.context("the answer stream broke")?;
                if !args.json {
                    write!(stdout, "{delta}")?;
                    stdout.flush()?;
                }
                text.push_str(&delta);
            }
            if !args.json {
                writeln!(stdout)?;
            }
            engine.flush_usage().await?;
            if args.json {
                Some(text)
            } else {
                print_references(&references)?;
                return Ok(());
            }
        }
        other => other.text().map(str::to_string),
    };
    engine.flush_usage().await?;
    let response = response.unwrap_or_default();
    if args.json {
        let mut out = json!({
            "response": response,
            "references": references,
            // the same wire form as `/query/data` (`<SEP>`-joined chunk ids and file paths)
            "data": lightrag_server::routes::query_data_body::DataBody::from(&result.data.data),
            "metadata": result.data.metadata,
        });
        if let Some(trace) = trace {
            out["trace"] = serde_json::to_value(trace)?;
        }
        outln!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        outln!("{response}");
        if !args.only_context && !args.only_prompt && !response.contains("### References") {
            print_references(&references)?;
        }
    }
    Ok(())
}

fn print_references(references: &serde_json::Value) -> anyhow::Result<()> {
    if let Some(list) = references.as_array().filter(|l| !l.is_empty()) {
        outln!("\nReferences:");
        for r in list {
            outln!(
                "  [{}] {}",
                r.get("reference_id").and_then(|v| v.as_str()).unwrap_or("?"),
                r.get("file_path").and_then(|v| v.as_str()).unwrap_or("?")
            );
        }
    }
    Ok(())
}
