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
