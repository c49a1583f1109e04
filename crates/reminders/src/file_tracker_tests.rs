use pretty_assertions::assert_eq;

use super::*;

#[test]
fn full_read_is_a_nested_memory_trigger() {
    let tracker = FileTracker::new();
    tracker.track_read_with_stamp("/p/a.rs", "x", None, 1, None, None);
    tracker.track_read_with_stamp("/p/b.rs", "x", None, 1, Some(10), Some(5));
    assert_eq!(
        tracker.take_nested_memory_triggers(),
        vec![PathBuf::from("/p/a.rs")]
    );
    assert_eq!(tracker.take_nested_memory_triggers(), Vec::<PathBuf>::new());
}
