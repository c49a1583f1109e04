use pretty_assertions::assert_eq;

use super::*;

#[test]
fn a_status_reads_as_the_word_it_is_serialised_as() {
    let statuses = [
        BackgroundTaskStatus::Running,
        BackgroundTaskStatus::Completed,
        BackgroundTaskStatus::Failed,
        BackgroundTaskStatus::Killed,
    ];
    let words: Vec<(&str, String, bool)> = statuses
        .iter()
        .map(|status| {
            (
                status.as_str(),
                serde_json::to_value(status)
                    .ok()
                    .and_then(|value| value.as_str().map(str::to_string))
                    .unwrap_or_default(),
                status.is_terminal(),
            )
        })
        .collect();
    assert_eq!(
        words,
        vec![
            ("running", "running".to_string(), false),
            ("completed", "completed".to_string(), true),
            ("failed", "failed".to_string(), true),
            ("killed", "killed".to_string(), true),
        ]
    );
}

#[test]
fn task_types_are_snake_case() {
    assert_eq!(
        serde_json::to_value(BackgroundTaskType::AsyncAgent).unwrap(),
        serde_json::json!("async_agent")
    );
    assert_eq!(
        serde_json::from_value::<BackgroundTaskType>(serde_json::json!("remote_session")).unwrap(),
        BackgroundTaskType::RemoteSession
    );
}
