//! A 100 MB tool output truncated for the model: the result fits the budget, and the child
//! process doing it never holds a second copy of the output (peak RSS, `VmHWM`, stays under the
//! output's size plus a fixed margin).

use agentctx_context::MAX_TRUNCATION_MARKER_BYTES;
use agentctx_context::TruncationPolicy;
use agentctx_context::formatted_truncate_text;
use agentctx_test_support::child_process::child_env;
use agentctx_test_support::child_process::peak_rss_kib;
use agentctx_test_support::child_process::spawn_test;

const OUTPUT_BYTES: usize = 100 * 1024 * 1024;
const CHILD: &str = "suite::bounded_tool_output::truncating_child";
const PARENT: &str = "a_100_mb_tool_output_is_truncated_without_a_second_copy";
/// Allowed on top of the output itself: the test binary, the truncated text, allocator slack.
const MARGIN_MIB: u64 = 48;

/// The child's work: build the output, truncate it to 10,000 tokens, report sizes and peak RSS.
#[test]
#[ignore = "child process of a_100_mb_tool_output_is_truncated_without_a_second_copy"]
fn truncating_child() {
    let bytes: usize = child_env("AGENTCTX_TEST_BYTES", PARENT).parse().unwrap();
    let mut output = String::with_capacity(bytes);
    let mut line = 0usize;
    while output.len() + 64 < bytes {
        output.push_str(&format!(
            "line {line}: some build log output that goes on and on\n"
        ));
        line += 1;
    }
    let truncated = formatted_truncate_text(&output, TruncationPolicy::Tokens(10_000));
    let peak = peak_rss_kib(std::process::id()).unwrap();
    println!(
        "input={} output={} peak_kib={peak}",
        output.len(),
        truncated.len()
    );
}

#[test]
fn a_100_mb_tool_output_is_truncated_without_a_second_copy() {
    let child = spawn_test(CHILD, &[("AGENTCTX_TEST_BYTES", OUTPUT_BYTES.to_string())]);
    let result = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert!(
        result.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let report = stdout
        .lines()
        .find_map(|line| line.find("input=").and_then(|at| line.get(at..)))
        .unwrap();
    let field = |name: &str| -> u64 {
        report
            .split_whitespace()
            .find_map(|pair| pair.strip_prefix(name))
            .unwrap()
            .parse()
            .unwrap()
    };
    let (input, output, peak_kib) = (field("input="), field("output="), field("peak_kib="));
    println!(
        "tool output: {} MiB in, {output} bytes out, child peak RSS {} MiB",
        input >> 20,
        peak_kib >> 10
    );
    // 10,000 tokens of content (4 bytes each), the marker and the header lines.
    assert!(
        output <= 40_000 + MAX_TRUNCATION_MARKER_BYTES as u64 + 200,
        "{output}"
    );
    assert!(
        peak_kib >> 10 <= (input >> 20) + MARGIN_MIB,
        "peak RSS {peak_kib} KiB for a {input}-byte output"
    );
}
