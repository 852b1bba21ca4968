//! `scripted-llm`: runs the scripted OpenAI-compatible server until killed. The first line on
//! stdout is the base URL (`http://127.0.0.1:PORT/v1`).
//!
//! Flags: `--port N` (0 = free port), `--dim N` (embedding dimension), `--delay-ms N` (fixed
//! delay per request), `--stream-delay-ms N` (pause between the pieces of a streamed answer), `--glean-extra` (gleaning adds one entity), `--no-usage` (answers report no token usage), `--api-key KEY` (require it).

use std::process::ExitCode;
use std::time::Duration;

use lightrag_scripted_llm::{ScriptConfig, ScriptedLlm};

const USAGE: &str = "usage: scripted-llm [--port N] [--dim N] [--delay-ms N] [--stream-delay-ms N] [--glean-extra] [--no-usage] [--api-key KEY]";

fn parse_args(args: &[String]) -> Result<ScriptConfig, String> {
    let mut config = ScriptConfig::default();
    let mut iter = args.iter();
    while let Some(flag) = iter.next() {
        let mut value = |name: &str| iter.next().cloned().ok_or_else(|| format!("{name} needs a value\n{USAGE}"));
        let number = |name: &str, v: String| {
            v.parse::<u64>().map_err(|_| format!("{name} expects a whole number, got `{v}`\n{USAGE}"))
        };
        match flag.as_str() {
            "--port" => {
                let v = number("--port", value("--port")?)?;
                config.port = u16::try_from(v).map_err(|_| format!("--port {v} is out of range"))?;
            }
            "--dim" => config.dim = number("--dim", value("--dim")?)? as usize,
            "--delay-ms" => config.delay = Duration::from_millis(number("--delay-ms", value("--delay-ms")?)?),
            "--stream-delay-ms" => {
                config.stream_delay = Duration::from_millis(number("--stream-delay-ms", value("--stream-delay-ms")?)?)
            }
            "--glean-extra" => config.glean_extra_entity = true,
            "--no-usage" => config.report_usage = false,
            "--api-key" => config.api_key = Some(value("--api-key")?),
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown flag `{other}`\n{USAGE}")),
        }
    }
    Ok(config)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let config = match parse_args(&args) {
        Ok(c) => c,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let server = match ScriptedLlm::start_blocking(config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("scripted-llm: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("{}", server.base_url());
    loop {
        std::thread::park();
    }
}
