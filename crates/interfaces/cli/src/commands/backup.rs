//! `lightrag backup FILE` and `lightrag restore FILE [--force]`.

use lightrag_config::Settings;

use crate::cli::{BackupArgs, RestoreArgs};

pub async fn backup(settings: &Settings, args: BackupArgs) -> anyhow::Result<()> {
    let (owned, file) = (settings.clone(), args.file.clone());
    let bytes = tokio::task::spawn_blocking(move || lightrag_config::backup::backup_store(&owned, &file)).await??;
    outln!("backed up {} to {} ({bytes} bytes, integrity ok)", settings.store_path().display(), args.file.display());
    Ok(())
}

pub async fn restore(settings: &Settings, args: RestoreArgs) -> anyhow::Result<()> {
    let (owned, file) = (settings.clone(), args.file.clone());
    tokio::task::spawn_blocking(move || lightrag_config::backup::restore_store(&owned, &file, args.force)).await??;
    outln!(
        "restored {} from {} (vector indexes are rebuilt when it is next opened)",
        settings.store_path().display(),
        args.file.display()
    );
    Ok(())
}
