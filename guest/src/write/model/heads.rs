//! The weights compiled into the component, and the heads in use: the
//! compiled-in pair, or — in native tests only — a pair a retraining check
//! swapped in.

use crate::write::model::blob;

/// The kind head's weights (`guest/model/weights.bin`, built by `engram-train`).
pub static WEIGHTS: blob::Weights<'static> = blob::Weights::embedded();
/// The sensitive-data head's weights (`guest/model/sensitive.bin`, built by
/// `engram-train`; `model::sensitive`).
pub static SENSITIVE: blob::Weights<'static> =
    blob::Weights::from_static(include_bytes!("../../../model/sensitive.bin"));

/// The kind and sensitive-data heads in use: the compiled-in files, or —
/// in native tests only (`testing`) — a pair a retraining check swapped in
/// with `with_heads`, so a test can ask what a retrained model would decide
/// on the same pipeline.
pub fn heads() -> (blob::Weights<'static>, blob::Weights<'static>) {
    #[cfg(any(test, feature = "testing"))]
    if let Some(h) = SWAPPED.with(|s| *s.borrow()) {
        return h;
    }
    (WEIGHTS, SENSITIVE)
}

#[cfg(any(test, feature = "testing"))]
thread_local! {
    static SWAPPED: std::cell::RefCell<Option<(blob::Weights<'static>, blob::Weights<'static>)>> =
        const { std::cell::RefCell::new(None) };
}

/// Run `f` with other kind and sensitive-data weights (native tests only).
#[cfg(any(test, feature = "testing"))]
pub fn with_heads<R>(
    kind: blob::Weights<'static>,
    sensitive: blob::Weights<'static>,
    f: impl FnOnce() -> R,
) -> R {
    let before = SWAPPED.with(|s| s.replace(Some((kind, sensitive))));
    let out = f();
    SWAPPED.with(|s| *s.borrow_mut() = before);
    out
}
