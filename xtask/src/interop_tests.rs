use std::path::Path;

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn the_suite_gets_pyright_and_requires_it_once_installed() {
    let cmd = with_pyright(
        test_cmd(
            false,
            "/w/target/release/agentctx",
            "/w/target/tools/python",
        ),
        Path::new("/w/target/tools/npm/node_modules/.bin/pyright-langserver"),
    );
    assert_eq!(
        cmd.display(),
        "AGENTCTX_BIN=/w/target/release/agentctx AGENTCTX_INTEROP_TOOLS=/w/target/tools/python AGENTCTX_REQUIRE_INTEROP=1 AGENTCTX_PYRIGHT_BIN=/w/target/tools/npm/node_modules/.bin/pyright-langserver AGENTCTX_REQUIRE_LSP_INTEROP=1 cargo test -p agentctx-interop --no-fail-fast -- --test-threads 1"
    );
}
