use pretty_assertions::assert_eq;

use super::TargetRun;
use super::parse_executions;
use super::parse_target_list;
use super::render_table;

#[test]
fn targets_are_the_non_empty_lines_of_cargo_fuzz_list() {
    assert_eq!(
        parse_target_list("rollout_lines\n  sse_chat \n\n"),
        vec!["rollout_lines".to_owned(), "sse_chat".to_owned()]
    );
}

#[test]
fn executions_come_from_the_final_stats_or_the_done_line() {
    let stats = "#2\tINITED\nDone 9000 runs in 3 second(s)\nstat::number_of_executed_units: 9001\nstat::average_exec_per_sec:     3000\n";
    assert_eq!(parse_executions(stats), Some(9001));
    assert_eq!(
        parse_executions("#1 INITED\nDone 1234 runs in 1 second(s)\n"),
        Some(1234)
    );
    assert_eq!(
        parse_executions("==1== ERROR: libFuzzer: deadly signal\n"),
        None
    );
}

#[test]
fn the_table_names_crashes() {
    let runs = [
        TargetRun {
            target: "skill_md".to_owned(),
            ok: true,
            executions: Some(42),
        },
        TargetRun {
            target: "sse_chat".to_owned(),
            ok: false,
            executions: None,
        },
    ];
    assert_eq!(
        render_table(&runs, 5),
        "target            seconds     executions  result\n\
         skill_md                5             42  ok\n\
         sse_chat                5              ?  CRASH (see fuzz/artifacts)\n"
    );
}
