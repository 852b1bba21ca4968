//! `lightrag graph stats|resolve|aliases|unmerge|export`

use lightrag_application::export;
use lightrag_config::Settings;

use crate::cli::GraphCommand;

pub async fn run(settings: &Settings, command: GraphCommand) -> anyhow::Result<()> {
    let engine = super::open(settings).await?;
    match command {
        GraphCommand::Stats { top, json } => {
            let stats = engine.graph_stats(top).await?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&stats)?);
            } else {
                outln!("entities:  {}", stats.nodes);
                outln!("relations: {}", stats.edges);
                let docs: Vec<String> = stats.documents.iter().map(|(s, n)| format!("{n} {s}")).collect();
                outln!("documents: {}", if docs.is_empty() { "none".to_string() } else { docs.join(", ") });
                if !stats.top_entities.is_empty() {
                    outln!("top entities by degree:");
                    for e in &stats.top_entities {
                        outln!("  {:>5}  {} ({})", e.degree, e.name, e.entity_type);
                    }
                }
            }
        }
        GraphCommand::Resolve { apply, similarity, embedding_similarity, confirm, json } => {
            if similarity.is_nan() || similarity <= 0.0 {
                anyhow::bail!(
                    "--similarity must be above 0 (it was {similarity}); 0.97 is the default, above 1 turns the rule off"
                );
            }
            if embedding_similarity.is_nan() || embedding_similarity <= 0.0 {
                anyhow::bail!(
                    "--embedding-similarity must be above 0 (it was {embedding_similarity}); {} is the default, \
                     above 1 turns the rule off",
                    lightrag_engine::maintenance::resolve::DEFAULT_EMBEDDING_SIMILARITY
                );
            }
            if confirm && !engine.has_llm() {
                anyhow::bail!(
                    "--confirm asks an LLM about each link, and none is configured (LLM_BINDING=none): set \
                     LLM_BINDING, LLM_BINDING_HOST and LLM_MODEL, or run without --confirm"
                );
            }
            let options = lightrag_engine::maintenance::resolve::ResolveOptions {
                similarity,
                embedding_similarity,
                confirm,
                apply,
            };
            let report = engine.resolve_entities(options).await?;
            if confirm {
                engine.flush_usage().await?;
            }
            if json {
                outln!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print_resolve_report(&report, apply)?;
            }
        }
        GraphCommand::Aliases { name, json } => {
            let aliases = engine.entity_aliases(&name).await?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&aliases)?);
            } else if aliases.is_empty() {
                outln!("{name} was not merged from another name");
            } else {
                for a in &aliases {
                    outln!("{} ({} chunks)", a.name, a.chunks);
                }
            }
        }
        GraphCommand::Unmerge { entity, alias, json } => {
            let outcome = engine.unmerge_entity(&entity, &alias).await?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&outcome)?);
            } else {
                outln!(
                    "split {alias} off {entity}: {} chunks renamed back, {} relations rebuilt, {} removed{}",
                    outcome.chunks_restored,
                    outcome.relations_rebuilt.len(),
                    outcome.relations_deleted.len(),
                    if outcome.remaining_entity.is_none() {
                        format!("; {entity} had nothing else and is gone")
                    } else {
                        String::new()
                    }
                );
            }
        }
        GraphCommand::Export { format, output } => {
            let format = export::parse_format("--format", &format)?;
            match output {
                Some(path) => export::to_file(&engine, format, &path).await?,
                None => export::write(&engine, format, &mut std::io::stdout().lock()).await?,
            }
        }
    }
    Ok(())
}

/// The text form of `graph resolve`: each group with its aliases, the links the LLM dropped, and
/// a summary line.
fn print_resolve_report(
    report: &lightrag_engine::maintenance::resolve::ResolveReport,
    apply: bool,
) -> anyhow::Result<()> {
    let rule_name =
        |rule| -> anyhow::Result<String> { Ok(serde_json::to_value(rule)?.as_str().unwrap_or("?").to_string()) };
    for g in &report.groups {
        outln!("{}", g.canonical);
        for a in &g.aliases {
            outln!("  <- {} ({} chunks; {} {:.3})", a.name, a.chunk_count, rule_name(a.rule)?, a.score);
        }
    }
    if !report.rejected.is_empty() {
        outln!("not confirmed by the LLM:");
        for r in &report.rejected {
            let verdict = match r.verdict {
                lightrag_engine::maintenance::resolve::Verdict::No => "no".to_string(),
                lightrag_engine::maintenance::resolve::Verdict::Unparseable => {
                    format!("unparseable answer {:?}", r.answer)
                }
            };
            outln!("  {} / {} ({} {:.3}): {verdict}", r.link.a, r.link.b, rule_name(r.link.rule)?, r.link.score);
        }
    }
    let aliases: usize = report.groups.iter().map(|g| g.aliases.len()).sum();
    let confirmation = match &report.confirmation {
        Some(c) => format!(
            "; LLM asked about {} links: {} confirmed, {} rejected, {} unparseable",
            c.asked, c.accepted, c.rejected, c.unparseable
        ),
        None => String::new(),
    };
    outln!(
        "{} entities, {} groups, {aliases} names to merge{confirmation}{}",
        report.entities,
        report.groups.len(),
        if apply {
            format!("; merged {} groups", report.merged.len())
        } else {
            " (run with --apply to merge)".to_string()
        }
    );
    Ok(())
}
