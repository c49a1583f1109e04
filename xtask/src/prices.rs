//! `cargo xtask prices`: refreshes the vendored copy of LiteLLM's model price and context-window
//! table that `agentctx_model::PriceTable` reads (docs/design/model-providers.md, "Prices and
//! windows from LiteLLM's table").
//!
//! LiteLLM publishes the table as `model_prices_and_context_window.json` in its repository
//! (<https://github.com/BerriAI/litellm>, MIT) and ships a copy in every PyPI wheel as
//! `litellm/model_prices_and_context_window_backup.json`. The package registry is the one
//! network source this project's machines reach, so the wheel is where the file comes from:
//! `pip download` fetches it, Python's `zipfile` takes the file and the licence out of it, and
//! this module keeps the entries and fields agentctx reads, sorted, one entry per line (a
//! refresh's diff is one line per changed model). The data folder's README, written here too,
//! records the version, the wheel and its digest, and the date; a plain `cargo xtask prices`
//! fetches that recorded version again, so the file can be checked for tampering.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context as _;
use anyhow::Result;
use anyhow::bail;
use serde::Serialize;
use serde_json::Value;

use crate::process::Cmd;
use crate::workspace;

/// The vendored data folder, relative to the workspace root.
pub(crate) const DATA_DIR: &str = "crates/model/data/litellm";
/// The table inside [`DATA_DIR`].
pub(crate) const TABLE_FILE: &str = "model_prices_and_context_window.json";
/// The table's path inside the litellm wheel.
pub(crate) const WHEEL_MEMBER: &str = "litellm/model_prices_and_context_window_backup.json";
/// The line of the data README that records the vendored version.
const VERSION_LINE: &str = "- version: litellm ";

/// The `mode`s kept: models a coding agent sends chat or responses requests to.
const KEPT_MODES: &[&str] = &["chat", "responses"];

/// Which litellm release to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Release {
    /// The version the data README records (a re-fetch that should change nothing).
    Recorded,
    /// This version.
    Version(String),
    /// The newest release on PyPI.
    Latest,
}

/// One kept entry: the fields `PriceTable` reads, in LiteLLM's names, in a fixed order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Entry {
    #[serde(skip_serializing_if = "Option::is_none")]
    litellm_provider: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_cost_per_token: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_cost_per_token: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_read_input_token_cost: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_creation_input_token_cost: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_input_tokens: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<i64>,
    /// The price of a cache write that lives an hour (Anthropic's 1-hour TTL).
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_creation_input_token_cost_above_1hr: Option<f64>,
    /// Of LiteLLM's `provider_specific_entry`, the fast-mode multiplier (`{"fast": 2.0}`);
    /// its other members (a regional uplift `us`) are not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    provider_specific_entry: Option<FastMode>,
    /// The long-context prices (`input_cost_per_token_above_200k_tokens`, …; see
    /// [`is_long_context_field`]), by field name.
    #[serde(flatten)]
    long_context: BTreeMap<String, f64>,
}

/// The kept part of an entry's `provider_specific_entry`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct FastMode {
    fast: f64,
}

/// The long-context fields `PriceTable` reads: a request whose input is above `{N}k` tokens
/// is billed at these prices (`input_cost_per_token_above_{N}k_tokens`,
/// `output_cost_per_token_above_…`, `cache_read_input_token_cost_above_…`,
/// `cache_creation_input_token_cost_above_…`, `cache_creation_input_token_cost_above_1hr_above_…`).
/// Those of batch, flex or priority service (`…_above_272k_tokens_priority`) are left out: a
/// session does not record its service tier.
pub(crate) fn is_long_context_field(key: &str) -> bool {
    const PREFIXES: [&str; 5] = [
        "cache_creation_input_token_cost_above_1hr_above_",
        "cache_creation_input_token_cost_above_",
        "cache_read_input_token_cost_above_",
        "input_cost_per_token_above_",
        "output_cost_per_token_above_",
    ];
    PREFIXES.iter().any(|prefix| {
        key.strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix("k_tokens"))
            .is_some_and(|thousands| {
                !thousands.is_empty() && thousands.bytes().all(|byte| byte.is_ascii_digit())
            })
    })
}

