//! Entry points for the fuzz targets under `fuzz/` (feature `fuzzing`). Not a stable API.

use crate::generators::at_mentioned_files::parse_file_mentions;

/// One parsed `@` mention: the path as written and its line range.
pub type Mention = (String, Option<usize>, Option<usize>);

/// The file mentions of `prompt`; `@mcp:...` counts as a connected MCP server.
pub fn parse_mentions(prompt: &str) -> Vec<Mention> {
    parse_file_mentions(prompt, &|server| server == "mcp")
        .into_iter()
        .map(|mention| (mention.path, mention.line_start, mention.line_end))
        .collect()
}
