//! The context every exported operation runs in: a store, a clock and the
//! policy configuration. The operations themselves live in `write::remember`,
//! `read::recall`, `context::pack`, `lifecycle::forget` and
//! `lifecycle::sweep`.

use crate::core::config::Policy;
use crate::core::store::{Clock, Store};
use crate::types::Datetime;

pub struct Ctx<'a> {
    pub store: &'a dyn Store,
    pub clock: &'a dyn Clock,
    pub policy: &'a Policy,
}

impl Ctx<'_> {
    pub fn now(&self) -> Datetime {
        self.clock.now()
    }
}
