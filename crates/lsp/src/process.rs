//! Starting a language server: the crate's one place that runs an external program.

use std::path::Path;
use std::process::Stdio;

use tokio::io::AsyncBufReadExt as _;
use tokio::io::BufReader;
use tokio::process::Child;
use tokio::process::ChildStdin;
use tokio::process::ChildStdout;
use tokio::process::Command;

use crate::LspError;
use crate::LspServerConfig;

/// A started server and the pipes it speaks LSP on.
pub(crate) struct ServerProcess {
    pub(crate) child: Child,
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: ChildStdout,
}

/// Starts `config`'s command in `root`. The server is killed when its [`Child`] is dropped, so
/// a session that ends without a clean shutdown leaves no server behind; what it writes on
/// stderr goes to the log at debug level.
pub(crate) fn spawn(
    language: &str,
    config: &LspServerConfig,
    root: &Path,
) -> Result<ServerProcess, LspError> {
    let (program, args) = config
        .command
        .split_first()
        .ok_or_else(|| LspError::NoCommand {
            language: language.to_owned(),
        })?;
    let spawn_error = |source| LspError::Spawn {
        language: language.to_owned(),
        program: program.clone(),
        source,
    };
    let mut child = Command::new(program)
        .args(args)
        .envs(&config.env)
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(spawn_error)?;
    let missing = |pipe: &str| {
        spawn_error(std::io::Error::other(format!(
            "the server's {pipe} was not piped"
        )))
    };
    let stdin = child.stdin.take().ok_or_else(|| missing("stdin"))?;
    let stdout = child.stdout.take().ok_or_else(|| missing("stdout"))?;
    if let Some(stderr) = child.stderr.take() {
        let language = language.to_owned();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(target: "agentctx_lsp::stderr", %language, "{line}");
            }
        });
    }
    Ok(ServerProcess {
        child,
        stdin,
        stdout,
    })
}
