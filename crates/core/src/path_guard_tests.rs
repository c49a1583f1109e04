use pretty_assertions::assert_eq;

use super::*;

fn cwd() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("project");
    std::fs::create_dir_all(cwd.join("src")).unwrap();
    let cwd = cwd.canonicalize().unwrap();
    (dir, cwd)
}

#[test]
fn relative_and_absolute_paths_inside_resolve() {
    let (_dir, cwd) = cwd();
    assert_eq!(
        resolve_in_cwd(&cwd, &[], "src/main.rs").unwrap(),
        cwd.join("src/main.rs")
    );
    let absolute = cwd.join("src/new/file.rs");
    assert_eq!(
        resolve_in_cwd(&cwd, &[], absolute.to_str().unwrap()).unwrap(),
        absolute
    );
    assert_eq!(
        resolve_in_cwd(&cwd, &[], "src/../a.txt").unwrap(),
        cwd.join("a.txt")
    );
}

#[test]
fn dot_dot_and_absolute_elsewhere_are_refused() {
    let (_dir, cwd) = cwd();
    assert!(matches!(
        resolve_in_cwd(&cwd, &[], "../secret.txt"),
        Err(PathEscape::Outside { .. })
    ));
    assert!(matches!(
        resolve_in_cwd(&cwd, &[], "/etc/passwd"),
        Err(PathEscape::Outside { .. })
    ));
    assert_eq!(resolve_in_cwd(&cwd, &[], " "), Err(PathEscape::Empty));
}

#[test]
fn symlink_leaving_cwd_is_refused() {
    let (dir, cwd) = cwd();
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "s").unwrap();
    std::os::unix::fs::symlink(&outside, cwd.join("link")).unwrap();
    assert!(matches!(
        resolve_in_cwd(&cwd, &[], "link/secret.txt"),
        Err(PathEscape::Symlink { .. })
    ));
    assert!(matches!(
        resolve_in_cwd(&cwd, &[], "link/new.txt"),
        Err(PathEscape::Symlink { .. })
    ));
}

#[test]
fn allowed_file_outside_cwd_resolves() {
    let (dir, cwd) = cwd();
    let plan = dir.path().join("home/plans/calm-fox-baking.md");
    assert_eq!(
        resolve_in_cwd(&cwd, std::slice::from_ref(&plan), plan.to_str().unwrap()).unwrap(),
        plan
    );
}

#[test]
fn a_read_may_go_into_a_readable_folder_and_nowhere_else_outside() {
    let (dir, cwd) = cwd();
    let results = dir.path().join("home/tool-results");
    std::fs::create_dir_all(&results).unwrap();
    let results = results.canonicalize().unwrap();
    std::fs::write(results.join("call_1.txt"), "the whole output").unwrap();
    let readable = [results.clone()];
    let inside = results.join("call_1.txt");
    assert_eq!(
        resolve_readable(&cwd, &[], &readable, inside.to_str().unwrap()).unwrap(),
        inside
    );
    // The working directory resolves as before.
    assert_eq!(
        resolve_readable(&cwd, &[], &readable, "src/main.rs").unwrap(),
        cwd.join("src/main.rs")
    );
    // A missing file in the folder resolves; the read then fails as a missing file does.
    let missing = results.join("call_9.txt");
    assert_eq!(
        resolve_readable(&cwd, &[], &readable, missing.to_str().unwrap()).unwrap(),
        missing
    );
    // `..` out of the folder, and any other folder, stay refused.
    let escape = format!("{}/../secret.txt", results.display());
    assert!(matches!(
        resolve_readable(&cwd, &[], &readable, &escape),
        Err(PathEscape::Outside { .. })
    ));
    assert!(matches!(
        resolve_readable(&cwd, &[], &readable, "/etc/passwd"),
        Err(PathEscape::Outside { .. })
    ));
}

#[cfg(unix)]
#[test]
fn a_link_in_a_readable_folder_that_leads_out_of_it_is_refused() {
    let (dir, cwd) = cwd();
    let memories = dir.path().join("home/memories");
    std::fs::create_dir_all(&memories).unwrap();
    std::fs::write(dir.path().join("secret.txt"), "no").unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret.txt"), memories.join("link.md")).unwrap();
    let link = memories.join("link.md");
    assert!(matches!(
        resolve_readable(&cwd, &[], &[memories], link.to_str().unwrap()),
        Err(PathEscape::Symlink { .. })
    ));
}
