//! Target 3 of the performance work (docs/design/performance.md): the `changed_files` diff of a
//! 10,000-line file with 50 scattered edits.
//!
//! - `changed_files_diff/unified_diff`: the whole diff the reminder shows
//!   (`unified_diff_with_line_numbers`: split into lines, diff, render with line numbers).
//! - `changed_files_diff/imara_histogram` and `changed_files_diff/similar_myers`: the line diff
//!   alone with each library, on the same line slices, so the libraries compare like for like
//!   (the rendering after them is shared).
//!
//! Run with `cargo bench -p agentctx-reminders --bench changed_files_diff`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark setup fails loudly"
)]

use std::hint::black_box;

use agentctx_reminders::DiffOptions;
use agentctx_reminders::unified_diff_with_line_numbers;
use criterion::Criterion;
use criterion::criterion_group;
use criterion::criterion_main;
use imara_diff::Algorithm;
use imara_diff::Diff;
use imara_diff::InternedInput;

const LINES: usize = 10_000;
const EDITS: usize = 50;

/// A 10,000-line source file and the same file with 50 edits spread over it: modified lines,
/// inserted lines and deleted lines in turn.
fn files() -> (String, String) {
    let old: Vec<String> = (0..LINES)
        .map(|line| match line % 7 {
            0 => format!("fn item_{line}(input: &str) -> Result<usize, Error> {{"),
            1 | 2 => format!("    let value_{line} = parse(input, {line})?;"),
            3 => "    if value.is_empty() {".to_string(),
            4 => "        return Ok(0);".to_string(),
            5 => "    }".to_string(),
            _ => "}".to_string(),
        })
        .collect();
    let mut new = old.clone();
    // Edit from the end so earlier indices stay valid.
    for edit in (0..EDITS).rev() {
        let at = edit * (LINES / EDITS) + 17;
        match edit % 3 {
            0 => new[at] = format!("    let renamed_{at} = parse_fast(input, {at})?;"),
            1 => new.insert(
                at,
                format!("    tracing::debug!(line = {at}, \"checked\");"),
            ),
            _ => {
                new.remove(at);
            }
        }
    }
    (old.join("\n") + "\n", new.join("\n") + "\n")
}

fn bench(c: &mut Criterion) {
    let (old, new) = files();
    let diff = unified_diff_with_line_numbers(&old, &new, DiffOptions::default());
    assert_eq!(diff.matches("@@ -").count(), EDITS);

    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let mut group = c.benchmark_group("changed_files_diff");
    group.bench_function("unified_diff", |b| {
        b.iter(|| unified_diff_with_line_numbers(black_box(&old), &new, DiffOptions::default()));
    });
    group.bench_function("imara_histogram", |b| {
        b.iter(|| {
            let mut input = InternedInput::default();
            input.update_before(black_box(&old_lines).iter().copied());
            input.update_after(new_lines.iter().copied());
            let mut diff = Diff::compute(Algorithm::Histogram, &input);
            diff.postprocess_lines(&input);
            diff.hunks().count()
        });
    });
    group.bench_function("similar_myers", |b| {
        b.iter(|| {
            similar::capture_diff_slices(
                similar::Algorithm::Myers,
                black_box(&old_lines),
                &new_lines,
            )
            .len()
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
