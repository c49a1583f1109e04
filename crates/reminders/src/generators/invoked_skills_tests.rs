use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::*;

fn skill(name: &str, content: &str) -> InvokedSkill {
    InvokedSkill {
        name: name.to_string(),
        path: PathBuf::from(format!("/work/project/.agentctx/skills/{name}/SKILL.md")),
        content: content.to_string(),
    }
}

#[tokio::test]
async fn invoked_skills_lists_each_skill_and_fires_on_change() {
    let generator = InvokedSkillsGenerator::default();
    let mut ctx = GeneratorContext::new("/work/project");
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    ctx.invoked_skills = vec![
        skill(
            "commit",
            "# Commit\nWrite small commits with clear messages.",
        ),
        skill("review", "# Review\nRead the whole diff before commenting."),
    ];
    let reminder = generator.generate(&ctx).await.unwrap().unwrap();
    insta::assert_snapshot!("invoked_skills", reminder.wrap_xml());
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
}
