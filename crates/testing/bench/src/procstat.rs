//! Process measurements read from `/proc` (Linux): CPU time of the whole process and of the
//! in-process scripted server's threads, peak resident memory, and the machine's load.

use std::fs;

/// `/proc` reports CPU times in clock ticks of `USER_HZ`, which is 100 on every Linux build
/// that matters here (it is fixed by the kernel ABI, independent of `CONFIG_HZ`).
const USER_HZ: f64 = 100.0;

/// Prefix of the thread names of the scripted server's runtime (`scripted-llm`,
/// `scripted-llm-worker`; Linux truncates names to 15 bytes).
const SERVER_THREAD_PREFIX: &str = "scripted-llm";

/// CPU seconds (user + system) at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CpuSample {
    /// All threads of the process.
    pub process_s: f64,
    /// The threads of the in-process scripted LLM server (part of `process_s`).
    pub server_s: f64,
}

impl CpuSample {
    /// Reads the current CPU times; zeros when `/proc` is not available.
    pub fn now() -> CpuSample {
        let process_s = fs::read_to_string("/proc/self/stat").ok().and_then(|s| stat_cpu_seconds(&s)).unwrap_or(0.0);
        CpuSample { process_s, server_s: server_threads_cpu() }
    }

    /// Nanosecond-precise CPU times from `/proc/self/task/*/schedstat`, summed over the threads
    /// alive now (threads that exited are missing: use it for short intervals, such as one query).
    pub fn now_precise() -> CpuSample {
        let Ok(tasks) = fs::read_dir("/proc/self/task") else { return CpuSample::default() };
        let mut sample = CpuSample::default();
        for task in tasks.flatten() {
            let path = task.path();
            let Some(secs) = fs::read_to_string(path.join("schedstat")).ok().and_then(|s| schedstat_seconds(&s)) else {
                continue;
            };
            sample.process_s += secs;
            if is_server_thread(&path) {
                sample.server_s += secs;
            }
        }
        sample
    }

    /// CPU time spent between `earlier` and `self`.
    pub fn since(&self, earlier: &CpuSample) -> CpuSample {
        CpuSample { process_s: self.process_s - earlier.process_s, server_s: self.server_s - earlier.server_s }
    }

    /// CPU time of everything but the scripted server: the engine, its HTTP client, the store.
    pub fn engine_s(&self) -> f64 {
        (self.process_s - self.server_s).max(0.0)
    }
}

/// utime + stime in seconds from the text of a `/proc/.../stat` file.
pub fn stat_cpu_seconds(stat: &str) -> Option<f64> {
    // The command name (field 2) is in parentheses and may contain spaces: split after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state); utime and stime are fields 14 and 15.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / USER_HZ)
}

/// Run time in seconds from the text of a `/proc/.../schedstat` file (first field, ns).
pub fn schedstat_seconds(schedstat: &str) -> Option<f64> {
    let ns: u64 = schedstat.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

fn is_server_thread(task: &std::path::Path) -> bool {
    fs::read_to_string(task.join("comm")).map(|c| c.trim().starts_with(SERVER_THREAD_PREFIX)).unwrap_or(false)
}

fn server_threads_cpu() -> f64 {
    let Ok(tasks) = fs::read_dir("/proc/self/task") else { return 0.0 };
    let mut total = 0.0;
    for task in tasks.flatten() {
        let path = task.path();
        if is_server_thread(&path) {
            total += fs::read_to_string(path.join("stat")).ok().and_then(|s| stat_cpu_seconds(&s)).unwrap_or(0.0);
        }
    }
    total
}

/// Peak resident set size (`VmHWM`) in MiB, if `/proc/self/status` has it.
pub fn peak_rss_mib() -> Option<f64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    status_kib(&status, "VmHWM:").map(|kib| kib as f64 / 1024.0)
}

/// The value in KiB of a `NAME:   123 kB` line of `/proc/.../status`.
pub fn status_kib(status: &str, name: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(name))?;
    line[name.len()..].split_whitespace().next()?.parse().ok()
}

/// The 1, 5 and 15 minute load averages, as `/proc/loadavg` prints them.
pub fn load_average() -> Option<String> {
    let text = fs::read_to_string("/proc/loadavg").ok()?;
    let parts: Vec<&str> = text.split_whitespace().take(3).collect();
    (parts.len() == 3).then(|| parts.join(" "))
}

/// Logical CPUs available to this process.
pub fn cpu_count() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cpu_fields_after_a_name_with_spaces() {
        let stat = "1234 (my (odd) name) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 1 0";
        assert_eq!(stat_cpu_seconds(stat), Some(3.0));
    }

    #[test]
    fn rejects_truncated_stat() {
        assert_eq!(stat_cpu_seconds("1 (x) S 1 2"), None);
    }

    #[test]
    fn parses_schedstat() {
        assert_eq!(schedstat_seconds("1500000000 200 3\n"), Some(1.5));
        assert_eq!(schedstat_seconds(""), None);
    }

    #[test]
    fn reads_status_values() {
        let status = "Name:\tbench\nVmHWM:\t  204800 kB\nVmRSS:\t 1024 kB\n";
        assert_eq!(status_kib(status, "VmHWM:"), Some(204_800));
        assert_eq!(status_kib(status, "VmSwap:"), None);
    }

    #[test]
    fn live_process_has_some_cpu_and_memory() {
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        assert!(x != 1);
        assert!(CpuSample::now().process_s >= 0.0);
        let precise = CpuSample::now_precise();
        assert!(precise.process_s > 0.0);
        assert!(precise.server_s <= precise.process_s);
        assert!(peak_rss_mib().is_some_and(|m| m > 0.0));
    }
}
