//! Plan file names: `<adjective>-<noun>-<verb>.md` in the session's plans folder.
//!
//! Memorable slugs from three short word lists, as Claude Code names its plan files. See
//! docs/design/core.md, "Plan mode".

use std::path::Path;
use std::path::PathBuf;

use rand::Rng;

/// The adjectives of a plan slug.
pub(crate) const PLAN_SLUG_ADJECTIVES: [&str; 6] =
    ["sparkling", "gentle", "swift", "quiet", "bold", "calm"];
/// The nouns of a plan slug.
pub(crate) const PLAN_SLUG_NOUNS: [&str; 6] =
    ["fox", "river", "mountain", "forest", "cloud", "meadow"];
/// The verbs of a plan slug.
pub(crate) const PLAN_SLUG_VERBS: [&str; 6] = [
    "baking", "dancing", "running", "flying", "swimming", "climbing",
];

/// A slug such as `sparkling-fox-baking`, drawn from `rng`.
pub(crate) fn generate_plan_slug<R: Rng + ?Sized>(rng: &mut R) -> String {
    let pick = |rng: &mut R, words: &[&'static str; 6]| -> &'static str {
        words
            .get(rng.random_range(0..words.len()))
            .copied()
            .unwrap_or(words[0])
    };
    let adjective = pick(rng, &PLAN_SLUG_ADJECTIVES);
    let noun = pick(rng, &PLAN_SLUG_NOUNS);
    let verb = pick(rng, &PLAN_SLUG_VERBS);
    format!("{adjective}-{noun}-{verb}")
}

/// The plan file of `slug` in the plans folder `plans_dir`: `<plans_dir>/<slug>.md`.
pub(crate) fn plan_file_path(plans_dir: &Path, slug: &str) -> PathBuf {
    plans_dir.join(format!("{slug}.md"))
}

/// The slug of `path` when it is a plan file of `plans_dir`: directly in it, named
/// `<slug>.md` with a slug of lowercase letters, digits and hyphens. Anything else (another
/// folder, `..`, a hostile name recorded in a rollout) is not a plan file: plan mode lets the
/// plan file be written, so only files of this form may ever be one.
pub(crate) fn plan_slug_of(plans_dir: &Path, path: &Path) -> Option<String> {
    let slug = path.file_name()?.to_str()?.strip_suffix(".md")?;
    let well_formed = !slug.is_empty()
        && slug
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    (well_formed && plan_file_path(plans_dir, slug) == path).then(|| slug.to_string())
}

#[cfg(test)]
#[path = "plan_slug_tests.rs"]
mod tests;
