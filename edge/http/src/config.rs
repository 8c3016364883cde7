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
//! No rate limit: an instance lives for one request, so it has no state to
//! count a key's requests in (docs/edge.md). The store reads
//! `ENGRAM_KV_BUCKET`, `ENGRAM_NOW` and `ENGRAM_UTC_OFFSET_MINUTES`
//! (edge/kv-store/src/clock.rs).

use engram_api::{KeyRing, Limits, ENVIRONMENT};

/// The keys and limits in force.
#[derive(Debug)]
pub struct Config {
    /// `ENGRAM_KEYS`.
    pub keys: KeyRing,
    /// `ENGRAM_MAX_BODY_BYTES`, `ENGRAM_MAX_ITEMS`.
    pub limits: Limits,
}

impl Config {
    /// From variables looked up by `var`; a bad value is named.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Config, String> {
        let keys = KeyRing::parse(&var("ENGRAM_KEYS").unwrap_or_default(), "ENGRAM_KEYS")?;
        if keys.is_empty() {
            return Err(
                "ENGRAM_KEYS has no keys (give the lines of an `engram keys add` key file)".into(),
            );
        }
        let mut limits = Limits::new(ENVIRONMENT);
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
        limits.max_body_bytes = number(ENVIRONMENT.body, limits.max_body_bytes)?;
        limits.max_items = number(ENVIRONMENT.items, limits.max_items)?;
        Ok(Config { keys, limits })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn keys_and_limits_come_from_the_environment() {
        let line = format!(
            "{{\"sha256\":\"{}\",\"tenant\":\"acme\"}}",
            engram_api::key_hash("ek_acme")
        );
        let c = Config::from_vars(vars(&[("ENGRAM_KEYS", &line), ("ENGRAM_MAX_ITEMS", " 3 ")]))
            .expect("a configuration");
        assert_eq!(c.keys.len(), 1);
        assert_eq!(
            (c.limits.max_items, c.limits.max_body_bytes),
            (3, engram_api::DEFAULT_MAX_BODY_BYTES)
        );
        assert!(c.limits.rate.is_none());
        let e = Config::from_vars(vars(&[
            ("ENGRAM_KEYS", &line),
            ("ENGRAM_MAX_BODY_BYTES", "8M"),
        ]))
        .unwrap_err();
        assert_eq!(e, "ENGRAM_MAX_BODY_BYTES: '8M' is not a whole number");
        let e = Config::from_vars(vars(&[])).unwrap_err();
        assert!(e.starts_with("ENGRAM_KEYS has no keys"), "{e}");
        let e = Config::from_vars(vars(&[("ENGRAM_KEYS", "{\"tenant\":1}")])).unwrap_err();
        assert!(e.starts_with("ENGRAM_KEYS line 1: "), "{e}");
    }
}
