//! Requests per key and second, sans-I/O: the adapter says what time it is
//! (any clock that only moves forward, as a duration since its own start)
//! and the limiter answers whether the key may go on. The generic cell
//! rate algorithm: each key has a theoretical arrival time that moves one
//! interval (1 s / rate) per request admitted; a request is admitted while
//! that time is at most `burst - 1` intervals ahead of now.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use crate::error::ApiError;

/// A keyed rate limiter; share one between requests (`&self` is enough).
#[derive(Debug)]
pub struct RateLimiter {
    per_sec: u32,
    burst: u32,
    setting: &'static str,
    /// Each key's theoretical arrival time.
    tat: Mutex<HashMap<String, Duration>>,
}

impl RateLimiter {
    /// `per_sec` requests a second sustained, `burst` at once (both at
    /// least 1); refusals name `setting` (e.g. `--rate-per-sec, --rate-burst`).
    pub fn new(per_sec: u32, burst: u32, setting: &'static str) -> Self {
        RateLimiter {
            per_sec: per_sec.max(1),
            burst: burst.max(1),
            setting,
            tat: Mutex::new(HashMap::new()),
        }
    }

    fn interval(&self) -> Duration {
        Duration::from_secs(1) / self.per_sec
    }

    fn tolerance(&self) -> Duration {
        self.interval().saturating_mul(self.burst - 1)
    }

    /// Count one request of `key` at `now`; 429 with `Retry-After` over the
    /// rate.
    pub fn admit(&self, key: &str, now: Duration) -> Result<(), ApiError> {
        let mut tat = self.tat.lock().unwrap_or_else(|e| e.into_inner());
        let at = tat.get(key).copied().unwrap_or(now).max(now);
        let earliest = at.saturating_sub(self.tolerance());
        if earliest > now {
            let wait = earliest - now;
            let mut e = ApiError::new(
                429,
                format!(
                    "rate limit: this key is over {} requests per second (burst {}) ({}); retry in {} ms",
                    self.per_sec,
                    self.burst,
                    self.setting,
                    wait.as_millis().max(1)
                ),
            );
            e.retry_after = Some(wait.as_secs().max(1));
            return Err(e);
        }
        tat.insert(key.to_string(), at.saturating_add(self.interval()));
        Ok(())
    }

    /// Forget the keys back at full burst by `now`, so the limiter's memory
    /// stays bounded by the keys active lately.
    pub fn tidy(&self, now: Duration) {
        let mut tat = self.tat.lock().unwrap_or_else(|e| e.into_inner());
        tat.retain(|_, at| *at > now);
    }

    /// How many keys it holds state for.
    pub fn keys(&self) -> usize {
        self.tat.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_burst_passes_then_the_rate_holds_per_key() {
        let r = RateLimiter::new(1, 6, "--rate-per-sec, --rate-burst");
        let t0 = Duration::from_secs(100);
        for _ in 0..6 {
            r.admit("a", t0).expect("within the burst");
        }
        let e = r.admit("a", t0 + 10 * MS).unwrap_err();
        assert_eq!(e.status, 429);
        assert_eq!(
            e.message,
            "rate limit: this key is over 1 requests per second (burst 6) (--rate-per-sec, --rate-burst); retry in 990 ms"
        );
        assert_eq!(e.retry_after, Some(1));
        r.admit("b", t0).expect("another key has its own burst");
        r.admit("a", t0 + 1000 * MS).expect("one interval later");
        assert!(r.admit("a", t0 + 1500 * MS).is_err());
        r.tidy(t0 + Duration::from_secs(3));
        assert_eq!(r.keys(), 1, "b is back at full burst and forgotten");
        r.tidy(t0 + Duration::from_secs(10));
        assert_eq!(r.keys(), 0);
        for _ in 0..6 {
            r.admit("a", t0 + Duration::from_secs(10))
                .expect("a full burst again");
        }
    }

    #[test]
    fn a_high_rate_admits_its_rate() {
        let r = RateLimiter::new(200, 1, "x");
        let mut admitted = 0;
        for ms in 0..1000u64 {
            if r.admit("k", Duration::from_millis(ms)).is_ok() {
                admitted += 1;
            }
        }
        assert_eq!(admitted, 200);
    }
}
