//! What one request may send: bytes of body and items in a batch, each
//! refusal (413) naming its limit, the value that broke it and the setting
//! that changes it (a flag of `engram serve`, a variable of the edge).

use crate::error::ApiError;
use crate::rate::RateLimiter;

/// The largest body by default: 8 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 8 << 20;
/// The most items in one batch by default.
pub const DEFAULT_MAX_ITEMS: usize = 2000;

/// How the adapter's operator sets each limit, as refusals name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// The body limit's setting.
    pub body: &'static str,
    /// The batch limit's setting.
    pub items: &'static str,
}

/// `engram serve`'s flags.
pub const FLAGS: Settings = Settings {
    body: "--max-body-bytes",
    items: "--max-items",
};

/// The edge component's environment variables.
pub const ENVIRONMENT: Settings = Settings {
    body: "ENGRAM_MAX_BODY_BYTES",
    items: "ENGRAM_MAX_ITEMS",
};

/// The limits in force.
#[derive(Debug)]
pub struct Limits {
    /// Largest request body, in bytes.
    pub max_body_bytes: usize,
    /// Most items in one batch (array elements or JSON Lines).
    pub max_items: usize,
    /// How refusals name the settings.
    pub settings: Settings,
    /// Requests per key and second, when the adapter keeps the state.
    pub rate: Option<RateLimiter>,
}

impl Limits {
    /// The default limits, no rate limit, named by `settings`.
    pub fn new(settings: Settings) -> Self {
        Limits {
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_items: DEFAULT_MAX_ITEMS,
            settings,
            rate: None,
        }
    }

    /// Refuse a body over the size limit: `bytes` as declared
    /// (`Content-Length`), or `None` when only the bytes read show it.
    pub fn check_body(&self, bytes: Option<usize>, read: usize) -> Result<(), ApiError> {
        let max = self.max_body_bytes;
        let setting = self.settings.body;
        if let Some(len) = bytes.filter(|l| *l > max) {
            return Err(ApiError::new(
                413,
                format!("request body: {len} bytes is over the limit of {max} bytes ({setting})"),
            ));
        }
        if read > max {
            return Err(ApiError::new(
                413,
                format!("request body: over the limit of {max} bytes ({setting})"),
            ));
        }
        Ok(())
    }

    /// Refuse a batch over the item limit.
    pub fn check_items(&self, items: usize) -> Result<(), ApiError> {
        if items > self.max_items {
            return Err(ApiError::new(
                413,
                format!(
                    "batch: {items} items is over the limit of {} items per request ({})",
                    self.max_items, self.settings.items
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_limit_the_value_and_the_setting() {
        let mut l = Limits::new(FLAGS);
        l.max_body_bytes = 10;
        l.max_items = 2;
        assert_eq!(l.check_body(Some(10), 10), Ok(()));
        assert_eq!(
            l.check_body(Some(11), 0).unwrap_err().message,
            "request body: 11 bytes is over the limit of 10 bytes (--max-body-bytes)"
        );
        assert_eq!(
            l.check_body(None, 11).unwrap_err(),
            ApiError::new(
                413,
                "request body: over the limit of 10 bytes (--max-body-bytes)"
            )
        );
        assert_eq!(l.check_items(2), Ok(()));
        l.settings = ENVIRONMENT;
        assert_eq!(
            l.check_items(3).unwrap_err().message,
            "batch: 3 items is over the limit of 2 items per request (ENGRAM_MAX_ITEMS)"
        );
    }
}
