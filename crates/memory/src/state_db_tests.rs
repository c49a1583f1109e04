use std::time::Duration;

use super::*;

#[tokio::test]
async fn a_database_locked_by_another_process_gives_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(STATE_DB_FILE);
    let holder = StateDb::open_path(&path).await.unwrap();
    holder
        .upsert_thread(&ThreadRecord {
            id: "t1".to_string(),
            rollout_path: PathBuf::from("/s/t1.jsonl"),
            source: Some("cli".to_string()),
            cwd: None,
            git_branch: None,
            updated_at: 1,
        })
        .await
        .unwrap();
    // Another "process" (its own pool) holds the write lock.
    let mut lock = holder.pool.acquire().await.unwrap();
    sqlx::query("BEGIN EXCLUSIVE")
        .execute(&mut *lock)
        .await
        .unwrap();

    let waiter = StateDb::open_with_busy_timeout(&path, Duration::from_millis(50))
        .await
        .unwrap();
    let error = waiter
        .try_claim_stage1_job("t1", "w", 60, 100)
        .await
        .unwrap_err();
    assert!(
        matches!(error, MemoryError::DatabaseLocked { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(message.contains("locked by another process"), "{message}");

    sqlx::query("ROLLBACK").execute(&mut *lock).await.unwrap();
    drop(lock);
    assert!(matches!(
        waiter
            .try_claim_stage1_job("t1", "w", 60, 100)
            .await
            .unwrap(),
        Stage1ClaimOutcome::Claimed(_)
    ));
}
