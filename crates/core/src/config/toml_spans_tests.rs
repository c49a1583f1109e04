use pretty_assertions::assert_eq;

use super::key_at;
use super::key_lines;
use super::line_column;
use super::push_segment;

const DOC: &str = "model = \"gpt-5\"\n\n[system_reminder]\nenabled = true\n\n[system_reminder.attachments]\ntodo_reminder = false\n\n[model_providers.local]\nbase_url = \"http://localhost:8080/v1\"\nmodels = { \"qwen3.5\" = { context_window = 32768 } }\n";

#[test]
fn lines_and_columns_are_one_based_and_count_characters() {
    assert_eq!(line_column("a = 1\nbé = 2\n", 0), (1, 1));
    assert_eq!(line_column("a = 1\nbé = 2\n", 6), (2, 1));
    // `é` is two bytes, one column.
    assert_eq!(line_column("a = 1\nbé = 2\n", 9), (2, 3));
}

#[test]
fn every_key_has_its_line_under_its_dotted_path() {
    let lines = key_lines(DOC);
    assert_eq!(lines.get("model"), Some(&1));
    assert_eq!(lines.get("system_reminder.enabled"), Some(&4));
    assert_eq!(
        lines.get("system_reminder.attachments.todo_reminder"),
        Some(&7)
    );
    assert_eq!(lines.get("model_providers.local.base_url"), Some(&10));
    assert_eq!(
        lines.get("model_providers.local.models.\"qwen3.5\".context_window"),
        Some(&11)
    );
}

#[test]
fn the_key_at_a_position_is_the_innermost() {
    let offset = DOC.find("false").unwrap();
    assert_eq!(
        key_at(DOC, offset).as_deref(),
        Some("system_reminder.attachments.todo_reminder")
    );
    let offset = DOC.find("32768").unwrap();
    assert_eq!(
        key_at(DOC, offset).as_deref(),
        Some("model_providers.local.models.\"qwen3.5\".context_window")
    );
    assert_eq!(key_at("a = [", 4), None);
}

#[test]
fn segments_that_are_not_bare_keys_are_quoted() {
    assert_eq!(push_segment("", "compact"), "compact");
    assert_eq!(push_segment("models", "gpt-5.1"), "models.\"gpt-5.1\"");
    assert_eq!(push_segment("a", "b_c-d"), "a.b_c-d");
}
