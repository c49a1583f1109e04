use std::fs;

use pretty_assertions::assert_eq;

use super::*;

fn mention(path: &str, range: Option<(usize, usize)>) -> FileMention {
    FileMention {
        path: path.to_string(),
        line_start: range.map(|(start, _)| start),
        line_end: range.map(|(_, end)| end),
    }
}

#[test]
fn parses_every_mention_form() {
    let prompt = "look at @src/lib.rs and @\"docs/my notes.md\", then @b.rs:10-20, @c.rs:5 \
                  and @\"x y.txt\":2-3; ask @agent-search, mail me@example.com, \
                  read @github:repo/issue and @src/lib.rs again.";
    let mentions = parse_file_mentions(prompt, &|server| server == "github");
    assert_eq!(
        mentions,
        vec![
            mention("src/lib.rs", None),
            mention("docs/my notes.md", None),
            mention("b.rs", Some((10, 20))),
            mention("c.rs", Some((5, 5))),
            mention("x y.txt", Some((2, 3))),
        ]
    );
}

#[test]
fn unknown_server_prefix_is_a_path_and_bad_ranges_are_not_ranges() {
    let mentions = parse_file_mentions("@notes:todo @a.rs:20-10 @\"\" @", &|_| false);
    assert_eq!(
        mentions,
        vec![mention("notes:todo", None), mention("a.rs:20-10", None)]
    );
}

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("src/nested")).unwrap();
        fs::write(dir.path().join("src/lib.rs"), "//! lib\npub fn f() {}\n").unwrap();
        fs::write(dir.path().join("src/main.rs"), "fn main() {}\n").unwrap();
        let lines: String = (1..=30).map(|n| format!("line {n}\n")).collect();
        fs::write(dir.path().join("my notes.md"), lines).unwrap();
        Self { dir }
    }

    fn ctx(&self, prompt: &str) -> GeneratorContext {
        GeneratorContext::new(self.dir.path()).with_user_prompt(prompt)
    }

    async fn generate(&self, ctx: &GeneratorContext) -> Option<String> {
        AtMentionedFilesGenerator
            .generate(ctx)
            .await
            .unwrap()
            .map(|reminder| {
                assert_eq!(reminder.attachment_type, AttachmentType::AtMentionedFiles);
                reminder
                    .content
                    .replace(&self.dir.path().display().to_string(), "[TMP]")
            })
    }
}

#[tokio::test]
async fn a_file_is_shown_with_line_numbers() {
    let fx = Fixture::new();
    let content = fx.generate(&fx.ctx("explain @src/lib.rs")).await.unwrap();
    insta::assert_snapshot!("at_mentioned_file", content);
}

#[tokio::test]
async fn a_quoted_path_with_a_line_range() {
    let fx = Fixture::new();
    let content = fx
        .generate(&fx.ctx("see @\"my notes.md\":10-12"))
        .await
        .unwrap();
    insta::assert_snapshot!("at_mentioned_range", content);
}

#[tokio::test]
async fn a_directory_is_listed() {
    let fx = Fixture::new();
    let content = fx.generate(&fx.ctx("what is in @src")).await.unwrap();
    insta::assert_snapshot!("at_mentioned_directory", content);
}

#[tokio::test]
async fn an_unchanged_file_already_read_is_skipped_then_shown_after_a_change() {
    let fx = Fixture::new();
    let ctx = fx.ctx("again @src/lib.rs");
    assert!(fx.generate(&ctx).await.is_some());
    // Mentioning it again: the model has it (already_read_file).
    assert_eq!(fx.generate(&ctx).await, None);
    fs::write(fx.dir.path().join("src/lib.rs"), "//! changed\n").unwrap();
    let content = fx.generate(&ctx).await.unwrap();
    assert!(content.contains("//! changed"), "{content}");
}

#[tokio::test]
async fn a_shown_file_is_tracked_for_changes() {
    let fx = Fixture::new();
    let ctx = fx.ctx("@src/main.rs");
    fx.generate(&ctx).await.unwrap();
    let state = ctx
        .file_tracker
        .get(&fx.dir.path().join("src/main.rs"))
        .unwrap();
    assert!(!state.is_partial());
    assert_eq!(&*state.content, "fn main() {}\n");
}

#[tokio::test]
async fn long_files_are_cut_at_the_line_limit() {
    let fx = Fixture::new();
    let lines: String = (1..=3_500).map(|n| format!("{n}\n")).collect();
    fs::write(fx.dir.path().join("long.txt"), lines).unwrap();
    let ctx = fx.ctx("@long.txt");
    let content = fx.generate(&ctx).await.unwrap();
    assert!(content.starts_with("Contents of [TMP]/long.txt (lines 1-3000 of 3500):\n"));
    assert!(
        content.contains("  3000\u{2192}3000\n\n(Truncated at 3000 lines / 40 KB."),
        "{content:.200}"
    );
    assert!(!content.contains("\u{2192}3001"));
    let state = ctx
        .file_tracker
        .get(&fx.dir.path().join("long.txt"))
        .unwrap();
    assert!(state.is_partial(), "a cut file is a partial read");
}

#[tokio::test]
async fn missing_files_and_binaries() {
    let fx = Fixture::new();
    fs::write(
        fx.dir.path().join("img.png"),
        [0x89, 0x50, 0xff, 0xfe, 0x00],
    )
    .unwrap();
    let content = fx
        .generate(&fx.ctx("@missing.rs and @img.png"))
        .await
        .unwrap();
    assert_eq!(
        content,
        "[TMP]/img.png is a binary file (5 bytes); its contents are not shown."
    );
}

