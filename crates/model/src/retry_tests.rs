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
    assert_eq!(retry_delay(&error, 1), Some(Duration::from_secs(90)));
    let server = ModelError::Server {
        status: 500,
        body: String::new(),
        retry_after: None,
    };
    let delay = retry_delay(&server, 1).unwrap();
    assert!(
        delay >= Duration::from_millis(180) && delay <= Duration::from_millis(220),
        "{delay:?}"
    );
}

#[test]
fn a_retry_after_beyond_the_limit_is_not_waited_for() {
    let at_limit = ModelError::RateLimited {
        retry_after: Some(MAX_RETRY_AFTER),
        message: String::new(),
    };
    assert_eq!(retry_delay(&at_limit, 1), Some(MAX_RETRY_AFTER));
    let beyond = ModelError::RateLimited {
        retry_after: Some(MAX_RETRY_AFTER + Duration::from_millis(1)),
        message: String::new(),
    };
    assert_eq!(retry_delay(&beyond, 1), None);
}

#[test]
fn jitter_stays_within_ten_percent_over_many_draws() {
    for _ in 0..1000 {
        let delay = backoff(3).as_secs_f64();
        assert!((0.72..=0.88).contains(&delay), "{delay}");
    }
}
