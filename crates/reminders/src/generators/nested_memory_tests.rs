use std::fs;

use pretty_assertions::assert_eq;

use super::*;

fn setup() -> (tempfile::TempDir, GeneratorContext) {
    let outer = tempfile::tempdir().unwrap();
    let cwd = outer.path().join("project");
    fs::create_dir_all(cwd.join("crates/core/src")).unwrap();
    fs::write(outer.path().join("AGENTS.md"), "outside the project\n").unwrap();
    fs::write(cwd.join("AGENTS.md"), "root agents\n").unwrap();
    fs::write(cwd.join("crates/core/CLAUDE.md"), "core claude\n").unwrap();
    fs::write(cwd.join("crates/core/AGENTS.md"), "core agents\n").unwrap();
    fs::write(cwd.join("crates/core/src/lib.rs"), "pub fn f() {}\n").unwrap();
    fs::write(cwd.join("crates/core/src/other.rs"), "\n").unwrap();
    let ctx = GeneratorContext::new(&cwd);
    (outer, ctx)
}

async fn generate(ctx: &GeneratorContext, outer: &Path) -> Option<String> {
    NestedMemoryGenerator
        .generate(ctx)
        .await
        .unwrap()
        .map(|reminder| {
            reminder
                .content
                .replace(&outer.display().to_string(), "[TMP]")
        })
}

#[tokio::test]
async fn walks_from_the_file_up_to_cwd_nearest_first() {
    let (outer, ctx) = setup();
    ctx.file_tracker.track_read(
        ctx.cwd.join("crates/core/src/lib.rs"),
        "pub fn f() {}\n",
        1,
        None,
        None,
    );
    let content = generate(&ctx, outer.path()).await.unwrap();
    assert!(!content.contains("outside the project"), "{content}");
    insta::assert_snapshot!("nested_memory", content);
}

#[tokio::test]
async fn each_memory_file_is_included_once() {
    let (outer, ctx) = setup();
    ctx.file_tracker
        .track_read(ctx.cwd.join("crates/core/src/lib.rs"), "x", 1, None, None);
    assert!(generate(&ctx, outer.path()).await.is_some());
    ctx.file_tracker
        .track_read(ctx.cwd.join("crates/core/src/other.rs"), "x", 2, None, None);
    assert_eq!(generate(&ctx, outer.path()).await, None);
}

#[tokio::test]
async fn files_the_host_already_loaded_are_skipped() {
    let (outer, ctx) = setup();
    ctx.file_tracker
        .mark_memory_file_loaded(&ctx.cwd.join("AGENTS.md"));
    ctx.file_tracker
        .track_read(ctx.cwd.join("crates/core/src/lib.rs"), "x", 1, None, None);
    let content = generate(&ctx, outer.path()).await.unwrap();
    assert!(!content.contains("root agents"), "{content}");
    assert!(content.contains("core agents"), "{content}");
}

#[tokio::test]
async fn partial_reads_do_not_trigger() {
    let (outer, ctx) = setup();
    ctx.file_tracker.track_read(
        ctx.cwd.join("crates/core/src/lib.rs"),
        "x",
        1,
        Some(1),
        Some(1),
    );
    assert_eq!(generate(&ctx, outer.path()).await, None);
}

#[tokio::test]
async fn reading_a_memory_file_directly_counts_as_included() {
    let (outer, ctx) = setup();
    ctx.file_tracker.track_read(
        ctx.cwd.join("crates/core/AGENTS.md"),
        "core agents\n",
        1,
        None,
        None,
    );
    assert_eq!(generate(&ctx, outer.path()).await, None);
    ctx.file_tracker
        .track_read(ctx.cwd.join("crates/core/src/lib.rs"), "x", 2, None, None);
    let content = generate(&ctx, outer.path()).await.unwrap();
    assert!(!content.contains("core agents"), "{content}");
    assert!(content.contains("core claude"), "{content}");
}

#[tokio::test]
async fn files_outside_cwd_find_nothing() {
    let (outer, ctx) = setup();
    ctx.file_tracker
        .track_read(outer.path().join("elsewhere.rs"), "x", 1, None, None);
    assert_eq!(generate(&ctx, outer.path()).await, None);
}

