//! Argument substitution in a skill's prompt, as Claude Code does it
//! (`substituteArguments` in its `src/utils/argumentSubstitution.ts`, described in
//! <https://code.claude.com/docs/en/skills#pass-arguments-to-skills>):
//!
//! - `$name` for each name the frontmatter's `arguments` lists, in order: the argument at that
//!   position (not when a letter, digit, `_` or `[` follows, so `$names` is left alone);
//! - `$ARGUMENTS[N]`: the `N`-th argument, 0-based;
//! - `$N`: the same, shorter (not when a letter, digit or `_` follows);
//! - `$ARGUMENTS`: the whole argument string as typed;
//! - `${CLAUDE_SKILL_DIR}`: the skill's directory;
//! - `${CLAUDE_SESSION_ID}`: the session's id, filled in by the host, which knows it
//!   ([`crate::SkillInvocation::in_session`]).
//!
//! The arguments are split as a shell splits words (`"my widget" React` is two arguments, the
//! quotes removed; unbalanced quotes fall back to splitting at whitespace). A position with no
//! argument becomes empty. When the prompt holds none of these and arguments were given, they
//! are appended as `ARGUMENTS: <args>`, so the model never loses them.

use std::path::Path;

/// The placeholder of the whole argument string.
pub(crate) const ARGUMENTS_PLACEHOLDER: &str = "$ARGUMENTS";
/// The placeholder of the skill's directory.
pub(crate) const SKILL_DIR_PLACEHOLDER: &str = "${CLAUDE_SKILL_DIR}";
/// The placeholder of the session's id, filled in by the host
/// ([`crate::SkillInvocation::in_session`]).
pub(crate) const SESSION_ID_PLACEHOLDER: &str = "${CLAUDE_SESSION_ID}";

/// The arguments of `args`, split as a shell splits words.
pub(crate) fn split_arguments(args: &str) -> Vec<String> {
    shlex::split(args).unwrap_or_else(|| args.split_whitespace().map(str::to_string).collect())
}

/// `content` with the placeholders of the module's list replaced for `args` (trimmed), the
/// `names` the frontmatter gives the positions, and the skill's directory.
pub(crate) fn substitute_arguments(
    content: &str,
    args: &str,
    names: &[String],
    skill_dir: Option<&Path>,
) -> String {
    let args = args.trim();
    let positional = split_arguments(args);
    let at = |index: usize| positional.get(index).map_or("", String::as_str);
    let mut out = String::with_capacity(content.len() + args.len());
    let mut replaced = false;
    let mut rest = content;
    while let Some(dollar) = rest.find('$') {
        // `find` gives a character boundary.
        let (before, tail) = rest.split_at(dollar);
        out.push_str(before);
        let (value, consumed) = match placeholder(tail, names) {
            Some(Placeholder::SkillDir) => match skill_dir {
                Some(dir) => (dir.display().to_string(), SKILL_DIR_PLACEHOLDER.len()),
                None => (String::new(), 0),
            },
            Some(Placeholder::Named(index)) => {
                replaced = true;
                let len = names.get(index).map_or(0, String::len) + 1;
                (at(index).to_string(), len)
            }
            Some(Placeholder::Indexed { index, len }) => {
                replaced = true;
                (index.map_or("", at).to_string(), len)
            }
            Some(Placeholder::Whole) => {
                replaced = true;
                (args.to_string(), ARGUMENTS_PLACEHOLDER.len())
            }
            None => (String::new(), 0),
        };
        if consumed == 0 {
            out.push('$');
            rest = tail.get(1..).unwrap_or_default();
        } else {
            out.push_str(&value);
            rest = tail.get(consumed..).unwrap_or_default();
        }
    }
    out.push_str(rest);
    if !replaced && !args.is_empty() {
        return format!("{}\n\nARGUMENTS: {args}", out.trim_end());
    }
    out
}

/// A placeholder at the start of a text that starts with `$`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placeholder {
    /// `$name`, the position of the name.
    Named(usize),
    /// `$ARGUMENTS[N]` or `$N` (`index` `None` when `N` does not fit a `usize`), `len` bytes.
    Indexed { index: Option<usize>, len: usize },
    /// `$ARGUMENTS`.
    Whole,
    /// `${CLAUDE_SKILL_DIR}`.
    SkillDir,
}

fn placeholder(text: &str, names: &[String]) -> Option<Placeholder> {
    let after = text.get(1..)?;
    if text.starts_with(SKILL_DIR_PLACEHOLDER) {
        return Some(Placeholder::SkillDir);
    }
    // Named arguments first, as Claude Code replaces them first: the longest name that fits.
    let named = names
        .iter()
        .enumerate()
        .filter(|(_, name)| !name.is_empty() && after.starts_with(name.as_str()))
        .filter(|(_, name)| {
            !after
                .get(name.len()..)
                .and_then(|rest| rest.chars().next())
                .is_some_and(|next| next == '[' || is_word(next))
        })
        .max_by_key(|(_, name)| name.len());
    if let Some((index, _)) = named {
        return Some(Placeholder::Named(index));
    }
    if let Some(indexed) = after.strip_prefix("ARGUMENTS[") {
        let digits = leading_digits(indexed);
        if !digits.is_empty()
            && indexed
                .get(digits.len()..)
                .is_some_and(|r| r.starts_with(']'))
        {
            return Some(Placeholder::Indexed {
                index: digits.parse().ok(),
                len: "$ARGUMENTS[".len() + digits.len() + 1,
            });
        }
    }
    let digits = leading_digits(after);
    if !digits.is_empty() {
        let followed_by_word = after
            .get(digits.len()..)
            .and_then(|rest| rest.chars().next())
            .is_some_and(is_word);
        return (!followed_by_word).then(|| Placeholder::Indexed {
            index: digits.parse().ok(),
            len: 1 + digits.len(),
        });
    }
    after.starts_with("ARGUMENTS").then_some(Placeholder::Whole)
}

fn leading_digits(text: &str) -> &str {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    text.get(..end).unwrap_or_default()
}

/// A character of a JavaScript `\w`: an ASCII letter, digit or `_`.
fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

#[cfg(test)]
#[path = "arguments_tests.rs"]
mod tests;
