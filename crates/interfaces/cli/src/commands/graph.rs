//! `lightrag graph stats|export`

use anyhow::Context;
use lightrag_app::Settings;
use lightrag_engine::graph::ExportFormat;

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
        GraphCommand::Export { format, output } => {
            let format: ExportFormat = format.parse().map_err(anyhow::Error::msg)?;
            match output {
                Some(path) => {
                    let file =
                        std::fs::File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
                    let mut writer = std::io::BufWriter::new(file);
                    engine.export_graph(format, &mut writer).await?;
                    std::io::Write::flush(&mut writer).with_context(|| format!("cannot write {}", path.display()))?;
                }
                None => {
                    let stdout = std::io::stdout();
                    let mut lock = stdout.lock();
                    engine.export_graph(format, &mut lock).await?;
                }
            }
        }
    }
    Ok(())
}
