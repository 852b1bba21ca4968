//! `lightrag process`

use lightrag_config::Settings;
use lightrag_engine::indexing::pipeline::ProcessOptions;

use crate::cli::ProcessArgs;

pub async fn run(settings: &Settings, args: ProcessArgs) -> anyhow::Result<()> {
    let engine = super::open(settings).await?;
    let options = ProcessOptions { include_failed: !args.skip_failed, only_ids: Vec::new() };
    super::process_and_summarise(&engine, &options, None, 0, 0, args.json).await
}
