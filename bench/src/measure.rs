//! The benchmark's measuring tools: percentiles, thread CPU time, rounding,
//! progress notes, its failures and its fixed clock.

use std::time::Duration;

use engram_cli::failure::Failure;
use engram_host::bindings as w;
use engram_host::clock::Clock;
use engram_host::Engram;

pub(crate) fn fail(message: impl std::fmt::Display) -> Failure {
    Failure {
        code: 3,
        message: format!("bench: {message}"),
    }
}

pub(crate) fn store_fail(e: w::StoreError) -> Failure {
    fail(engram_host::store_msg(&e))
}

/// Progress on stderr.
pub(crate) fn note(msg: impl AsRef<str>) {
    eprintln!("bench: {}", msg.as_ref());
}

/// Percentile `q` (0..=1) of sorted values, nearest rank.
pub(crate) fn pct(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

pub(crate) fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v
}

/// CPU time of the calling thread, in µs: the benchmark's work (SQLite and
/// wasmtime run on the calling thread) without the time spent waiting for a
/// core, which wall time includes on a loaded machine.
pub(crate) fn thread_cpu_us() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer for clock_gettime.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0.0;
    }
    ts.tv_sec as f64 * 1e6 + ts.tv_nsec as f64 / 1e3
}

pub(crate) fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

pub(crate) fn round(x: f64, places: i32) -> f64 {
    let m = 10f64.powi(places);
    (x * m).round() / m
}

/// Move a fixed clock forward.
pub(crate) fn advance(engram: &mut Engram, ms: i64) {
    let now = engram.clock.now();
    engram.clock = Clock::Fixed(w::Datetime {
        epoch_ms: now.epoch_ms + ms,
        offset_minutes: now.offset_minutes,
    });
}
