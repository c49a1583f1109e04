use pretty_assertions::assert_eq;

use super::LoopCondition;
use super::format_seconds;

#[test]
fn parses_iterations_and_durations() {
    assert_eq!("5".parse(), Ok(LoopCondition::Iters { count: 5 }));
    assert_eq!("90s".parse(), Ok(LoopCondition::Duration { seconds: 90 }));
    assert_eq!(
        "30m".parse(),
        Ok(LoopCondition::Duration { seconds: 1_800 })
    );
    assert_eq!(
        " 2h ".parse(),
        Ok(LoopCondition::Duration { seconds: 7_200 })
    );
}

#[test]
fn refuses_zero_negative_and_garbage() {
    for input in ["0", "-3", "0m", "m", "", "5x", "1.5h"] {
        assert!(input.parse::<LoopCondition>().is_err(), "{input:?}");
    }
}

#[test]
fn displays_for_people() {
    assert_eq!(LoopCondition::iterations(1).to_string(), "1 iteration");
    assert_eq!(LoopCondition::iterations(3).to_string(), "3 iterations");
    assert_eq!(
        LoopCondition::Duration { seconds: 3_903 }.to_string(),
        "1h 5m 3s"
    );
    assert_eq!(format_seconds(0), "0s");
}

#[test]
fn duration_has_no_known_total() {
    assert_eq!(LoopCondition::iterations(4).total_iterations(), 4);
    assert_eq!(
        LoopCondition::Duration { seconds: 60 }.total_iterations(),
        -1
    );
}
