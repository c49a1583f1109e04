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
