//! Logging of every command: `tracing` events to stderr, filtered by `RUST_LOG` as
//! `tracing-subscriber`'s env filter reads it, with `-v` raising the level when `RUST_LOG` does
//! not say otherwise (see docs/design/configuration.md, "The `config` command and logging").
//!
//! A command that works through many files (`agentctx report`) collects its warnings instead of
//! printing each as it happens ([`Warnings::Collect`]): the same warning about fifty sessions
//! would bury the command's one-line result. Each distinct warning (its message and fields) is
//! printed once at the end with how many times it was seen ([`print_collected`]).

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::sync::Mutex;

use tracing::Level;
use tracing::field::Field;
use tracing::field::Visit;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::FilterExt as _;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::layer::Context;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// What happens to warnings and errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Warnings {
    /// Printed as they happen, like every other event.
    Print,
    /// Kept, counted by their text, for [`print_collected`] at the end of the command.
    Collect,
}

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

/// Installs the subscriber: events to stderr, so stdout stays the command's output. With
/// [`Warnings::Collect`] the warnings and errors go to the collector instead.
pub(crate) fn init(verbosity: u8, rust_log: Option<&str>, warnings: Warnings) {
    let print = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        // Colours only for a person: a log captured in a file or a test stays plain text.
        .with_ansi(std::io::stderr().is_terminal());
    match warnings {
        Warnings::Print => {
            let _ = tracing_subscriber::registry()
                .with(print.with_filter(filter(verbosity, rust_log)))
                .try_init();
        }
        Warnings::Collect => {
            let below_warn = filter_fn(|meta| *meta.level() > Level::WARN);
            let _ = tracing_subscriber::registry()
                .with(print.with_filter(filter(verbosity, rust_log).and(below_warn)))
                .with(Collector.with_filter(filter(verbosity, rust_log)))
                .try_init();
        }
    }
}

/// The warnings collected so far, each with how many times it was seen, in the order first
/// seen.
static COLLECTED: Mutex<Vec<(String, usize)>> = Mutex::new(Vec::new());

/// Counts `text` as seen once more.
fn collect(text: String) {
    let Ok(mut collected) = COLLECTED.lock() else {
        return;
    };
    match collected.iter_mut().find(|(seen, _)| *seen == text) {
        Some((_, count)) => *count += 1,
        None => collected.push((text, 1)),
    }
}

/// Takes the warnings collected so far.
pub(crate) fn take_collected() -> Vec<(String, usize)> {
    COLLECTED
        .lock()
        .map(|mut collected| std::mem::take(&mut *collected))
        .unwrap_or_default()
}

/// The line of a warning seen `count` times: `warning: …`, or `warning (×N): …`.
pub(crate) fn collected_line(text: &str, count: usize) -> String {
    if count == 1 {
        format!("warning: {text}")
    } else {
        format!("warning (×{count}): {text}")
    }
}

/// Prints each warning collected so far once, with its count, to `out`.
pub(crate) fn print_collected(out: &mut impl std::io::Write) -> std::io::Result<()> {
    for (text, count) in take_collected() {
        writeln!(out, "{}", collected_line(&text, count))?;
    }
    Ok(())
}

/// The layer that collects warnings and errors (the filter it is given decides which are
/// seen at all).
struct Collector;

impl<S: tracing::Subscriber> Layer<S> for Collector {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if *event.metadata().level() > Level::WARN {
            return;
        }
        let mut text = EventText::default();
        event.record(&mut text);
        let mut line = text.message;
        if !text.fields.is_empty() {
            let _ = write!(line, " ({})", text.fields);
        }
        if *event.metadata().level() == Level::ERROR {
            line.insert_str(0, "error: ");
        }
        collect(line);
    }
}

/// An event's message and its other fields as `name=value`, space-separated.
#[derive(Default)]
struct EventText {
    message: String,
    fields: String,
}

impl EventText {
    fn field(&mut self, field: &Field, value: &dyn std::fmt::Display) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value}");
            return;
        }
        if !self.fields.is_empty() {
            self.fields.push(' ');
        }
        let _ = write!(self.fields, "{}={value}", field.name());
    }
}

impl Visit for EventText {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.field(field, &value);
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.field(field, &format_args!("{value:?}"));
    }
}

#[cfg(test)]
#[path = "logging_tests.rs"]
mod tests;
