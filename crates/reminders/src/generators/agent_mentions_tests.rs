use pretty_assertions::assert_eq;

use super::*;

#[test]
fn agent_mentions_are_words_starting_with_at_agent() {
    assert_eq!(
        parse_agent_mentions(
            "Ask @agent-search to find callers, then @agent-code-reviewer: review. Not me@agent-x, again @agent-search."
        ),
        ["search", "code-reviewer"]
    );
    assert_eq!(parse_agent_mentions("@agent- alone"), Vec::<String>::new());
    assert_eq!(
        parse_agent_mentions("mail me@agent-x"),
        Vec::<String>::new()
    );
}

#[tokio::test]
async fn agent_mentions_reminder_per_mentioned_agent() {
    let generator = AgentMentionsGenerator;
    let ctx = GeneratorContext::new("/work/project").with_user_prompt("fix the bug");
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    let ctx = GeneratorContext::new("/work/project")
        .with_user_prompt("@agent-Explore where is the parser? then @agent-Plan a fix");
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!("agent_mentions", reminder.wrap_xml());
}
