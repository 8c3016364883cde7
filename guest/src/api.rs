//! The context every exported operation runs in: a store, a clock and the
//! policy configuration. The operations themselves live in `remember`,
//! `recall`, `pack`, `forget` and `lifecycle`.

use crate::config::Policy;
use crate::store::{Clock, Store};
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
