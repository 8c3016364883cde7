//! The key-value seam: what the store needs from `wasi:keyvalue` (draft2),
//! as a trait, so the commit protocol runs natively in unit tests against
//! an in-memory bucket that can interleave two writers on purpose.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// A failure of the key-value store itself (network, quota, a missing bucket).
pub type KvError = String;

/// One bucket. Plain reads and writes are eventually consistent with
/// read-your-writes; `cas_read` + `cas_swap` is the only atomic operation.
pub trait Kv {
    /// A compare-and-swap handle: remembers what `cas_read` saw.
    type Cas;
    fn get_many(&self, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, KvError>;
    fn set_many(&self, entries: Vec<(String, Vec<u8>)>) -> Result<(), KvError>;
    fn delete_many(&self, keys: &[String]) -> Result<(), KvError>;
    /// Read `key` for a later `cas_swap`.
    fn cas_read(&self, key: &str) -> Result<(Option<Vec<u8>>, Self::Cas), KvError>;
    /// Write `value` if the key still holds what the handle read: `false`
    /// when another writer changed it first.
    fn cas_swap(&self, cas: Self::Cas, value: Vec<u8>) -> Result<bool, KvError>;

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, KvError> {
        Ok(self.get_many(&[key.to_string()])?.pop().flatten())
    }
}

/// An in-memory bucket shared by clones (two "instances" of the store on
/// one bucket). `before_swap` runs just before each swap, so a test can let
/// another writer commit in between.
#[derive(Clone, Default)]
pub struct MemKv {
    pub data: Rc<RefCell<BTreeMap<String, Vec<u8>>>>,
    #[allow(clippy::type_complexity)]
    pub before_swap: Rc<RefCell<Option<Box<dyn FnMut(&str)>>>>,
}

impl MemKv {
    pub fn keys(&self) -> Vec<String> {
        self.data.borrow().keys().cloned().collect()
    }
}

impl Kv for MemKv {
    type Cas = (String, Option<Vec<u8>>);

    fn get_many(&self, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, KvError> {
        let d = self.data.borrow();
        Ok(keys.iter().map(|k| d.get(k).cloned()).collect())
    }

    fn set_many(&self, entries: Vec<(String, Vec<u8>)>) -> Result<(), KvError> {
        let mut d = self.data.borrow_mut();
        for (k, v) in entries {
            d.insert(k, v);
        }
        Ok(())
    }

    fn delete_many(&self, keys: &[String]) -> Result<(), KvError> {
        let mut d = self.data.borrow_mut();
        for k in keys {
            d.remove(k);
        }
        Ok(())
    }

    fn cas_read(&self, key: &str) -> Result<(Option<Vec<u8>>, Self::Cas), KvError> {
        let cur = self.data.borrow().get(key).cloned();
        Ok((cur.clone(), (key.to_string(), cur)))
    }

    fn cas_swap(&self, cas: Self::Cas, value: Vec<u8>) -> Result<bool, KvError> {
        let hook = self.before_swap.borrow_mut().take();
        if let Some(mut f) = hook {
            f(&cas.0);
            *self.before_swap.borrow_mut() = Some(f);
        }
        let mut d = self.data.borrow_mut();
        if d.get(&cas.0) != cas.1.as_ref() {
            return Ok(false);
        }
        d.insert(cas.0, value);
        Ok(true)
    }
}
