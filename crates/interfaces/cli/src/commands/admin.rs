//! `lightrag admin …`: API keys, managed accounts, grants, owners and the audit log of the access
//! store (`WORKING_DIR/access.sqlite`), through the same use cases as the server's `/admin/…`
//! routes ([`lightrag_application::access::admin`]). A running server sees every change at its
//! next request. Each change is written to the audit log as principal `cli`.

use anyhow::Context;
use clap::{Args, Subcommand};
use lightrag_application::access::admin::{self, PrincipalView};
use lightrag_config::Settings;
use lightrag_ports::access::{AccessStore, AuditEntry, AuditFilter, PrincipalKind};

/// `lightrag admin …`.
#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// API keys: create (printed once), revoke, list
    Key {
        #[command(subcommand)]
        command: KeyCommand,
    },
    /// Managed accounts (log in through /login like AUTH_ACCOUNTS): add, remove, list
    Account {
        #[command(subcommand)]
        command: AccountCommand,
    },
    /// Give a key, a managed account or an AUTH_ACCOUNTS login a role in a workspace
    Grant(GrantArgs),
    /// Take away a principal's role in a workspace
    Ungrant(UngrantArgs),
    /// Make a principal an owner (every right on every workspace, manages principals) or not
    Owner(OwnerArgs),
    /// Show the audit log (newest first)
    Audit(AuditArgs),
}

/// `lightrag admin key …`.
#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Create a key with a role in a workspace; prints the key once, as the last word
    #[command(
        after_help = "Example:\n  lightrag admin key create ci --workspace team_a --role editor --expires-days 90\n\n\
                            Send it as `X-API-Key: lrk_…` or `Authorization: Bearer lrk_…`."
    )]
    Create(KeyCreateArgs),
    /// Revoke a key: its next request fails
    Revoke(NameArg),
    /// List the keys, their roles, expiry and whether they are revoked
    List,
}

/// `lightrag admin account …`.
#[derive(Debug, Subcommand)]
pub enum AccountCommand {
    /// Add a managed account; the password is read from the first line of stdin
    #[command(
        after_help = "Example:\n  printf '%s\\n' \"$PASSWORD\" | lightrag admin account add bob --password-stdin"
    )]
    Add(AccountAddArgs),
    /// Remove a managed account and its grants: its login tokens stop working at once
    Remove(NameArg),
    /// List the accounts (managed ones and AUTH_ACCOUNTS logins with grants)
    List,
}

/// A principal's name.
#[derive(Debug, Args)]
pub struct NameArg {
    /// The name
    pub name: String,
}

/// `lightrag admin key create`.
#[derive(Debug, Args)]
pub struct KeyCreateArgs {
    /// The key's name (unique among keys and accounts)
    pub name: String,
    /// The workspace it may use (LIGHTRAG-WORKSPACE); "" is the default one of WORKING_DIR
    #[arg(long, value_name = "WS")]
    pub workspace: String,
    /// Its role there: reader, editor or admin
    #[arg(long, value_name = "ROLE")]
    pub role: String,
    /// Days until it stops working (default: never)
    #[arg(long, value_name = "N")]
    pub expires_days: Option<u64>,
}

/// `lightrag admin account add`.
#[derive(Debug, Args)]
pub struct AccountAddArgs {
    /// The account's name (unique among keys and accounts)
    pub name: String,
    /// Read the password from the first line of stdin (the default; the flag states it)
    #[arg(long)]
    pub password_stdin: bool,
}

/// `lightrag admin grant`.
#[derive(Debug, Args)]
pub struct GrantArgs {
    /// A key, a managed account or an AUTH_ACCOUNTS login
    pub name: String,
    /// The workspace
    #[arg(long, value_name = "WS")]
    pub workspace: String,
    /// reader, editor or admin
    #[arg(long, value_name = "ROLE")]
    pub role: String,
}

/// `lightrag admin ungrant`.
#[derive(Debug, Args)]
pub struct UngrantArgs {
    /// The principal
    pub name: String,
    /// The workspace
    #[arg(long, value_name = "WS")]
    pub workspace: String,
}

/// `lightrag admin owner`.
#[derive(Debug, Args)]
pub struct OwnerArgs {
    /// The principal
    pub name: String,
    /// on or off
    #[arg(value_parser = ["on", "off"])]
    pub state: String,
}

