use std::path::Component;

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn provider_call_ids_are_used_as_they_are() {
    assert_eq!(path_safe_stem("toolu_01ABCdef"), "toolu_01ABCdef");
    assert_eq!(path_safe_stem("call_Xy-9"), "call_Xy-9");
}

#[test]
fn hostile_call_ids_stay_inside_the_tool_results_folder() {
    let home = Path::new("/home/agentctx");
    for call_id in [
        "../../etc/passwd",
        "/etc/passwd",
        "..",
        ".",
        "",
        "a/b",
        "a\\b",
        "C:\\Windows",
        "x\0y",
        &"z".repeat(500),
    ] {
        let path = persisted_output_path(home, call_id);
        assert_eq!(
            path.parent(),
            Some(home.join(TOOL_RESULTS_DIR).as_path()),
            "{call_id:?}"
        );
        let name = path.file_name().and_then(|name| name.to_str()).unwrap();
        assert!(!name.contains(".."), "{name}");
        assert!(name.len() <= MAX_STEM_BYTES + 1 + 16 + 4, "{name}");
        assert!(
            path.components()
                .all(|component| !matches!(component, Component::ParentDir)),
            "{path:?}"
        );
    }
}

#[test]
fn ids_differing_only_in_unsafe_characters_get_different_files() {
    assert_ne!(path_safe_stem("a/b"), path_safe_stem("a_b"));
    assert_ne!(path_safe_stem("a/b"), path_safe_stem("a\\b"));
    // And the same id always gets the same file.
    assert_eq!(path_safe_stem("a/b"), path_safe_stem("a/b"));
}

#[test]
fn the_persisted_marker_text_is_pinned() {
    let path = Path::new("/home/agentctx/tool-results/toolu_01.txt");
    insta::assert_snapshot!(
        "persisted_output_marker",
        persisted_output_marker(
            path,
            48_213,
            "Digest: 412 lines; first: Exit code: 101; last: test result: FAILED. 3 passed; 1 failed"
        )
    );
    insta::assert_snapshot!("cleared_tool_result", CLEARED_TOOL_RESULT_TEXT);
}

#[test]
fn marker_paths_are_escaped_as_attribute_values() {
    let marker = persisted_output_marker(
        Path::new("/tmp/a\"b<c>&\nd/x.txt"),
        1,
        "Digest: 1 line, blank.",
    );
    assert_eq!(
        marker.lines().next(),
        Some(
            "<persisted-output path=\"/tmp/a&quot;b&lt;c&gt;&amp;&#10;d/x.txt\" original_size=\"1\" />"
        )
    );
    assert!(is_cleared_output(&marker));
}

#[test]
fn replacement_texts_are_recognised_and_real_output_is_not() {
    let marker = persisted_output_marker(
        Path::new("/h/tool-results/c.txt"),
        10,
        &output_digest("a\nb"),
    );
    assert!(is_cleared_output(&marker));
    assert!(is_cleared_output(CLEARED_TOOL_RESULT_TEXT));
    assert!(!is_cleared_output("fn main() {}"));
    assert!(!is_cleared_output(&format!("{marker}\nmore output")));
    assert!(!is_cleared_output(
        "<persisted-output path=\"x\" original_size=\"1\" />\nreal content"
    ));
    // Markers written before the digest or the hint line: still cleared, never cleared twice.
    assert!(is_cleared_output(&format!(
        "<persisted-output path=\"x\" original_size=\"1\" />\n{PERSISTED_OUTPUT_HINT}\n{CLEARED_TOOL_RESULT_TEXT}"
    )));
    assert!(is_cleared_output(
        "<persisted-output path=\"x\" original_size=\"1\" />\n[Old tool result content cleared]"
    ));
    assert!(!is_cleared_output(&format!(
        "<persisted-output path=\"x\" original_size=\"1\" />\n{PERSISTED_OUTPUT_HINT}\nreal content"
    )));
}

#[test]
fn the_marker_names_both_ways_back() {
    let marker = persisted_output_marker(
        Path::new("/h/tool-results/c.txt"),
        10,
        &output_digest("a\nb"),
    );
    assert!(marker.contains("read_file"), "{marker}");
    assert!(marker.contains("recall"), "{marker}");
}

#[test]
fn persisting_writes_the_whole_text() {
    let home = tempfile::tempdir().unwrap();
    let path = persisted_output_path(home.path(), "call_1");
    persist_output(&path, "line 1\nline 2\n").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "line 1\nline 2\n");
}

#[cfg(unix)]
#[test]
fn a_symlink_planted_at_a_result_path_is_replaced_not_followed() {
    let home = tempfile::tempdir().unwrap();
    let outside = home.path().join("outside.txt");
    std::fs::write(&outside, "precious").unwrap();
    let path = persisted_output_path(home.path(), "call_1");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&outside, &path).unwrap();

    persist_output(&path, "the tool's output").unwrap();

    // The rename put a new file in place of the link; the link's target is untouched.
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
    assert!(
        !std::fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "the tool's output");
}

#[test]
fn the_digest_is_one_line_with_the_count_and_the_first_and_last_lines() {
    assert_eq!(
        output_digest("Exit code: 1\nOutput:\n\nerror[E0308]: mismatched types\n  \n"),
        "Digest: 5 lines; first: Exit code: 1; last: error[E0308]: mismatched types"
    );
    assert_eq!(output_digest("ok"), "Digest: 1 line; only: ok");
    assert_eq!(output_digest("\n  \n"), "Digest: 2 lines, blank.");
    let long = output_digest(&format!("{}\nend", "x".repeat(500)));
    assert!(!long.contains('\n'));
    assert!(
        long.contains(&format!("first: {}…; last: end", "x".repeat(120))),
        "{long}"
    );
}
