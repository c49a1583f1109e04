//! The base protocol's framing: a `Content-Length` header, a blank line, then that many bytes of
//! JSON (<https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#baseProtocol>).

use tokio::io::AsyncBufRead;
use tokio::io::AsyncBufReadExt as _;
use tokio::io::AsyncReadExt as _;
use tokio::io::AsyncWrite;
use tokio::io::AsyncWriteExt as _;

use crate::LspError;

/// The largest body read from a server (a workspace's diagnostics fit many times over); a
/// larger `Content-Length` is a broken stream, not a message.
pub(crate) const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// Writes one message with its header.
pub(crate) async fn write_message<W: AsyncWrite + Unpin>(
    writer: &mut W,
    body: &[u8],
) -> Result<(), LspError> {
    let header = format!("Content-Length: {}\r\n\r\n", body.len());
    writer.write_all(header.as_bytes()).await?;
    writer.write_all(body).await?;
    writer.flush().await?;
    Ok(())
}

/// Reads one message's body; `None` when the stream ended between messages.
pub(crate) async fn read_message<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> Result<Option<Vec<u8>>, LspError> {
    let mut length: Option<usize> = None;
    let mut line = String::new();
    let mut first = true;
    loop {
        line.clear();
        let read = reader.read_line(&mut line).await?;
        if read == 0 {
            return if first {
                Ok(None)
            } else {
                Err(LspError::Frame(
                    "the stream ended inside a header".to_owned(),
                ))
            };
        }
        first = false;
        let field = line.trim_end_matches(['\r', '\n']);
        if field.is_empty() {
            break;
        }
        let Some((name, value)) = field.split_once(':') else {
            return Err(LspError::Frame(format!("not a header field: {field:?}")));
        };
        // Header names are case-insensitive; `Content-Type` (always utf-8 JSON) is ignored.
        if name.trim().eq_ignore_ascii_case("content-length") {
            let parsed = value
                .trim()
                .parse::<usize>()
                .map_err(|_| LspError::Frame(format!("bad Content-Length: {value:?}")))?;
            length = Some(parsed);
        }
    }
    let length = length.ok_or_else(|| LspError::Frame("no Content-Length".to_owned()))?;
    if length > MAX_BODY_BYTES {
        return Err(LspError::Frame(format!(
            "a body of {length} bytes is over the {MAX_BODY_BYTES}-byte limit"
        )));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await?;
    Ok(Some(body))
}

#[cfg(test)]
#[path = "framing_tests.rs"]
mod tests;
