use std::path::PathBuf;
use std::time::Duration;

use agentctx_protocol::XmlTag;
use pretty_assertions::assert_eq;

use super::*;

fn at(seconds: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(seconds)
}

#[test]
fn us_dates_match_the_calendar() {
    assert_eq!(format_us_date(at(0)), "1/1/1970");
    // 2024-01-15T12:00:00Z
    assert_eq!(format_us_date(at(1_705_320_000)), "1/15/2024");
    // 2024-02-29T23:59:59Z, a leap day
    assert_eq!(format_us_date(at(1_709_251_199)), "2/29/2024");
    // 2000-03-01T00:00:00Z
    assert_eq!(format_us_date(at(951_868_800)), "3/1/2000");
}

#[tokio::test]
async fn session_memory_is_wrapped_in_session_memory_tags() {
    let generator = SessionMemoryGenerator::default();
    let mut ctx = GeneratorContext::new("/work/project");
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.session_memory = vec![
        SessionMemoryEntry {
            full_path: PathBuf::from("/home/user/.agentctx/session-memory/s-1/summary.md"),
            content: "## Current Task\nAdd the parser.".to_string(),
            last_modified: Some(at(1_705_320_000)),
            remaining_lines: 12,
        },
        SessionMemoryEntry {
            full_path: PathBuf::from("/home/user/.agentctx/session-memory/s-0/summary.md"),
            content: "## Current Task\nSet up CI.".to_string(),
            last_modified: None,
            remaining_lines: 0,
        },
    ];
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    assert_eq!(reminder.xml_tag(), XmlTag::SessionMemory);
    let text = reminder.wrap_xml();
    assert!(text.starts_with("<session-memory>\nThese session summaries"));
    insta::assert_snapshot!("session_memory", text);
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
}