#[tokio::test]
async fn a_trigger_that_climbs_out_of_cwd_with_dot_dot_includes_nothing_outside() {
    let (outer, ctx) = setup();
    fs::write(outer.path().join("elsewhere.rs"), "\n").unwrap();
    ctx.file_tracker
        .track_read(ctx.cwd.join("../elsewhere.rs"), "\n", 1, None, None);
    assert_eq!(generate(&ctx, outer.path()).await, None);
}

#[cfg(unix)]
#[tokio::test]
async fn symlink_loops_and_odd_memory_files_do_not_stop_the_walk() {
    let (outer, ctx) = setup();
    let core = ctx.cwd.join("crates/core");
    // A folder symlinked to its own parent, and a memory file that is a symlink to itself.
    std::os::unix::fs::symlink(&core, core.join("src/loop")).unwrap();
    std::os::unix::fs::symlink(core.join("src/.cursorrules"), core.join("src/.cursorrules"))
        .unwrap();
    fs::write(core.join("src/README.md"), [0xff, 0xfe, b'\n', b'x']).unwrap();
    ctx.file_tracker.track_read(
        core.join("src/loop/loop/src/lib.rs"),
        "pub fn f() {}\n",
        1,
        None,
        None,
    );
    let content = generate(&ctx, outer.path()).await.unwrap();
    assert!(content.contains("core claude"), "{content}");
    assert!(content.contains("root agents"), "{content}");
    assert!(!content.contains("outside the project"), "{content}");
}

#[tokio::test]
async fn imports_follow_their_memory_file_up_to_five_levels_once_each_inside_cwd() {
    let (outer, ctx) = setup();
    let docs = ctx.cwd.join("docs");
    fs::create_dir_all(&docs).unwrap();
    // AGENTS.md imports level1, which imports level2, ... level6 (one level too deep); level3
    // imports AGENTS.md back (a cycle); a fenced `@` and an import outside cwd are ignored.
    fs::write(
        ctx.cwd.join("AGENTS.md"),
        "root agents\nSee @docs/level1.md.\n```\n@docs/fenced.md\n```\n@../AGENTS.md\n",
    )
    .unwrap();
    for level in 1..=6 {
        let next = if level == 3 {
            format!("level {level} @level{}.md @../AGENTS.md\n", level + 1)
        } else {
            format!("level {level} @level{}.md\n", level + 1)
        };
        fs::write(docs.join(format!("level{level}.md")), next).unwrap();
    }
    fs::write(docs.join("fenced.md"), "fenced\n").unwrap();
    ctx.file_tracker
        .track_read(ctx.cwd.join("main.rs"), "\n", 1, None, None);
    let content = generate(&ctx, outer.path()).await.unwrap();
    let included: Vec<&str> = content
        .lines()
        .filter_map(|line| line.strip_prefix("Contents of "))
        .collect();
    assert_eq!(
        included,
        [
            "[TMP]/project/AGENTS.md:",
            "[TMP]/project/docs/level1.md:",
            "[TMP]/project/docs/level2.md:",
            "[TMP]/project/docs/level3.md:",
            "[TMP]/project/docs/level4.md:",
            "[TMP]/project/docs/level5.md:",
        ]
    );
}

#[test]
fn memory_files_found_by_a_run_that_timed_out_are_not_marked_loaded_and_show_next_time() {
    let (outer, ctx) = setup();
    let lib = ctx.cwd.join("crates/core/src/lib.rs");
    ctx.file_tracker
        .track_read(lib, "pub fn f() {}\n", 1, None, None);

    crate::timed_out_run::time_out_then_finish(std::sync::Arc::new(NestedMemoryGenerator), &ctx);

    assert!(
        !ctx.file_tracker
            .is_memory_file_loaded(&ctx.cwd.join("AGENTS.md"))
    );
    assert!(
        !ctx.file_tracker
            .is_memory_file_loaded(&ctx.cwd.join("crates/core/AGENTS.md"))
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let content = runtime.block_on(generate(&ctx, outer.path())).unwrap();
    assert!(content.contains("core agents"), "{content}");
    assert!(content.contains("root agents"), "{content}");
}
