use pretty_assertions::assert_eq;

use super::*;

fn question(options: &[&str]) -> UserQuestion {
    UserQuestion {
        question: " Which store? ".to_string(),
        options: options.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn the_question_shows_its_options_numbered() {
    insta::assert_snapshot!(render_question(&question(&["SQLite", "plain files"])), @r"

    question: Which store?
      1. SQLite
      2. plain files
    answer (a number or your own words):
    ");
    assert_eq!(
        render_question(&question(&[])),
        "\nquestion: Which store?\nanswer: "
    );
}

#[test]
fn a_number_picks_its_option_and_anything_else_is_the_answer() {
    let options = vec!["SQLite".to_string(), "plain files".to_string()];
    assert_eq!(pick_option("2\n", &options), "plain files");
    assert_eq!(pick_option(" use postgres \n", &options), "use postgres");
    assert_eq!(pick_option("0", &options), "0");
    assert_eq!(pick_option("3", &options), "3");
}

#[tokio::test]
async fn the_non_interactive_approver_cannot_answer() {
    assert_eq!(NonInteractiveApprover.ask(&question(&["a"])).await, None);
}