impl Entry {
    /// The kept fields of one LiteLLM entry; `None` when its mode is not kept or it has no
    /// price and no limit. A field of the wrong type is left out (LiteLLM's `sample_spec`
    /// documents its fields with strings).
    fn from_litellm(value: &Value) -> Option<Self> {
        let object = value.as_object()?;
        let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
        let price = |key: &str| object.get(key).and_then(Value::as_f64);
        let limit = |key: &str| object.get(key).and_then(whole_number);
        let mode = text("mode");
        if !mode
            .as_deref()
            .is_some_and(|mode| KEPT_MODES.contains(&mode))
        {
            return None;
        }
        let entry = Self {
            litellm_provider: text("litellm_provider"),
            mode,
            input_cost_per_token: price("input_cost_per_token"),
            output_cost_per_token: price("output_cost_per_token"),
            cache_read_input_token_cost: price("cache_read_input_token_cost"),
            cache_creation_input_token_cost: price("cache_creation_input_token_cost"),
            max_input_tokens: limit("max_input_tokens"),
            max_output_tokens: limit("max_output_tokens"),
            cache_creation_input_token_cost_above_1hr: price(
                "cache_creation_input_token_cost_above_1hr",
            ),
            provider_specific_entry: object
                .get("provider_specific_entry")
                .and_then(|specific| specific.get("fast"))
                .and_then(Value::as_f64)
                .map(|fast| FastMode { fast }),
            long_context: object
                .iter()
                .filter(|(key, _)| is_long_context_field(key))
                .filter_map(|(key, value)| Some((key.clone(), value.as_f64()?)))
                .collect(),
        };
        let informative = entry.input_cost_per_token.is_some()
            || entry.output_cost_per_token.is_some()
            || entry.max_input_tokens.is_some()
            || entry.max_output_tokens.is_some();
        informative.then_some(entry)
    }
}

/// An integer, or a float with no fractional part (LiteLLM writes a few limits as `1e6`).
fn whole_number(value: &Value) -> Option<i64> {
    if let Some(number) = value.as_i64() {
        return Some(number);
    }
    let float = value.as_f64()?;
    let exact = float.fract() == 0.0 && float.abs() < 9.0e15;
    // Exact: a whole float below 2^53 converts without loss.
    #[expect(
        clippy::cast_possible_truncation,
        reason = "checked whole and in range just above"
    )]
    exact.then_some(float as i64)
}

/// The result of filtering LiteLLM's table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Filtered {
    /// The kept entries by model name, sorted.
    pub(crate) entries: BTreeMap<String, Entry>,
    /// How many entries the source had.
    pub(crate) source_entries: usize,
}

/// Keeps the chat and responses entries of LiteLLM's table and the fields agentctx reads.
pub(crate) fn filter(litellm_json: &str) -> Result<Filtered> {
    let source: BTreeMap<String, Value> = serde_json::from_str(litellm_json)
        .context("LiteLLM's table is not a JSON object of model entries")?;
    let source_entries = source.len();
    let entries = source
        .iter()
        .filter_map(|(name, value)| Some((name.clone(), Entry::from_litellm(value)?)))
        .collect();
    Ok(Filtered {
        entries,
        source_entries,
    })
}

/// The vendored file's text: a JSON object, one entry per line, sorted by model name.
pub(crate) fn render(entries: &BTreeMap<String, Entry>) -> Result<String> {
    let mut lines = Vec::with_capacity(entries.len());
    for (name, entry) in entries {
        lines.push(format!(
            "  {}: {}",
            serde_json::to_string(name)?,
            serde_json::to_string(entry)?
        ));
    }
    Ok(format!("{{\n{}\n}}\n", lines.join(",\n")))
}

/// How a refresh changed the table: entries added, removed and changed, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Changes {
    pub(crate) added: Vec<String>,
    pub(crate) removed: Vec<String>,
    pub(crate) changed: Vec<String>,
}

/// Compares the previous vendored text with the new one, entry by entry.
pub(crate) fn changes(previous: &str, next: &str) -> Result<Changes> {
    let parse = |text: &str| -> Result<BTreeMap<String, Value>> {
        if text.trim().is_empty() {
            return Ok(BTreeMap::new());
        }
        Ok(serde_json::from_str(text)?)
    };
    let previous = parse(previous).context("the vendored table does not parse")?;
    let next = parse(next)?;
    let mut result = Changes::default();
    for (name, value) in &next {
        match previous.get(name) {
            None => result.added.push(name.clone()),
            Some(old) if old != value => result.changed.push(name.clone()),
            Some(_) => {}
        }
    }
    result.removed = previous
        .keys()
        .filter(|name| !next.contains_key(*name))
        .cloned()
        .collect();
    Ok(result)
}

/// Where the vendored data came from, as the data README records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Provenance {
    pub(crate) version: String,
    pub(crate) wheel: String,
    pub(crate) sha256: String,
    pub(crate) license_member: String,
    pub(crate) date: String,
    pub(crate) kept: usize,
    pub(crate) source_entries: usize,
}

