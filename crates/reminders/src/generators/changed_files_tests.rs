use std::fs;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::*;

struct Fixture {
    dir: tempfile::TempDir,
    ctx: GeneratorContext,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let ctx = GeneratorContext::new(dir.path());
        Self { dir, ctx }
    }

    fn path(&self, name: &str) -> std::path::PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `name` and records that the model read it in full.
    fn read(&self, name: &str, text: &str) {
        fs::write(self.path(name), text).unwrap();
        self.ctx
            .file_tracker
            .track_read(self.path(name), text, 1, None, None);
    }

    fn edit(&self, name: &str, text: &str) {
        fs::write(self.path(name), text).unwrap();
    }

    async fn generate(&self) -> Option<String> {
        ChangedFilesGenerator::default()
            .generate(&self.ctx)
            .await
            .unwrap()
            .map(|reminder| {
                assert_eq!(reminder.attachment_type, AttachmentType::ChangedFiles);
                // The wrapped text, so the snapshots show the sections' closing blank lines.
                reminder
                    .wrap_xml()
                    .replace(&self.dir.path().display().to_string(), "[TMP]")
            })
    }
}

fn numbered(count: usize) -> String {
    (1..=count).map(|n| format!("line {n}\n")).collect()
}

#[tokio::test]
async fn changed_files_includes_diff() {
    let fx = Fixture::new();
    fx.read("main.rs", &numbered(12));
    fx.edit(
        "main.rs",
        &numbered(12).replace("line 6\n", "line six\nline 6b\n"),
    );
    let content = fx.generate().await.unwrap();
    assert!(content.contains("-line 6"), "{content}");
    assert!(content.contains("+line six"), "{content}");
    insta::assert_snapshot!("changed_files_modified", content);
}

#[tokio::test]
async fn a_change_is_reported_once() {
    let fx = Fixture::new();
    fx.read("a.txt", "x\n");
    fx.edit("a.txt", "y\n");
    assert!(fx.generate().await.is_some());
    assert_eq!(fx.generate().await, None);
}

#[tokio::test]
async fn unchanged_files_give_no_reminder() {
    let fx = Fixture::new();
    fx.read("a.txt", "x\n");
    assert_eq!(fx.generate().await, None);
}

#[tokio::test]
async fn deleted_file_is_reported_as_deleted() {
    let fx = Fixture::new();
    fx.read("gone.txt", &numbered(500));
    fs::remove_file(fx.path("gone.txt")).unwrap();
    let content = fx.generate().await.unwrap();
    assert!(!content.contains("line 1"), "no file content: {content}");
    insta::assert_snapshot!("changed_files_deleted", content);
    assert_eq!(fx.generate().await, None, "reported once");
}

#[tokio::test]
async fn two_edits_before_the_model_saw_the_first_give_one_combined_diff() {
    let fx = Fixture::new();
    fx.read("a.txt", "alpha\nbeta\ngamma\n");
    fx.edit("a.txt", "alpha\nBETA\ngamma\n");
    fx.edit("a.txt", "alpha\nBETA\ngamma\ndelta\n");
    let content = fx.generate().await.unwrap();
    assert_eq!(content.matches("Note: ").count(), 1);
    insta::assert_snapshot!("changed_files_combined", content);
}

#[tokio::test]
async fn never_whole_files_only_diffs() {
    let fx = Fixture::new();
    let original = numbered(2_000);
    fx.read("big.txt", &original);
    fx.edit(
        "big.txt",
        &original.replace("line 1000\n", "line one thousand\n"),
    );
    let content = fx.generate().await.unwrap();
    // The old and new line plus three lines of context each side.
    assert_eq!(
        content
            .lines()
            .filter(|line| line.contains("line ") && !line.starts_with("Note:"))
            .count(),
        8
    );
}

#[tokio::test]
async fn the_token_cap_cuts_whole_files_and_names_them() {
    let mut fx = Fixture::new();
    fx.ctx.changed_files_token_cap = 600;
    for name in ["a.txt", "b.txt", "c.txt"] {
        fx.read(name, &numbered(40));
        let rewritten: String = (1..=40).map(|n| format!("rewritten {n}\n")).collect();
        fx.edit(name, &rewritten);
    }
    let content = fx.generate().await.unwrap();
    assert!(
        agentctx_context::approx_token_count(&content) <= 600 + 100,
        "cap respected up to the closing note"
    );
    assert_eq!(
        content.matches("was modified, either").count(),
        1,
        "{content}"
    );
    insta::assert_snapshot!("changed_files_token_cap", content);
    assert_eq!(
        fx.generate().await,
        None,
        "cut files were told, not repeated"
    );
}

