//! An MCP server over stdio written with rmcp's server side, for core's MCP tests (see
//! docs/design/mcp.md, "Tests"). It is an example so it builds with the tests and uses only
//! dev-dependencies; the tests find it next to their own binary.
//!
//! Tools: `echo` (returns its `text`), `add` (sums `a` and `b`), `crash` (the process exits
//! mid-call, a server dying mid-session). Resource: `test://greeting` (text). With `--fail`
//! it exits before answering `initialize` (a server that fails to start).
//!
//! Run: `cargo run -p agentctx-core --example mcp_test_server` and speak JSON-RPC on stdin.

mod handler;

use rmcp::ServiceExt;

use crate::handler::TestServer;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|arg| arg == "--fail") {
        #[expect(clippy::print_stderr, reason = "a test server saying why it stops")]
        {
            eprintln!("mcp_test_server: failing on purpose");
        }
        std::process::exit(1);
    }
    let service = TestServer.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