/// `lightrag admin audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Only this workspace
    #[arg(long, value_name = "WS")]
    pub workspace: Option<String>,
    /// Only this principal (`key:NAME`, `account:NAME`, `login:NAME`, `master`, `cli`)
    #[arg(long, value_name = "WHO")]
    pub principal: Option<String>,
    /// At most this many entries
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub limit: usize,
    /// Print JSON lines instead of a table
    #[arg(long)]
    pub json: bool,
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Runs `lightrag admin …`.
pub async fn run(settings: &Settings, command: AdminCommand) -> anyhow::Result<()> {
    let store = lightrag_config::open_access_store(settings)
        .await
        .with_context(|| format!("cannot open the access store in {}", settings.working_dir.display()))?;
    let store = store.as_ref();
    let now = now_ms() / 1000;
    let logins: Vec<String> = settings.server.auth_accounts.iter().map(|a| a.username.clone()).collect();
    match command {
        AdminCommand::Key { command: KeyCommand::Create(a) } => {
            let role = admin::parse_role(&a.role)?;
            let made = admin::create_key(store, &a.name, &a.workspace, role, a.expires_days, now).await?;
            record(store, "admin.keys.create", &a.workspace).await;
            let expiry = made.expires.map_or("never".to_string(), |t| format!("at {t} (Unix time)"));
            outln!(
                "created key '{}' ({role} in workspace '{}'; expires {expiry}); it is shown only now:",
                made.name,
                a.workspace
            );
            outln!("{}", made.key);
        }
        AdminCommand::Key { command: KeyCommand::Revoke(a) } => {
            admin::revoke_key(store, &a.name).await?;
            record(store, "admin.keys.revoke", "").await;
            outln!("revoked key '{}'", a.name);
        }
        AdminCommand::Key { command: KeyCommand::List } => {
            print_list(&admin::list(store, Some(PrincipalKind::Key)).await?)?
        }
        AdminCommand::Account { command: AccountCommand::Add(a) } => {
            let password =
                super::hash_password::read_password("write it on the first line of stdin (--password-stdin)")?;
            admin::add_account(store, &a.name, &password, now).await?;
            record(store, "admin.accounts.add", "").await;
            outln!("added account '{}'", a.name);
        }
        AdminCommand::Account { command: AccountCommand::Remove(a) } => {
            admin::remove_account(store, &a.name).await?;
            record(store, "admin.accounts.remove", "").await;
            outln!("removed account '{}'", a.name);
        }
        AdminCommand::Account { command: AccountCommand::List } => {
            print_list(&admin::list(store, Some(PrincipalKind::Account)).await?)?
        }
        AdminCommand::Grant(a) => {
            let role = admin::parse_role(&a.role)?;
            admin::grant(store, &a.name, &a.workspace, role, &logins, now).await?;
            record(store, "admin.grants.set", &a.workspace).await;
            outln!("'{}' is {role} in workspace '{}'", a.name, a.workspace);
        }
        AdminCommand::Ungrant(a) => {
            admin::ungrant(store, &a.name, &a.workspace).await?;
            record(store, "admin.grants.remove", &a.workspace).await;
            outln!("'{}' has no role in workspace '{}' any more", a.name, a.workspace);
        }
        AdminCommand::Owner(a) => {
            let on = a.state == "on";
            admin::set_owner(store, &a.name, on, &logins, now).await?;
            record(store, "admin.owner", "").await;
            outln!("'{}' is {}an owner", a.name, if on { "" } else { "not " });
        }
        AdminCommand::Audit(a) => {
            let filter = AuditFilter { workspace: a.workspace, principal: a.principal, since: None, limit: a.limit };
            for e in admin::audit(store, filter).await? {
                if a.json {
                    outln!("{}", serde_json::to_string(&e)?);
                } else {
                    outln!("{}\t{}\t{}\t{}\t{}\t{}", e.time, e.principal, e.workspace, e.action, e.outcome, e.client);
                }
            }
        }
    }
    Ok(())
}

/// Appends a CLI change to the audit log (a failure to write it is reported, not fatal: the
/// change is made).
async fn record(store: &dyn AccessStore, action: &str, workspace: &str) {
    let entry = AuditEntry {
        time: now_ms(),
        principal: "cli".into(),
        workspace: workspace.into(),
        action: action.into(),
        outcome: 200,
        client: "local".into(),
    };
    if let Err(e) = store.append_audit(&entry).await {
        eprintln!("warning: the change was made but not written to the audit log: {e}");
    }
}

fn print_list(list: &[PrincipalView]) -> anyhow::Result<()> {
    if list.is_empty() {
        outln!("(none)");
    }
    for p in list {
        let grants: Vec<String> = p.grants.iter().map(|(w, r)| format!("{w}={r}")).collect();
        let mut flags = Vec::new();
        if p.owner {
            flags.push("owner".to_string());
        }
        if p.revoked {
            flags.push("revoked".to_string());
        }
        if let Some(t) = p.expires {
            flags.push(format!("expires={t}"));
        }
        if p.kind == PrincipalKind::Account && !p.managed {
            flags.push("AUTH_ACCOUNTS login".to_string());
        }
        outln!("{}\t{}\t{}\t{}", p.kind.as_str(), p.name, grants.join(","), flags.join(","));
    }
    Ok(())
}
