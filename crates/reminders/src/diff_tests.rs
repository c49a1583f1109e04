use pretty_assertions::assert_eq;

use super::*;

#[test]
fn equal_inputs_give_an_empty_diff() {
    assert_eq!(
        unified_diff_with_line_numbers("a\nb\n", "a\nb\n", DiffOptions::default()),
        ""
    );
}

#[test]
fn changed_line_carries_old_and_new_numbers() {
    let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
    let new = "a\nb\nc\nD\ne\nf\ng\nh\n";
    let diff = unified_diff_with_line_numbers(old, new, DiffOptions::default());
    let expected = "\
@@ -1,7 +1,7 @@
     1      1  a
     2      2  b
     3      3  c
     4        -d
            4 +D
     5      5  e
     6      6  f
     7      7  g";
    assert_eq!(diff, expected);
}

#[test]
fn far_apart_changes_make_two_hunks() {
    let old: String = (1..=30).map(|n| format!("line {n}\n")).collect();
    let new = old
        .replace("line 2\n", "line two\n")
        .replace("line 28\n", "");
    let diff = unified_diff_with_line_numbers(&old, &new, DiffOptions::default());
    assert_eq!(diff.matches("@@ -").count(), 2, "{diff}");
    assert!(diff.contains("    28        -line 28"), "{diff}");
    assert!(diff.contains("            2 +line two"), "{diff}");
}

#[test]
fn appending_to_an_empty_file() {
    let diff = unified_diff_with_line_numbers("", "x\ny\n", DiffOptions::default());
    assert_eq!(diff, "@@ -0,0 +1,2 @@\n            1 +x\n            2 +y");
}

/// The old side (` ` and `-` lines) and new side (` ` and `+` lines) of a rendered diff.
fn sides(diff: &str) -> (Vec<&str>, Vec<&str>) {
    let mut old = Vec::new();
    let mut new = Vec::new();
    for line in diff.lines().filter(|line| !line.starts_with("@@")) {
        let (sign, text) = line.split_at(14).1.split_at(1);
        match sign {
            " " => {
                old.push(text);
                new.push(text);
            }
            "-" => old.push(text),
            "+" => new.push(text),
            other => panic!("unexpected sign {other:?} in {line:?}"),
        }
    }
    (old, new)
}

#[test]
fn an_expired_deadline_still_gives_a_correct_diff() {
    let old: String = (0..5_000)
        .map(|n| format!("old {}\n", n * 7 % 5_000))
        .collect();
    let new: String = (0..5_000)
        .map(|n| format!("old {}\n", n * 11 % 5_000))
        .collect();
    let options = DiffOptions {
        context_lines: usize::MAX / 4,
        deadline: Duration::ZERO,
    };
    let diff = unified_diff_with_line_numbers(&old, &new, options);
    let (old_side, new_side) = sides(&diff);
    assert_eq!(old_side, old.lines().collect::<Vec<_>>());
    assert_eq!(new_side, new.lines().collect::<Vec<_>>());
}

#[test]
fn whole_file_context_reproduces_both_sides() {
    let old = "a\nb\nc\nd\ne\n";
    let new = "a\nc\nd\nx\ny\ne\nf\n";
    let options = DiffOptions {
        context_lines: 100,
        ..DiffOptions::default()
    };
    let diff = unified_diff_with_line_numbers(old, new, options);
    assert_eq!(sides(&diff), (old.lines().collect(), new.lines().collect()));
}

/// The same edit rendered from `similar`'s Myers (what the reminder uses) and from imara-diff's
/// histogram with its indentation heuristic, to compare how readable each is (see
/// docs/design/performance.md, "changed_files diff").
#[test]
fn similar_and_imara_render_an_edit_equally_readably() {
    let old = "\
use std::fs;

fn load(path: &str) -> String {
    fs::read_to_string(path).unwrap_or_default()
}

fn count(text: &str) -> usize {
    text.lines().count()
}

fn main() {
    let text = load(\"input.txt\");
    println!(\"{}\", count(&text));
}
";
    let new = "\
use std::fs;

fn load(path: &str) -> String {
    fs::read_to_string(path).unwrap_or_default()
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

fn count(text: &str) -> usize {
    text.lines().count()
}

fn main() {
    let text = load(\"input.txt\");
    println!(\"{} {}\", count(&text), words(&text));
}
";
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let similar = unified_diff_with_line_numbers(old, new, DiffOptions::default());
    let imara = render(
        &old_lines,
        &new_lines,
        imara_ops(&old_lines, &new_lines),
        DEFAULT_CONTEXT_LINES,
    );
    insta::assert_snapshot!("edit_similar_myers", similar);
    insta::assert_snapshot!("edit_imara_histogram", imara);
}

/// imara-diff's histogram diff (post-processed for readability) as `similar` operations.
fn imara_ops(old_lines: &[&str], new_lines: &[&str]) -> Vec<DiffOp> {
    let mut input = imara_diff::InternedInput::default();
    input.update_before(old_lines.iter().copied());
    input.update_after(new_lines.iter().copied());
    let mut diff = imara_diff::Diff::compute(imara_diff::Algorithm::Histogram, &input);
    diff.postprocess_lines(&input);
    let mut ops = Vec::new();
    let (mut old_at, mut new_at) = (0usize, 0usize);
    for hunk in diff.hunks() {
        let (before, after) = (
            hunk.before.start as usize..hunk.before.end as usize,
            hunk.after.start as usize..hunk.after.end as usize,
        );
        if before.start > old_at {
            ops.push(DiffOp::Equal {
                old_index: old_at,
                new_index: new_at,
                len: before.start - old_at,
            });
        }
        ops.push(match (before.is_empty(), after.is_empty()) {
            (true, _) => DiffOp::Insert {
                old_index: before.start,
                new_index: after.start,
                new_len: after.len(),
            },
            (_, true) => DiffOp::Delete {
                old_index: before.start,
                old_len: before.len(),
                new_index: after.start,
            },
            _ => DiffOp::Replace {
                old_index: before.start,
                old_len: before.len(),
                new_index: after.start,
                new_len: after.len(),
            },
        });
        (old_at, new_at) = (before.end, after.end);
    }
    if old_at < old_lines.len() {
        ops.push(DiffOp::Equal {
            old_index: old_at,
            new_index: new_at,
            len: old_lines.len() - old_at,
        });
    }
    ops
}
