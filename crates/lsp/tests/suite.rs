//! One module per area of `agentctx-lsp`.

mod pyright;
mod restart;
