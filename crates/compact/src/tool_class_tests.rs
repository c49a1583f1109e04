use pretty_assertions::assert_eq;

use super::*;

#[test]
fn claude_code_and_codex_tool_names_map_to_their_classes() {
    let cases = [
        ("Read", Some(ToolClass::Read)),
        ("read_file", Some(ToolClass::Read)),
        ("Bash", Some(ToolClass::Shell)),
        ("BashOutput", Some(ToolClass::Shell)),
        ("shell", Some(ToolClass::Shell)),
        ("shell_command", Some(ToolClass::Shell)),
        ("exec_command", Some(ToolClass::Shell)),
        ("local_shell", Some(ToolClass::Shell)),
        ("exec", Some(ToolClass::Shell)),
        ("wait", Some(ToolClass::Shell)),
        ("Grep", Some(ToolClass::Search)),
        ("grep_files", Some(ToolClass::Search)),
        ("Glob", Some(ToolClass::List)),
        ("LS", Some(ToolClass::List)),
        ("list_dir", Some(ToolClass::List)),
        ("WebSearch", Some(ToolClass::WebSearch)),
        ("web_search", Some(ToolClass::WebSearch)),
        ("WebFetch", Some(ToolClass::WebFetch)),
        ("Edit", Some(ToolClass::Edit)),
        ("apply_patch", Some(ToolClass::Edit)),
        ("Write", Some(ToolClass::Write)),
        ("TodoWrite", None),
        ("update_plan", None),
        ("mcp__github__get_issue", None),
    ];
    for (name, expected) in cases {
        assert_eq!(ToolClass::of_recorded_name(name), expected, "{name}");
        assert_eq!(ToolClasses::new().class_of(name), expected, "{name}");
    }
}

#[test]
fn the_host_s_own_tools_have_the_class_they_declare() {
    let classes = ToolClasses::from_iter([
        ("grep".to_string(), Some(ToolClass::Search)),
        ("glob".to_string(), Some(ToolClass::List)),
        ("bash_output".to_string(), Some(ToolClass::Shell)),
        // A host tool whose name a recorder uses for another kind: the host's word stands.
        ("exec".to_string(), None),
    ]);
    assert_eq!(classes.class_of("grep"), Some(ToolClass::Search));
    assert_eq!(classes.class_of("glob"), Some(ToolClass::List));
    assert_eq!(classes.class_of("bash_output"), Some(ToolClass::Shell));
    assert_eq!(classes.class_of("exec"), None);
    // Names the host does not offer fall back to the recorded ones.
    assert_eq!(classes.class_of("Glob"), Some(ToolClass::List));
    assert_eq!(classes.class_of("kill_shell"), None);
}

#[test]
fn declared_classes_serialize_as_a_name_to_class_object_and_read_back() {
    let classes = ToolClasses::from_iter([
        ("grep".to_string(), Some(ToolClass::Search)),
        ("bash_output".to_string(), Some(ToolClass::Shell)),
        ("todo_write".to_string(), None),
    ]);
    let json = serde_json::to_value(&classes).expect("serialize");
    assert_eq!(
        json,
        serde_json::json!({"bash_output": "shell", "grep": "search", "todo_write": null})
    );
    let back: ToolClasses = serde_json::from_value(json).expect("read back");
    assert_eq!(back, classes);
    let offered = classes.of_names(["grep", "todo_write", "read_file"]);
    assert_eq!(
        offered,
        ToolClasses::from_iter([
            ("grep".to_string(), Some(ToolClass::Search)),
            ("todo_write".to_string(), None),
        ])
    );
    assert!(!offered.is_empty());
    assert!(ToolClasses::new().is_empty());
}
