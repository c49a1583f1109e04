use pretty_assertions::assert_eq;

use super::Action;
use super::command;

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn flags_choose_the_action() {
    assert_eq!(Action::from_flags(false, false, false), Action::Test);
    assert_eq!(Action::from_flags(true, false, false), Action::Review);
    assert_eq!(Action::from_flags(false, true, false), Action::Accept);
    assert_eq!(Action::from_flags(false, false, true), Action::Reject);
}

#[test]
fn each_action_delegates_to_cargo_insta() {
    assert_eq!(
        command(Action::Test, &[]).display(),
        "cargo insta test --all-features --workspace"
    );
    assert_eq!(
        command(Action::Test, &args(&["-p", "agentctx-reminders"])).display(),
        "cargo insta test --all-features -p agentctx-reminders"
    );
    assert_eq!(command(Action::Review, &[]).display(), "cargo insta review");
    assert_eq!(command(Action::Accept, &[]).display(), "cargo insta accept");
    assert_eq!(command(Action::Reject, &[]).display(), "cargo insta reject");
}
