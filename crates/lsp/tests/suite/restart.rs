//! A server that dies is started again once, and then left alone. The server is a small
//! Python program speaking the base protocol (`tests/fixtures/dying_server.py`) that exits
//! when a document says `die`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use agentctx_lsp::LspError;
use agentctx_lsp::LspManager;
use agentctx_lsp::LspServerConfig;
use pretty_assertions::assert_eq;

fn dying_server() -> LspServerConfig {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dying_server.py");
    LspServerConfig {
        command: vec!["python3".to_owned(), script.display().to_string()],
        extensions: vec!["txt".to_owned()],
        diagnostics_wait_ms: Some(10_000),
        ..LspServerConfig::default()
    }
}

async fn wait_until_dead(manager: &LspManager) {
    for _ in 0..500 {
        if manager.running().await.is_empty() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the server did not exit");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_server_is_restarted_once_with_its_files_and_then_given_up() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().to_path_buf();
    let (a, b) = (cwd.join("a.txt"), cwd.join("b.txt"));
    let manager = LspManager::new(
        BTreeMap::from([("text".to_owned(), dying_server())]),
        cwd.clone(),
    );

    std::fs::write(&a, "an error here\n").unwrap();
    manager.file_changed(&a, "an error here\n").await.unwrap();
    manager.settle().await;
    assert_eq!(
        manager.take_new_diagnostics()[0].diagnostics[0].message,
        "found an error here"
    );

    // The server dies on this file.
    manager.file_changed(&b, "die\n").await.unwrap();
    wait_until_dead(&manager).await;
    // The next change starts it again; the file it had open is sent again.
    std::fs::write(&b, "another error\n").unwrap();
    manager.file_changed(&b, "another error\n").await.unwrap();
    assert_eq!(manager.running().await, vec!["text".to_owned()]);
    manager.settle().await;
    let files = manager.take_new_diagnostics();
    let paths: Vec<&PathBuf> = files.iter().map(|file| &file.path).collect();
    assert_eq!(
        paths,
        vec![&b],
        "a's error was told before and is still the same"
    );
    assert_eq!(
        manager.store().current(&a).len(),
        1,
        "a was reopened in the new server"
    );

    // It dies again: no second restart.
    manager.file_changed(&b, "die again\n").await.unwrap();
    wait_until_dead(&manager).await;
    let err = manager.file_changed(&b, "fine\n").await.unwrap_err();
    assert!(matches!(err, LspError::GaveUp { .. }), "{err}");
    assert!(matches!(
        manager.file_changed(&a, "fine\n").await,
        Err(LspError::GaveUp { .. })
    ));
    manager.shutdown().await;
}

#[tokio::test]
async fn a_server_that_cannot_start_is_a_typed_error_once_and_then_given_up() {
    let dir = tempfile::tempdir().unwrap();
    let config = LspServerConfig {
        command: vec!["agentctx-no-such-language-server".to_owned()],
        extensions: vec!["txt".to_owned()],
        ..LspServerConfig::default()
    };
    let manager = LspManager::new(
        BTreeMap::from([("text".to_owned(), config)]),
        dir.path().to_path_buf(),
    );
    let file = dir.path().join("a.txt");
    let err = manager.file_changed(&file, "x").await.unwrap_err();
    assert!(matches!(err, LspError::Spawn { .. }), "{err}");
    assert!(
        err.to_string().contains("agentctx-no-such-language-server"),
        "{err}"
    );
    assert!(matches!(
        manager.file_changed(&file, "x").await,
        Err(LspError::GaveUp { .. })
    ));
    // A file no server serves is ignored.
    manager
        .file_changed(&dir.path().join("a.rs"), "x")
        .await
        .unwrap();
    let empty = LspServerConfig::default();
    let manager = LspManager::new(
        BTreeMap::from([(
            "none".to_owned(),
            LspServerConfig {
                extensions: vec!["txt".to_owned()],
                ..empty
            },
        )]),
        dir.path().to_path_buf(),
    );
    assert!(matches!(
        manager.file_changed(&file, "x").await,
        Err(LspError::NoCommand { .. })
    ));
}
