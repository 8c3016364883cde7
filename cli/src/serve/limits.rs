//! What one key may send: bytes per request body, items per batch, and
//! requests per second. Each refusal names its limit, the value that broke
//! it and the flag that sets it.

use std::num::NonZeroU32;

use axum::http::StatusCode;
use clap::Args;
use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use super::error::ApiError;

#[derive(Args, Debug, Clone)]
pub struct LimitArgs {
    /// Largest request body, in bytes.
    #[arg(long, default_value_t = 8 << 20)]
    pub max_body_bytes: usize,
    /// Most items in one batch (array elements or JSON Lines).
    #[arg(long, default_value_t = 2000)]
    pub max_items: usize,
    /// Requests per second one key may sustain.
    #[arg(long, default_value_t = 200)]
    pub rate_per_sec: u32,
    /// Requests one key may send at once above its rate.
    #[arg(long, default_value_t = 400)]
    pub rate_burst: u32,
}

/// The limits in force, with one rate limiter shared by every request.
pub struct Limits {
    pub args: LimitArgs,
    rate: DefaultKeyedRateLimiter<String>,
    clock: DefaultClock,
}

impl Limits {
    pub fn new(args: LimitArgs) -> Self {
        let per_sec = NonZeroU32::new(args.rate_per_sec.max(1)).unwrap_or(NonZeroU32::MIN);
        let burst = NonZeroU32::new(args.rate_burst.max(1)).unwrap_or(NonZeroU32::MIN);
        let quota = Quota::per_second(per_sec).allow_burst(burst);
        Limits {
            args,
            rate: RateLimiter::keyed(quota),
            clock: DefaultClock::default(),
        }
    }

    /// Count one request of the key with this hash; refuse it over the rate.
    pub fn admit(&self, key_hash: &str) -> Result<(), ApiError> {
        match self.rate.check_key(&key_hash.to_string()) {
            Ok(()) => Ok(()),
            Err(not_until) => {
                let wait = not_until.wait_time_from(self.clock.now());
                let mut e = ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    format!(
                        "rate limit: this key is over {} requests per second (burst {}) (--rate-per-sec, --rate-burst); retry in {} ms",
                        self.args.rate_per_sec, self.args.rate_burst,
                        wait.as_millis().max(1)
                    ),
                );
                e.retry_after = Some(wait.as_secs().max(1));
                Err(e)
            }
        }
    }

    /// Refuse a body over the size limit.
    pub fn check_body(&self, bytes: usize) -> Result<(), ApiError> {
        if bytes > self.args.max_body_bytes {
            return Err(ApiError::too_large(format!(
                "request body: {bytes} bytes is over the limit of {} bytes (--max-body-bytes)",
                self.args.max_body_bytes
            )));
        }
        Ok(())
    }

    /// Refuse a batch over the item limit.
    pub fn check_items(&self, items: usize) -> Result<(), ApiError> {
        if items > self.args.max_items {
            return Err(ApiError::too_large(format!(
                "batch: {items} items is over the limit of {} items per request (--max-items)",
                self.args.max_items
            )));
        }
        Ok(())
    }

    /// Forget the rate state of keys idle long enough to be back at full
    /// burst, so the limiter's memory stays bounded by the active keys.
    pub fn tidy(&self) {
        self.rate.retain_recent();
    }
}
