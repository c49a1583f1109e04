use std::ffi::OsStr;

use pretty_assertions::assert_eq;

use super::check_schema;
use super::update_requested;

#[test]
fn only_the_value_1_requests_a_rewrite() {
    let asks = |value: &str| update_requested(Some(OsStr::new(value)));
    assert_eq!(update_requested(None), false);
    assert_eq!(asks("1"), true);
    assert_eq!(asks("0"), false);
    assert_eq!(asks(""), false);
    assert_eq!(asks("true"), false);
    assert_eq!(asks("yes"), false);
}

#[test]
fn update_writes_the_schema_inside_the_given_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("schema/item.schema.json");
    check_schema(&path, "{}\n", true);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
}

#[test]
fn a_stale_schema_fails_and_is_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.schema.json");
    std::fs::write(&path, "old\n").unwrap();
    let outcome = std::panic::catch_unwind(|| check_schema(&path, "new\n", false));
    let message = outcome
        .err()
        .and_then(|payload| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(
        message.contains("is stale: run `cargo xtask schema`"),
        "{message}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
}

#[test]
fn a_fresh_schema_passes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.schema.json");
    std::fs::write(&path, "same\n").unwrap();
    check_schema(&path, "same\n", false);
}

#[test]
fn vm_hwm_is_read_in_kib() {
    let status = "Name:\tall\nVmPeak:\t  20000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n";
    assert_eq!(crate::child_process::parse_vm_hwm(status), Some(1234));
    assert_eq!(crate::child_process::parse_vm_hwm("Name:\tall\n"), None);
}

#[test]
fn the_generator_is_deterministic_and_bounded() {
    let mut a = crate::child_process::Lcg::new(7);
    let mut b = crate::child_process::Lcg::new(7);
    let first: Vec<u64> = (0..5).map(|_| a.below(10)).collect();
    let second: Vec<u64> = (0..5).map(|_| b.below(10)).collect();
    assert_eq!(first, second);
    assert!(first.iter().all(|n| *n < 10));
}