#[tokio::test]
async fn partial_reads_are_not_reported() {
    let fx = Fixture::new();
    fs::write(fx.path("a.txt"), numbered(10)).unwrap();
    fx.ctx
        .file_tracker
        .track_read(fx.path("a.txt"), "line 2\n", 1, Some(2), Some(1));
    fx.edit("a.txt", "different\n");
    assert_eq!(fx.generate().await, None);
}

#[test]
fn render_without_changes_is_none() {
    assert_eq!(ChangedFilesGenerator::default().render(&[], 5_000), None);
    let same = FileChange {
        path: Path::new("/p/a").to_path_buf(),
        kind: FileChangeKind::Modified {
            old: "x".into(),
            new: "x".into(),
            stamp: crate::file_tracker::FileStamp {
                mtime: None,
                len: 1,
            },
        },
    };
    assert_eq!(
        ChangedFilesGenerator::default().render(&[same], 5_000),
        None
    );
}

/// `fx` with `a.txt` read in full an hour after it was written (its stamp trusted), marked as
/// lying on `file_system`.
fn read_long_ago(fx: &Fixture, file_system: crate::FileSystemKind) {
    let path = fx.path("a.txt");
    fs::write(&path, "x\n").unwrap();
    let file = fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3_600))
        .unwrap();
    fx.ctx.file_tracker.track_read(&path, "x\n", 1, None, None);
    fx.ctx.file_tracker.set_file_system(&path, file_system);
}

/// Runs the generator on a runtime whose only blocking thread is kept busy until the generator
/// has been polled once, so work sent to the blocking pool cannot be done by then. Gives whether
/// it answered on that first poll (inline), and its answer.
fn first_poll_and_answer(fx: &Fixture) -> (bool, Option<String>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .max_blocking_threads(1)
        .build()
        .unwrap();
    runtime.block_on(async {
        let (release, stuck) = std::sync::mpsc::channel::<()>();
        let busy = tokio::task::spawn_blocking(move || stuck.recv().is_ok());
        let generator = ChangedFilesGenerator::default();
        let mut generate = std::pin::pin!(generator.generate(&fx.ctx));
        let first = futures::poll!(generate.as_mut());
        release.send(()).unwrap();
        assert!(busy.await.unwrap());
        let inline = first.is_ready();
        let answer = match first {
            std::task::Poll::Ready(answer) => answer,
            std::task::Poll::Pending => generate.await,
        };
        (inline, answer.unwrap().map(|reminder| reminder.content))
    })
}

#[test]
fn an_idle_turn_on_local_files_is_checked_inline() {
    let fx = Fixture::new();
    read_long_ago(&fx, crate::FileSystemKind::Local);
    assert_eq!(first_poll_and_answer(&fx), (true, None));
}

#[test]
fn files_whose_stat_can_hang_are_checked_on_the_blocking_pool() {
    let fx = Fixture::new();
    read_long_ago(&fx, crate::FileSystemKind::Other);
    assert_eq!(first_poll_and_answer(&fx), (false, None));
}

#[test]
fn the_file_system_of_a_new_read_is_looked_up_on_the_blocking_pool() {
    let fx = Fixture::new();
    read_long_ago(&fx, crate::FileSystemKind::Local);
    let path = fx.path("a.txt");
    // Read again: tracked with its file system not looked up yet.
    fx.ctx.file_tracker.track_read(&path, "x\n", 2, None, None);
    assert_eq!(first_poll_and_answer(&fx), (false, None));
    assert_eq!(
        fx.ctx.file_tracker.get(&path).unwrap().file_system,
        Some(crate::FileSystemKind::of(&path))
    );
}

#[test]
fn a_changed_local_file_is_read_and_diffed_on_the_blocking_pool() {
    let fx = Fixture::new();
    read_long_ago(&fx, crate::FileSystemKind::Local);
    fx.edit("a.txt", "y\n");
    let (inline, answer) = first_poll_and_answer(&fx);
    assert!(!inline, "waits for the blocking pool");
    let content = answer.unwrap();
    assert!(content.contains("+y"), "{content}");
}
