use agentctx_compact::ToolClass;
use agentctx_compact::ToolClasses;
use agentctx_model::ToolSpec;
use agentctx_protocol::TurnContextItem;
use pretty_assertions::assert_eq;

use crate::ContextEngine;
use crate::EngineOptions;
use crate::RECORDED_TOOL_CLASSES_FIELD;
use crate::replay::RECORDED_TOOLS_FIELD;
use crate::replay::RECORDED_WINDOW_FIELD;

fn engine() -> (tempfile::TempDir, ContextEngine) {
    let home = tempfile::tempdir().expect("home");
    let options = EngineOptions::new(
        home.path(),
        home.path(),
        "s1",
        Default::default(),
        Default::default(),
    )
    .with_window(12_000, Some(2_000));
    (home, ContextEngine::new(options))
}

fn tool(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.to_string(),
        description: format!("the {name} tool"),
        parameters: serde_json::json!({"type": "object"}),
    }
}

#[test]
fn every_line_records_the_window_and_a_changed_tool_list_its_classes() {
    let (_home, mut engine) = engine();
    engine.set_tool_classes(ToolClasses::from_iter([
        ("grep".to_string(), Some(ToolClass::Search)),
        ("todo_write".to_string(), None),
        ("not_offered".to_string(), Some(ToolClass::Read)),
    ]));
    let mut unchanged = TurnContextItem::default();
    engine.annotate_turn_context(&mut unchanged, None);
    assert_eq!(
        unchanged.extra.get(RECORDED_WINDOW_FIELD),
        Some(&serde_json::json!({"context_window": 12_000, "max_output_tokens": 2_000}))
    );
    assert!(!unchanged.extra.contains_key(RECORDED_TOOLS_FIELD));
    assert!(!unchanged.extra.contains_key(RECORDED_TOOL_CLASSES_FIELD));

    let tools = [tool("grep"), tool("todo_write"), tool("mcp__x__y")];
    let mut changed = TurnContextItem::default();
    engine.annotate_turn_context(&mut changed, Some(&tools));
    let recorded: Vec<ToolSpec> =
        serde_json::from_value(changed.extra[RECORDED_TOOLS_FIELD].clone()).expect("tools");
    assert_eq!(recorded, tools);
    assert_eq!(
        changed.extra.get(RECORDED_TOOL_CLASSES_FIELD),
        Some(&serde_json::json!({"grep": "search", "todo_write": null}))
    );
}

#[test]
fn a_host_that_declared_no_classes_records_none() {
    let (_home, engine) = engine();
    let mut line = TurnContextItem::default();
    engine.annotate_turn_context(&mut line, Some(&[tool("Read")]));
    assert!(line.extra.contains_key(RECORDED_TOOLS_FIELD));
    assert!(!line.extra.contains_key(RECORDED_TOOL_CLASSES_FIELD));
}
