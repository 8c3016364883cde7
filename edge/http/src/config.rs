//! The handler's configuration, from the environment (every edge runtime
//! passes environment variables: `wasmtime serve --env`, Spin's
//! `environment`, a worker's bindings):
//!
//! | variable | meaning (default) |
//! | --- | --- |
//! | `ENGRAM_KEYS` | the API keys: lines of an `engram keys add` key file (required) |
//! | `ENGRAM_MAX_BODY_BYTES` | largest request body (8 MiB) |
//! | `ENGRAM_MAX_ITEMS` | most items in one batch (2000) |
//!
//! The store reads `ENGRAM_KV_BUCKET`, `ENGRAM_NOW` and
//! `ENGRAM_UTC_OFFSET_MINUTES` (edge/kv-store/src/clock.rs).

use crate::auth::KeyRing;

#[derive(Debug, Clone)]
pub struct Config {
    pub keys: KeyRing,
    pub max_body_bytes: usize,
    pub max_items: usize,
}

impl Config {
    /// From variables looked up by `var`; a bad value is named.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Config, String> {
        let keys = KeyRing::parse(&var("ENGRAM_KEYS").unwrap_or_default())?;
        if keys.is_empty() {
            return Err(
                "ENGRAM_KEYS has no keys (give the lines of an `engram keys add` key file)".into(),
            );
        }
        let number = |name: &str, default: usize| -> Result<usize, String> {
            match var(name)
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
            {
                None => Ok(default),
                Some(s) => s
                    .parse()
                    .map_err(|_| format!("{name}: '{s}' is not a whole number")),
            }
        };
        Ok(Config {
            keys,
            max_body_bytes: number("ENGRAM_MAX_BODY_BYTES", 8 << 20)?,
            max_items: number("ENGRAM_MAX_ITEMS", 2000)?,
        })
    }
}
