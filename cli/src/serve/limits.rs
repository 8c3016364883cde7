//! `engram serve`'s limit flags: what one key may send (bytes per request
//! body, items per batch, requests per second). The limits themselves and
//! their refusals are `engram-api`'s, named by these flags.

use clap::Args;
use engram_api::{Limits, RateLimiter, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_ITEMS, FLAGS};

#[derive(Args, Debug, Clone)]
pub struct LimitArgs {
    /// Largest request body, in bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_BODY_BYTES)]
    pub max_body_bytes: usize,
    /// Most items in one batch (array elements or JSON Lines).
    #[arg(long, default_value_t = DEFAULT_MAX_ITEMS)]
    pub max_items: usize,
    /// Requests per second one key may sustain.
    #[arg(long, default_value_t = 200)]
    pub rate_per_sec: u32,
    /// Requests one key may send at once above its rate.
    #[arg(long, default_value_t = 400)]
    pub rate_burst: u32,
}

impl LimitArgs {
    /// The limits these flags set, with one rate limiter for every request.
    pub fn limits(&self) -> Limits {
        let mut limits = Limits::new(FLAGS);
        limits.max_body_bytes = self.max_body_bytes;
        limits.max_items = self.max_items;
        limits.rate = Some(RateLimiter::new(
            self.rate_per_sec,
            self.rate_burst,
            "--rate-per-sec, --rate-burst",
        ));
        limits
    }
}