#[tokio::test]
async fn no_prompt_or_no_mentions_give_nothing() {
    let fx = Fixture::new();
    let ctx = GeneratorContext::new(fx.dir.path());
    assert_eq!(fx.generate(&ctx).await, None);
    assert_eq!(fx.generate(&fx.ctx("no mentions here")).await, None);
}

proptest::proptest! {
    #[test]
    fn parsing_never_panics_and_paths_come_from_the_prompt(prompt in "(\\PC|[@\":\\- 0-9])*") {
        for mention in parse_file_mentions(&prompt, &|server| server.len() % 2 == 0) {
            proptest::prop_assert!(prompt.contains(&mention.path));
            proptest::prop_assert!(!mention.path.is_empty());
            if let (Some(start), Some(end)) = (mention.line_start, mention.line_end) {
                proptest::prop_assert!(start >= 1 && end >= start);
            }
        }
    }
}

#[tokio::test]
async fn huge_and_past_the_end_line_ranges_do_not_panic() {
    let fx = Fixture::new();
    fs::write(fx.dir.path().join("short.rs"), "a\nb\n").unwrap();
    let content = fx
        .generate(&fx.ctx("@short.rs:50-60 and @short.rs:1-18446744073709551615"))
        .await
        .unwrap();
    assert_eq!(
        content,
        "Contents of [TMP]/short.rs:\n(line 50 is past the end of the file, which has 2 lines)\n\n\
         Contents of [TMP]/short.rs:\n     1\u{2192}a\n     2\u{2192}b"
    );
}

#[tokio::test]
async fn paths_with_spaces_and_non_utf8_content() {
    let fx = Fixture::new();
    fs::create_dir_all(fx.dir.path().join("my docs")).unwrap();
    fs::write(fx.dir.path().join("my docs/a b.txt"), "hello\n").unwrap();
    fs::write(
        fx.dir.path().join("latin1.txt"),
        [b'c', b'a', b'f', 0xe9, b'\n'],
    )
    .unwrap();
    let content = fx
        .generate(&fx.ctx("see @\"my docs/a b.txt\" and @latin1.txt"))
        .await
        .unwrap();
    assert_eq!(
        content,
        "Contents of [TMP]/my docs/a b.txt:\n     1\u{2192}hello\n\n\
         [TMP]/latin1.txt is a binary file (5 bytes); its contents are not shown."
    );
}

#[test]
fn a_mention_that_timed_out_is_not_recorded_as_read_and_shows_next_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.md");
    fs::write(&path, "first line\n").unwrap();
    let ctx = GeneratorContext::new(dir.path()).with_user_prompt("see @notes.md");

    crate::timed_out_run::time_out_then_finish(
        std::sync::Arc::new(AtMentionedFilesGenerator),
        &ctx,
    );

    // The model never saw the file: nothing may claim it did.
    assert_eq!(ctx.file_tracker.get(&path), None);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let reminder = runtime
        .block_on(AtMentionedFilesGenerator.generate(&ctx))
        .unwrap()
        .map(|reminder| reminder.content);
    assert_eq!(
        reminder,
        Some(format!(
            "Contents of {}:\n     1→first line",
            path.display()
        ))
    );
}

#[tokio::test]
async fn after_compaction_a_mention_of_a_file_read_before_shows_it_again() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("notes.md"), "first line\n").unwrap();
    let ctx = GeneratorContext::new(dir.path()).with_user_prompt("see @notes.md");
    let generator = AtMentionedFilesGenerator;
    assert!(generator.generate(&ctx).await.unwrap().is_some());
    // Still in the context: the already-read skip applies.
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);

    let orchestrator = crate::SystemReminderOrchestrator::with_generators(
        crate::SystemReminderConfig::default(),
        vec![std::sync::Arc::new(AtMentionedFilesGenerator)],
    );
    orchestrator.reset(&ctx);

    let shown = generator.generate(&ctx).await.unwrap().map(|r| r.content);
    assert_eq!(
        shown,
        Some(format!(
            "Contents of {}:\n     1→first line",
            dir.path().join("notes.md").display()
        ))
    );
    // Shown again, so in the context again.
    assert_eq!(generator.generate(&ctx).await.unwrap(), None);
}

#[tokio::test]
async fn mentions_that_leave_the_working_directory_are_not_read() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.txt"), "TOKEN=hunter2\n").unwrap();
    let fx = Fixture::new();
    let cwd = fx.dir.path().join("src");
    std::os::unix::fs::symlink(outside.path(), cwd.join("escape")).unwrap();
    let relative = format!(
        "../{}",
        pathdiff_up(&cwd, &outside.path().join("secret.txt"))
    );
    let absolute = outside.path().join("secret.txt").display().to_string();
    let prompt = format!("@{relative} @{absolute} @escape/secret.txt @escape @lib.rs");
    let ctx = GeneratorContext::new(&cwd).with_user_prompt(prompt);
    let content = fx.generate(&ctx).await.unwrap();
    assert!(!content.contains("hunter2"), "{content}");
    assert!(!content.contains("secret.txt"), "{content}");
    assert!(
        content.contains("pub fn f()"),
        "the file inside is still shown: {content}"
    );
    assert!(
        ctx.file_tracker
            .get(&outside.path().join("secret.txt"))
            .is_none(),
        "nothing outside is recorded as read"
    );
}

/// The path of `target` written relative to the parent of `from` (both absolute): enough `..`
/// to reach the root, then the target.
fn pathdiff_up(from: &std::path::Path, target: &std::path::Path) -> String {
    let ups = from.parent().unwrap().components().count() - 1;
    let mut written = "../".repeat(ups);
    written.push_str(target.strip_prefix("/").unwrap().to_str().unwrap());
    written
}
