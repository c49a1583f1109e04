//! Temporary git repositories for the tests, isolated from the user's git configuration: every
//! git child gets `GIT_CONFIG_GLOBAL=/dev/null` and `GIT_CONFIG_NOSYSTEM=1` (set on the child
//! only, never on the test process), and the identity lives in the repository's own config.

use std::ffi::OsString;
use std::path::Path;
use std::path::PathBuf;

use agentctx_loop_driver::GitRepo;
use agentctx_loop_driver::process::GitCommand;
use tempfile::TempDir;

pub(crate) struct TestRepo {
    dir: TempDir,
}

impl TestRepo {
    /// `git init` with an identity and no commits.
    pub(crate) fn empty() -> Self {
        let repo = Self {
            dir: tempfile::tempdir().unwrap(),
        };
        repo.git(&["init", "--quiet", "--initial-branch=main"]);
        repo.git(&["config", "user.name", "Loop Test"]);
        repo.git(&["config", "user.email", "loop@example.invalid"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo
    }

    /// A repository with one commit holding `README.md`.
    pub(crate) fn with_commit() -> Self {
        let repo = Self::empty();
        repo.write("README.md", "# demo\n");
        repo.git(&["add", "README.md"]);
        repo.git(&["commit", "--quiet", "-m", "initial"]);
        repo
    }

    pub(crate) fn env() -> Vec<(OsString, OsString)> {
        vec![
            ("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()),
            ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
        ]
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn git_repo(&self) -> GitRepo {
        GitRepo::discover(self.path(), Self::env()).unwrap()
    }

    /// Runs git in the repository and returns its trimmed stdout.
    pub(crate) fn git(&self, args: &[&str]) -> String {
        GitCommand::new(self.path())
            .envs(Self::env())
            .args(args)
            .run()
            .unwrap_or_else(|error| panic!("{error}"))
            .stdout_trimmed()
    }

    pub(crate) fn write(&self, relative: &str, content: &str) {
        write_file(&self.path().join(relative), content);
    }

    pub(crate) fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"])
    }

    /// Full messages of the commits, newest first.
    pub(crate) fn messages(&self) -> Vec<String> {
        self.git(&["log", "--format=%B%x00"])
            .split('\0')
            .map(str::trim)
            .filter(|message| !message.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// Commit ids, newest first.
    pub(crate) fn commits(&self) -> Vec<String> {
        self.git(&["log", "--format=%H"])
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The files of a commit, sorted.
    pub(crate) fn files_in(&self, commit: &str) -> Vec<String> {
        let mut files: Vec<String> = self
            .git(&["ls-tree", "-r", "--name-only", "-z", commit])
            .split('\0')
            .filter(|f| !f.is_empty())
            .map(str::to_owned)
            .collect();
        files.sort();
        files
    }

    /// Installs an executable `pre-commit` hook with this shell body.
    pub(crate) fn hook(&self, body: &str) {
        let path =
            PathBuf::from(self.git(&["rev-parse", "--absolute-git-dir"])).join("hooks/pre-commit");
        write_file(&path, &format!("#!/bin/sh\n{body}\n"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
}

pub(crate) fn write_file(path: &Path, content: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, content).unwrap();
}
