use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;

use super::*;

fn error(line: u32, message: &str) -> Diagnostic {
    Diagnostic {
        message: message.to_owned(),
        severity: Severity::Error,
        line,
        column: 1,
        code: None,
        source: Some("test".to_owned()),
    }
}

fn with_severity(severity: Severity, message: &str) -> Diagnostic {
    Diagnostic {
        severity,
        ..error(1, message)
    }
}

fn messages(files: &[FileDiagnostics]) -> Vec<(String, Vec<String>)> {
    files
        .iter()
        .map(|file| {
            (
                file.path.display().to_string(),
                file.diagnostics
                    .iter()
                    .map(|diagnostic| format!("{}:{}", diagnostic.line, diagnostic.message))
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn a_diagnostic_is_reported_once_and_again_only_after_it_went_away() {
    let store = DiagnosticStore::default();
    let file = PathBuf::from("/p/a.py");
    store.publish(file.clone(), Some(1), vec![error(3, "bad type")]);
    assert_eq!(
        messages(&store.take_new()),
        vec![("/p/a.py".to_owned(), vec!["3:bad type".to_owned()])]
    );
    // Republished (the line moved): not new.
    store.publish(file.clone(), Some(2), vec![error(4, "bad type")]);
    assert_eq!(store.take_new(), vec![]);
    // Fixed: nothing to say.
    store.publish(file.clone(), Some(3), vec![]);
    assert_eq!(store.take_new(), vec![]);
    assert_eq!(store.current(&file), vec![]);
    // Made again: new again.
    store.publish(file, Some(4), vec![error(4, "bad type")]);
    assert_eq!(messages(&store.take_new()).len(), 1);
}

#[test]
fn information_and_hints_are_dropped_and_errors_come_first() {
    let store = DiagnosticStore::default();
    store.publish(
        PathBuf::from("/p/a.py"),
        None,
        vec![
            with_severity(Severity::Hint, "unused"),
            with_severity(Severity::Warning, "shadowed"),
            with_severity(Severity::Information, "fyi"),
            error(9, "undefined"),
        ],
    );
    let files = store.take_new();
    let severities: Vec<Severity> = files[0]
        .diagnostics
        .iter()
        .map(|diagnostic| diagnostic.severity)
        .collect();
    assert_eq!(severities, vec![Severity::Error, Severity::Warning]);
}

#[test]
fn a_report_is_bounded_and_what_did_not_fit_comes_next_time() {
    let store = DiagnosticStore::default();
    for file in 0..MAX_FILES + 2 {
        let diagnostics = (0..MAX_PER_FILE + 5)
            .map(|line| error(u32::try_from(line).unwrap(), &format!("e{line}")))
            .collect();
        store.publish(
            PathBuf::from(format!("/p/f{file:02}.py")),
            None,
            diagnostics,
        );
    }
    let first = store.take_new();
    assert_eq!(first.len(), MAX_FILES);
    assert!(
        first
            .iter()
            .all(|file| file.diagnostics.len() == MAX_PER_FILE)
    );
    // The five diagnostics of each file that did not fit, then the two files left out.
    let second = store.take_new();
    assert_eq!(second.len(), MAX_FILES);
    assert!(second.iter().all(|file| file.diagnostics.len() == 5));
    let third = store.take_new();
    assert_eq!(third.len(), 2);
    assert!(
        third
            .iter()
            .all(|file| file.diagnostics.len() == MAX_PER_FILE)
    );
    let fourth = store.take_new();
    assert_eq!(fourth.len(), 2);
    assert!(fourth.iter().all(|file| file.diagnostics.len() == 5));
    assert_eq!(store.take_new(), vec![]);
}

#[test]
fn the_same_diagnostic_twice_in_one_list_is_reported_once() {
    let store = DiagnosticStore::default();
    store.publish(
        PathBuf::from("/p/a.py"),
        None,
        vec![error(1, "x"), error(7, "x")],
    );
    assert_eq!(store.take_new()[0].diagnostics.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn settle_waits_for_the_awaited_version_or_the_deadline() {
    let store = Arc::new(DiagnosticStore::default());
    let file = PathBuf::from("/p/a.py");
    store.expect(&file, 2);
    let publisher = {
        let store = Arc::clone(&store);
        let file = file.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            // A stale list for version 1 does not answer.
            store.publish(file.clone(), Some(1), vec![error(1, "old")]);
            tokio::time::sleep(Duration::from_millis(100)).await;
            store.publish(file, Some(2), vec![error(1, "new")]);
        })
    };
    let started = tokio::time::Instant::now();
    store.settle(Duration::from_secs(5)).await;
    assert_eq!(started.elapsed(), Duration::from_millis(200));
    assert_eq!(store.pending(), Vec::<PathBuf>::new());
    publisher.await.unwrap();
    // Nothing published: settle gives up at the deadline.
    store.expect(&file, 3);
    let started = tokio::time::Instant::now();
    store.settle(Duration::from_secs(2)).await;
    assert_eq!(started.elapsed(), Duration::from_secs(2));
    assert_eq!(store.pending(), vec![file.clone()]);
    store.forget_pending(std::slice::from_ref(&file));
    assert_eq!(store.pending(), Vec::<PathBuf>::new());
}
