use pretty_assertions::assert_eq;
use tracing_subscriber::filter::LevelFilter;

use super::filter;
use super::level;

#[test]
fn each_v_raises_the_level() {
    assert_eq!(level(0), LevelFilter::WARN);
    assert_eq!(level(1), LevelFilter::INFO);
    assert_eq!(level(2), LevelFilter::DEBUG);
    assert_eq!(level(5), LevelFilter::TRACE);
}

#[test]
fn rust_log_directives_take_precedence() {
    assert_eq!(filter(0, None).max_level_hint(), Some(LevelFilter::WARN));
    assert_eq!(filter(2, None).max_level_hint(), Some(LevelFilter::DEBUG));
    assert_eq!(
        filter(2, Some("off")).max_level_hint(),
        Some(LevelFilter::OFF)
    );
    assert_eq!(
        filter(0, Some("agentctx_core=trace")).max_level_hint(),
        Some(LevelFilter::TRACE)
    );
}

#[test]
fn collected_warnings_are_counted_by_their_text_once_each() {
    use tracing_subscriber::layer::SubscriberExt as _;
    let subscriber = tracing_subscriber::registry().with(super::Collector);
    tracing::subscriber::with_default(subscriber, || {
        for _ in 0..3 {
            tracing::warn!(model = "gpt-5", sent = "high", "the effort was clamped");
        }
        tracing::warn!(model = "o3", sent = "high", "the effort was clamped");
        tracing::info!("not a warning");
        tracing::error!("a file failed");
    });
    let collected = super::take_collected();
    assert_eq!(
        collected,
        [
            (
                "the effort was clamped (model=gpt-5 sent=high)".to_string(),
                3
            ),
            ("the effort was clamped (model=o3 sent=high)".to_string(), 1),
            ("error: a file failed".to_string(), 1),
        ]
    );
    let lines: Vec<String> = collected
        .iter()
        .map(|(text, count)| super::collected_line(text, *count))
        .collect();
    assert_eq!(
        lines[0],
        "warning (×3): the effort was clamped (model=gpt-5 sent=high)"
    );
    assert_eq!(
        lines[1],
        "warning: the effort was clamped (model=o3 sent=high)"
    );
    assert!(super::take_collected().is_empty());
}
