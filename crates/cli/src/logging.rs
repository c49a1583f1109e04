//! Logging of every command: `tracing` events to stderr, filtered by `RUST_LOG` as
//! `tracing-subscriber`'s env filter reads it, with `-v` raising the level when `RUST_LOG` does
//! not say otherwise (see docs/design/configuration.md, "The `config` command and logging").

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;

/// The level for `verbosity` `-v` flags: `warn`, then `info`, `debug`, `trace`.
pub(crate) fn level(verbosity: u8) -> LevelFilter {
    match verbosity {
        0 => LevelFilter::WARN,
        1 => LevelFilter::INFO,
        2 => LevelFilter::DEBUG,
        _ => LevelFilter::TRACE,
    }
}

/// The filter: `rust_log`'s directives over the level `verbosity` sets. A bad directive is
/// ignored (and reported by the filter) rather than failing the command.
pub(crate) fn filter(verbosity: u8, rust_log: Option<&str>) -> EnvFilter {
    EnvFilter::builder()
        .with_default_directive(level(verbosity).into())
        .parse_lossy(rust_log.unwrap_or_default())
}

/// Installs the subscriber: events to stderr, so stdout stays the command's output.
pub(crate) fn init(verbosity: u8, rust_log: Option<&str>) {
    tracing_subscriber::fmt()
        .with_env_filter(filter(verbosity, rust_log))
        .with_writer(std::io::stderr)
        // Colours only for a person: a log captured in a file or a test stays plain text.
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

#[cfg(test)]
#[path = "logging_tests.rs"]
mod tests;
