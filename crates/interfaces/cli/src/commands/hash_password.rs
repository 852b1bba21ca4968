//! `lightrag hash-password`: a bcrypt entry for `AUTH_ACCOUNTS`, so the configuration does not
//! hold plaintext passwords.

use std::io::BufRead;

use anyhow::Context;
use lightrag_server::auth::accounts::hash_password;

use crate::cli::HashPasswordArgs;

/// Prints `{bcrypt}$2b$…`, or `USER:{bcrypt}$2b$…` with `--username`.
pub fn run(args: &HashPasswordArgs) -> anyhow::Result<()> {
    let password = match &args.password {
        Some(p) => p.clone(),
        None => read_password("pass it as an argument or on the first line of stdin")?,
    };
    if let Some(user) = &args.username
        && (user.trim().is_empty() || user.contains([':', ',']))
    {
        anyhow::bail!("the user name {user:?} cannot go into AUTH_ACCOUNTS: it must be non-empty, without ':' or ','");
    }
    let entry = hash_password(&password, args.cost)?;
    match &args.username {
        Some(user) => outln!("{}:{entry}", user.trim()),
        None => outln!("{entry}"),
    }
    Ok(())
}

/// The first line of stdin, without its line ending; `how` says where else a password may come
/// from when it is empty.
pub(crate) fn read_password(how: &str) -> anyhow::Result<String> {
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).context("cannot read the password from stdin")?;
    let password = line.trim_end_matches(['\n', '\r']).to_string();
    if password.is_empty() {
        anyhow::bail!("no password given: {how}");
    }
    Ok(password)
}
