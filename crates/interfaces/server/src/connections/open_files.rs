//! The open-file limit and the connections it holds (issue #26). The raise at start-up existed,
//! but it was not enough: it logged only at debug level (nobody saw whether it worked), it gave
//! up where the hard limit is "unlimited" (which `setrlimit` refuses as a soft limit, e.g. on
//! macOS), and nothing compared `MAX_CONNECTIONS` with the limit reached: under a limit below
//! the cap the server ran out of descriptors first, accepting failed and the accept loop paused,
//! so the cap — and the closing of idle connections at it — was never reached.

/// Tried as the soft limit when the hard limit is unlimited, largest first.
const FINITE_TARGETS: [u64; 3] = [1 << 20, 65_536, 10_240];

/// The least number of descriptors kept for everything but client connections (the stores'
/// files, model calls, uploads being read, the listener).
const MIN_RESERVE: u64 = 64;

/// Raises the soft limit of open files to the hard limit (logged), so `MAX_CONNECTIONS` fits;
/// returns the limit in force afterwards (`None` = unlimited).
pub(crate) fn raise_open_file_limit() -> Option<u64> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let current = limit.current?;
    if limit.maximum == Some(current) {
        tracing::info!(limit = current, "open-file limit {current} (already the hard limit)");
        return Some(current);
    }
    let targets: Vec<u64> = match limit.maximum {
        Some(hard) => vec![hard],
        None => FINITE_TARGETS.to_vec(),
    };
    let mut failure = None;
    for target in targets.into_iter().filter(|&t| t > current) {
        match setrlimit(Resource::Nofile, Rlimit { current: Some(target), maximum: limit.maximum }) {
            Ok(()) => {
                tracing::info!(from = current, to = target, "raised the open-file limit from {current} to {target}");
                return Some(target);
            }
            Err(e) => failure = Some(e),
        }
    }
    match failure {
        Some(e) => tracing::warn!(
            limit = current,
            error = %e,
            "the open-file limit could not be raised from {current}; raise it (ulimit -n, systemd LimitNOFILE=) \
             if MAX_CONNECTIONS does not fit"
        ),
        None => tracing::info!(limit = current, "open-file limit {current}"),
    }
    Some(current)
}

/// How many client connections may be open at once: `max_connections`, or — when the
/// open-file limit cannot hold that many besides the other files the server needs — three
/// quarters of the limit (at least [`MIN_RESERVE`] left), with a warning.
pub(crate) fn connection_cap(max_connections: usize, open_files: Option<u64>) -> usize {
    let Some(limit) = open_files else {
        return max_connections;
    };
    let fits = limit.saturating_sub((limit / 4).max(MIN_RESERVE)).max(1);
    let fits = usize::try_from(fits).unwrap_or(usize::MAX);
    if fits >= max_connections {
        return max_connections;
    }
    tracing::warn!(
        max_connections,
        open_file_limit = limit,
        "MAX_CONNECTIONS={max_connections} does not fit the open-file limit {limit}: at most {fits} \
         connections will be open at once; raise the limit (ulimit -n, systemd LimitNOFILE=) or lower \
         MAX_CONNECTIONS"
    );
    fits
}

#[cfg(test)]
mod tests {
    use super::connection_cap;

    #[test]
    fn connections_keep_a_quarter_of_the_open_file_limit_for_the_rest() {
        assert_eq!(connection_cap(512, None), 512);
        assert_eq!(connection_cap(512, Some(1024)), 512, "the default fits the common limit");
        assert_eq!(connection_cap(512, Some(256)), 192, "macOS's default limit holds fewer");
        assert_eq!(connection_cap(100_000, Some(20_000)), 15_000);
        assert_eq!(connection_cap(512, Some(70)), 6, "at least 64 descriptors stay for the rest");
        assert_eq!(connection_cap(512, Some(10)), 1);
    }
}
