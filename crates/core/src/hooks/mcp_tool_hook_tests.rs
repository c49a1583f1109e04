use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

#[test]
fn paths_of_the_input_fill_the_strings_of_the_arguments() {
    let input = json!({"tool_name": "Write", "tool_input": {"file_path": "/p/a.rs", "n": 3}});
    let arguments = json!({
        "file_path": "${tool_input.file_path}",
        "note": "${tool_name} of ${tool_input.n} ${tool_input.missing}.",
        "fixed": 7,
        "list": ["${tool_name}"]
    });
    assert_eq!(
        substitute(&arguments, &input),
        json!({"file_path": "/p/a.rs", "note": "Write of 3 .", "fixed": 7, "list": ["Write"]})
    );
}