/// The data README for `provenance`.
pub(crate) fn readme(provenance: &Provenance) -> String {
    let Provenance {
        version,
        wheel,
        sha256,
        license_member,
        date,
        kept,
        source_entries,
    } = provenance;
    format!(
        "# LiteLLM's model prices and context windows

`{TABLE_FILE}` is a filtered copy of LiteLLM's
`model_prices_and_context_window.json` (<https://github.com/BerriAI/litellm>, MIT licence,
`LICENSE` here), the table ccusage also prices sessions with. `agentctx_model::PriceTable`
reads it for session costs and for the context windows of models the built-in model table
does not list (see docs/design/model-providers.md, \"Prices and windows from LiteLLM's
table\").

{VERSION_LINE}{version}
- from: the PyPI wheel `{wheel}`
  (sha256 `{sha256}`),
  file `{WHEEL_MEMBER}`
- licence: `LICENSE`, copied from the wheel's `{license_member}`
- refreshed: {date}, by `cargo xtask prices`
- kept: {kept} of {source_entries} entries, those whose `mode` is `chat` or `responses` and that
  state a price or a limit; fields `litellm_provider`, `mode`, `input_cost_per_token`,
  `output_cost_per_token`, `cache_read_input_token_cost`, `cache_creation_input_token_cost`,
  `max_input_tokens`, `max_output_tokens`, `cache_creation_input_token_cost_above_1hr`,
  `provider_specific_entry.fast` (the fast-mode multiplier) and the long-context prices
  `input_cost_per_token_above_{{N}}k_tokens`, `output_cost_per_token_above_{{N}}k_tokens`,
  `cache_read_input_token_cost_above_{{N}}k_tokens`,
  `cache_creation_input_token_cost_above_{{N}}k_tokens`,
  `cache_creation_input_token_cost_above_1hr_above_{{N}}k_tokens` (USD per token; limits in
  tokens)

The file is written by the command below: one entry per line, sorted by model name, so a
refresh's diff shows one line per model that changed. Do not edit it by hand.

## Refresh

```text
cargo xtask prices                   # fetch the version above again: nothing should change
cargo xtask prices --latest          # the newest litellm release on PyPI
cargo xtask prices --version 1.2.3   # a given release
```

The command needs `python3` with `pip` and access to PyPI. It prints how many entries were
added, removed and changed; read the diff before committing, and run
`cargo test -p agentctx-model price` (the lookups of real model names are pinned there, and
so are a few entries' prices with this version: a refresh to another version fails that
test until its figures are checked against the new file and updated).
"
    )
}

/// The version a data README records.
pub(crate) fn recorded_version(readme: &str) -> Option<&str> {
    readme.lines().find_map(|line| {
        let rest = line.strip_prefix(VERSION_LINE)?;
        rest.split_whitespace().next()
    })
}

/// The version in a wheel's file name (`litellm-1.110.2-cp310-abi3-….whl`).
pub(crate) fn wheel_version(file_name: &str) -> Option<&str> {
    let stem = file_name.strip_suffix(".whl")?;
    let mut parts = stem.split('-');
    (parts.next()? == "litellm").then_some(())?;
    parts.next()
}

/// A date in `YYYY-MM-DD` from days since 1970-01-01 (the proleptic Gregorian calendar;
/// Howard Hinnant's `civil_from_days`, <https://howardhinnant.github.io/date_algorithms.html>).
pub(crate) fn civil_date(days_since_epoch: i64) -> String {
    let z = days_since_epoch + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Today (UTC) as `YYYY-MM-DD`.
fn today() -> Result<String> {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .context("the system clock is before 1970")?;
    let days = i64::try_from(since_epoch.as_secs() / 86_400)?;
    Ok(civil_date(days))
}

/// Python that copies the table and the licence out of a wheel and prints the wheel's sha256
/// and the licence's path in it. Arguments: wheel, table member, table output, licence output.
const EXTRACT_PY: &str = r#"
import hashlib, sys, zipfile
wheel, member, table_out, license_out = sys.argv[1:5]
with zipfile.ZipFile(wheel) as archive:
    with open(table_out, "wb") as out:
        out.write(archive.read(member))
    licences = sorted(
        name for name in archive.namelist()
        if ".dist-info/" in name and name.rsplit("/", 1)[-1] in ("LICENSE", "LICENSE.txt", "LICENSE.md")
    )
    if not licences:
        sys.exit("no LICENSE in the wheel's dist-info")
    with open(license_out, "wb") as out:
        out.write(archive.read(licences[0]))
with open(wheel, "rb") as data:
    print(hashlib.sha256(data.read()).hexdigest())
print(licences[0])
"#;

/// Fetches `release` from PyPI and rewrites the vendored data folder.
pub(crate) fn run(release: &Release) -> Result<()> {
    let root = workspace::root();
    let data = root.join(DATA_DIR);
    let readme_path = data.join("README.md");
    let requirement = match release {
        Release::Latest => "litellm".to_owned(),
        Release::Version(version) => format!("litellm=={version}"),
        Release::Recorded => {
            let text = std::fs::read_to_string(&readme_path)
                .with_context(|| format!("cannot read {}", readme_path.display()))?;
            let Some(version) = recorded_version(&text) else {
                bail!(
                    "{} records no `{VERSION_LINE}…` line; pass --version or --latest",
                    readme_path.display()
                );
            };
            format!("litellm=={version}")
        }
    };
    let temp = tempfile::tempdir().context("cannot create a temporary folder")?;
    let download = temp.path().join("wheel");
    Cmd::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--disable-pip-version-check",
            "--no-input",
            "-d",
        ])
        .arg(download.to_string_lossy())
        .arg(requirement)
        .run()?;
    let wheel = single_wheel(&download)?;
    let wheel_name = wheel
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(version) = wheel_version(&wheel_name).map(str::to_owned) else {
        bail!("`{wheel_name}` is not a litellm wheel");
    };
    let table_out = temp.path().join("table.json");
    let license_out = temp.path().join("LICENSE");
    let extracted = Cmd::new("python3")
        .args(["-c", EXTRACT_PY])
        .arg(wheel.to_string_lossy())
        .arg(WHEEL_MEMBER)
        .arg(table_out.to_string_lossy())
        .arg(license_out.to_string_lossy())
        .read_stdout()?;
    let mut lines = extracted.lines();
    let (Some(sha256), Some(license_member)) = (lines.next(), lines.next()) else {
        bail!("the wheel extraction printed `{extracted}`, not a digest and a licence path");
    };
    let litellm_json = std::fs::read_to_string(&table_out)
        .with_context(|| format!("cannot read {}", table_out.display()))?;
    let filtered = filter(&litellm_json)?;
    let text = render(&filtered.entries)?;
    let table_path = data.join(TABLE_FILE);
    let previous = std::fs::read_to_string(&table_path).unwrap_or_default();
    let diff = changes(&previous, &text)?;
    std::fs::create_dir_all(&data).with_context(|| format!("cannot create {}", data.display()))?;
    std::fs::write(&table_path, &text)
        .with_context(|| format!("cannot write {}", table_path.display()))?;
    std::fs::copy(&license_out, data.join("LICENSE"))
        .with_context(|| format!("cannot write {}/LICENSE", data.display()))?;
    let provenance = Provenance {
        version,
        wheel: wheel_name,
        sha256: sha256.trim().to_owned(),
        license_member: license_member.trim().to_owned(),
        date: today()?,
        kept: filtered.entries.len(),
        source_entries: filtered.source_entries,
    };
    // A re-fetch that changes nothing keeps the recorded date, so it leaves no diff.
    let previous_readme = std::fs::read_to_string(&readme_path).unwrap_or_default();
    let unchanged = diff == Changes::default()
        && recorded_version(&previous_readme) == Some(provenance.version.as_str());
    if !unchanged {
        std::fs::write(&readme_path, readme(&provenance))
            .with_context(|| format!("cannot write {}", readme_path.display()))?;
    }
    println!(
        "litellm {}: kept {} of {} entries ({} bytes) in {}/{TABLE_FILE}",
        provenance.version,
        provenance.kept,
        provenance.source_entries,
        text.len(),
        DATA_DIR
    );
    println!("{}", summarise(&diff));
    Ok(())
}

/// One line saying what a refresh changed, naming up to five models of each kind.
pub(crate) fn summarise(diff: &Changes) -> String {
    if *diff == Changes::default() {
        return "unchanged".to_owned();
    }
    let part = |label: &str, names: &[String]| {
        let mut shown: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
        if names.len() > shown.len() {
            shown.push("…");
        }
        if names.is_empty() {
            format!("{label} 0")
        } else {
            format!("{label} {} ({})", names.len(), shown.join(", "))
        }
    };
    [
        part("added", &diff.added),
        part("removed", &diff.removed),
        part("changed", &diff.changed),
    ]
    .join("; ")
}

/// The one `.whl` file pip downloaded into `dir`.
fn single_wheel(dir: &Path) -> Result<std::path::PathBuf> {
    let mut wheels = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|ext| ext == "whl") {
            wheels.push(path);
        }
    }
    match wheels.as_slice() {
        [wheel] => Ok(wheel.clone()),
        _ => bail!("expected one wheel in {}, found {wheels:?}", dir.display()),
    }
}

#[cfg(test)]
#[path = "prices_tests.rs"]
mod tests;
