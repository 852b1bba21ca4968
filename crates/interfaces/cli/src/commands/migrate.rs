//! `lightrag migrate [--check]`: the PostgreSQL store's schema.

use lightrag_config::Settings;

use crate::cli::MigrateArgs;

pub async fn run(settings: &Settings, args: MigrateArgs) -> anyhow::Result<()> {
    let Some(pg) = &settings.postgres else {
        outln!(
            "the store is the SQLite file {}; it is migrated when it is opened (set DATABASE_URL or a PG… \
             storage selector for PostgreSQL)",
            settings.store_path().display()
        );
        return Ok(());
    };
    let (target, status) = lightrag_config::postgres_schema(pg, !args.check).await?;
    let found = status.found.map(|v| format!("version {v}")).unwrap_or_else(|| "no schema".to_string());
    let vector = status.vector_extension.as_deref().map(|v| format!("pgvector {v}")).unwrap_or("no pgvector".into());
    if status.is_current() {
        outln!("PostgreSQL {target}: schema version {} is current ({vector})", status.latest);
        return Ok(());
    }
    anyhow::bail!(
        "PostgreSQL {target}: {found}, {vector}; this build needs schema version {} with pgvector — run \
         `lightrag migrate`",
        status.latest
    )
}
