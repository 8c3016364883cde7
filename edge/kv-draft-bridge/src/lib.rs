//! `wasi:keyvalue@0.2.0-draft2` over `@0.2.0-draft` (edge/wit/edge.wit,
//! world `kv-draft-bridge`): lets the edge component run under
//! `wasmtime serve -S keyvalue`, whose store is the first draft and is
//! in memory per instance. Compare-and-swap is emulated by reading and
//! comparing in this instance, which is exact only for such a private
//! store; the bridge is for smoke runs, never for a shared one.

#![allow(clippy::new_ret_no_self)]

pub mod bindings {
    wit_bindgen::generate!({
        path: ["../../wit", "../wit"],
        world: "engram:edge/kv-draft-bridge",
        generate_all,
    });
}

#[cfg(target_arch = "wasm32")]
mod component {
    use std::cell::RefCell;
    use std::rc::Rc;

    use crate::bindings::exports::wasi::keyvalue0_2_0_draft2::atomics as x_atomics;
    use crate::bindings::exports::wasi::keyvalue0_2_0_draft2::batch as x_batch;
    use crate::bindings::exports::wasi::keyvalue0_2_0_draft2::store as x_store;
    use crate::bindings::wasi::keyvalue0_2_0_draft::{atomics, batch, store};

    fn error(e: store::Error) -> x_store::Error {
        match e {
            store::Error::NoSuchStore => x_store::Error::NoSuchStore,
            store::Error::AccessDenied => x_store::Error::AccessDenied,
            store::Error::Other(m) => x_store::Error::Other(m),
        }
    }

    thread_local! {
        /// wasmtime's in-memory provider copies its data into every bucket
        /// it opens: one bucket serves the whole instance.
        static SHARED: RefCell<Option<Rc<store::Bucket>>> = const { RefCell::new(None) };
    }

    fn shared() -> Result<Rc<store::Bucket>, x_store::Error> {
        SHARED.with(|s| {
            let mut s = s.borrow_mut();
            if let Some(b) = s.as_ref() {
                return Ok(Rc::clone(b));
            }
            // The provider has one store, named "".
            let b = Rc::new(store::open("").map_err(error)?);
            *s = Some(Rc::clone(&b));
            Ok(b)
        })
    }

    pub struct Bucket(Rc<store::Bucket>);

    pub struct Cas {
        bucket: Rc<store::Bucket>,
        key: String,
        seen: Option<Vec<u8>>,
    }

    struct Bridge;

    impl x_store::Guest for Bridge {
        type Bucket = Bucket;
        fn open(_identifier: String) -> Result<x_store::Bucket, x_store::Error> {
            Ok(x_store::Bucket::new(Bucket(shared()?)))
        }
    }

    impl x_store::GuestBucket for Bucket {
        fn get(&self, key: String) -> Result<Option<Vec<u8>>, x_store::Error> {
            self.0.get(&key).map_err(error)
        }
        fn set(&self, key: String, value: Vec<u8>) -> Result<(), x_store::Error> {
            self.0.set(&key, &value).map_err(error)
        }
        fn delete(&self, key: String) -> Result<(), x_store::Error> {
            self.0.delete(&key).map_err(error)
        }
        fn exists(&self, key: String) -> Result<bool, x_store::Error> {
            self.0.exists(&key).map_err(error)
        }
        fn list_keys(
            &self,
            cursor: Option<String>,
        ) -> Result<x_store::KeyResponse, x_store::Error> {
            let at = cursor.and_then(|c| c.parse::<u64>().ok());
            let r = self.0.list_keys(at).map_err(error)?;
            Ok(x_store::KeyResponse {
                keys: r.keys,
                cursor: r.cursor.map(|c| c.to_string()),
            })
        }
    }

    impl x_atomics::Guest for Bridge {
        type Cas = Cas;
        fn increment(
            bucket: x_store::BucketBorrow<'_>,
            key: String,
            delta: i64,
        ) -> Result<i64, x_store::Error> {
            let b: &Bucket = bucket.get();
            let delta = u64::try_from(delta)
                .map_err(|_| x_store::Error::Other("a negative increment needs draft2".into()))?;
            atomics::increment(&b.0, &key, delta)
                .map_err(error)
                .map(|v| v as i64)
        }
        fn swap(cas: x_atomics::Cas, value: Vec<u8>) -> Result<(), x_atomics::CasError> {
            let c: Cas = cas.into_inner();
            let now = c
                .bucket
                .get(&c.key)
                .map_err(|e| x_atomics::CasError::StoreError(error(e)))?;
            if now != c.seen {
                return Err(x_atomics::CasError::CasFailed(x_atomics::Cas::new(Cas {
                    seen: now,
                    ..c
                })));
            }
            c.bucket
                .set(&c.key, &value)
                .map_err(|e| x_atomics::CasError::StoreError(error(e)))
        }
    }

    impl x_atomics::GuestCas for Cas {
        fn new(
            bucket: x_store::BucketBorrow<'_>,
            key: String,
        ) -> Result<x_atomics::Cas, x_store::Error> {
            let b: &Bucket = bucket.get();
            let seen = b.0.get(&key).map_err(error)?;
            Ok(x_atomics::Cas::new(Cas {
                bucket: Rc::clone(&b.0),
                key,
                seen,
            }))
        }
        fn current(&self) -> Result<Option<Vec<u8>>, x_store::Error> {
            Ok(self.seen.clone())
        }
    }

    impl x_batch::Guest for Bridge {
        fn get_many(
            bucket: x_store::BucketBorrow<'_>,
            keys: Vec<String>,
        ) -> Result<Vec<(String, Option<Vec<u8>>)>, x_store::Error> {
            let b: &Bucket = bucket.get();
            let found = batch::get_many(&b.0, &keys).map_err(error)?;
            Ok(keys
                .into_iter()
                .zip(found)
                .map(|(k, v)| (k, v.map(|(_, v)| v)))
                .collect())
        }
        fn set_many(
            bucket: x_store::BucketBorrow<'_>,
            entries: Vec<(String, Vec<u8>)>,
        ) -> Result<(), x_store::Error> {
            let b: &Bucket = bucket.get();
            batch::set_many(&b.0, &entries).map_err(error)
        }
        fn delete_many(
            bucket: x_store::BucketBorrow<'_>,
            keys: Vec<String>,
        ) -> Result<(), x_store::Error> {
            let b: &Bucket = bucket.get();
            batch::delete_many(&b.0, &keys).map_err(error)
        }
    }

    crate::bindings::export!(Bridge with_types_in crate::bindings);
}
