use chrono::TimeZone;
use chrono::Utc;
use pretty_assertions::assert_eq;

use super::SessionMemoryMetadata;
use super::SessionMemoryStore;
use super::safe_folder_name;
use crate::session_memory::SessionMemoryError;

fn metadata() -> SessionMemoryMetadata {
    SessionMemoryMetadata {
        last_summarized_id: "7:00000000000000ff".to_string(),
        last_extraction: Utc.with_ymd_and_hms(2026, 11, 23, 12, 0, 0).unwrap(),
        summary_token_count: 120,
        messages_summarized: 8,
    }
}

#[test]
fn uuid_session_ids_are_used_as_they_are() {
    let id = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
    assert_eq!(safe_folder_name(id), id);
}

#[test]
fn session_ids_cannot_leave_the_session_memory_folder() {
    assert_eq!(safe_folder_name(".."), "%2E.");
    assert_eq!(safe_folder_name("."), "%2E");
    assert_eq!(safe_folder_name("../etc/passwd"), "%2E.%2Fetc%2Fpasswd");
    assert_eq!(safe_folder_name("a\\b:c"), "a%5Cb%3Ac");
    assert_eq!(safe_folder_name("é"), "%C3%A9");
}

#[test]
fn distinct_session_ids_get_distinct_folders() {
    assert_ne!(safe_folder_name("a/b"), safe_folder_name("a_b"));
    assert_ne!(safe_folder_name("a/b"), safe_folder_name("a%2Fb"));
}

#[test]
fn long_session_ids_are_shortened_with_a_hash() {
    let long_a = "a".repeat(300);
    let long_b = format!("{}b", "a".repeat(299));
    let name_a = safe_folder_name(&long_a);
    assert_eq!(name_a.len(), 64 + 1 + 16);
    assert_ne!(name_a, safe_folder_name(&long_b));
}

#[test]
fn the_store_lives_under_home_session_memory() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionMemoryStore::new(home.path(), "../x").unwrap();
    assert_eq!(
        store.dir(),
        home.path().join("session-memory").join("%2E.%2Fx")
    );
    assert!(matches!(
        SessionMemoryStore::new(home.path(), ""),
        Err(SessionMemoryError::EmptySessionId)
    ));
}

#[test]
fn write_then_read_gives_back_summary_and_metadata() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionMemoryStore::new(home.path(), "s1").unwrap();
    assert_eq!(store.read_summary().unwrap(), None);
    assert_eq!(store.read_metadata().unwrap(), None);
    store.write("## Current Task\nparser", &metadata()).unwrap();
    assert_eq!(
        store.read_summary().unwrap().as_deref(),
        Some("## Current Task\nparser")
    );
    assert_eq!(store.read_metadata().unwrap(), Some(metadata()));
}

#[test]
fn metadata_json_has_the_documented_fields() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionMemoryStore::new(home.path(), "s1").unwrap();
    store.write("summary", &metadata()).unwrap();
    let json = std::fs::read_to_string(store.metadata_path()).unwrap();
    insta::assert_snapshot!(json, @r#"
    {
      "last_summarized_id": "7:00000000000000ff",
      "last_extraction": "2026-11-23T12:00:00Z",
      "summary_token_count": 120,
      "messages_summarized": 8
    }
    "#);
}

#[test]
fn corrupt_metadata_is_a_typed_error() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionMemoryStore::new(home.path(), "s1").unwrap();
    std::fs::create_dir_all(store.dir()).unwrap();
    std::fs::write(store.metadata_path(), "{\"last_summarized_id\": 3").unwrap();
    assert!(matches!(
        store.read_metadata(),
        Err(SessionMemoryError::CorruptMetadata { .. })
    ));
}
