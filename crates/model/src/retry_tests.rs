use std::time::Duration;

use super::*;

#[test]
fn backoff_grows_exponentially_within_jitter() {
    for attempt in 1..=5_u64 {
        let expected = 0.2 * 2f64.powi(i32::try_from(attempt - 1).unwrap());
        let delay = backoff(attempt).as_secs_f64();
        assert!(
            delay >= expected * 0.9 - 1e-9 && delay <= expected * 1.1 + 1e-9,
            "attempt {attempt}: {delay} not within 10% of {expected}"
        );
    }
}

#[test]
fn backoff_is_capped() {
    assert_eq!(backoff(40), MAX_BACKOFF);
}

#[test]
fn retry_after_is_honoured_exactly() {
    let error = ModelError::RateLimited {
        retry_after: Some(Duration::from_secs(90)),
        message: String::new(),
    };
    assert_eq!(retry_delay(&error, 1), Duration::from_secs(90));
    let server = ModelError::Server {
        status: 500,
        body: String::new(),
    };
    assert!(retry_delay(&server, 1) <= Duration::from_millis(220));
}
