//! `engram-bench --quick --json`, run in-process as a smoke test: every
//! field the issue names is present and sane. No timing assertions: the
//! figures depend on the machine; what must hold is the shape, and that the
//! benchmark really exercised what it claims to.

use serde_json::Value;

fn num(v: &Value, path: &str) -> f64 {
    let mut cur = v;
    for k in path.split('.') {
        cur = &cur[k];
    }
    cur.as_f64()
        .unwrap_or_else(|| panic!("`{path}` is not a number: {cur}"))
}

#[test]
fn quick_bench_prints_every_field_with_sane_values() {
    let mut out = Vec::new();
    if let Err(f) = engram_bench::command::run(["engram-bench", "--quick", "--json"], &mut out) {
        panic!("engram-bench --quick --json: {}", f.message);
    }
    let out = String::from_utf8(out).expect("UTF-8 output");
    let v: Value = serde_json::from_str(out.trim()).expect("one JSON object");

    for field in [
        "component_bytes",
        "compile_ms",
        "deserialize_us",
        "instantiate_us",
        "pack_p50_us",
        "wasm_native_ratio",
        "host_rss_mb",
    ] {
        let x = num(&v, field);
        assert!(x.is_finite() && x > 0.0, "{field} = {x}");
    }
    let bytes = num(&v, "component_bytes");
    assert!(bytes > 10_000.0, "a real component: {bytes} bytes");
    for mode in ["batched", "single"] {
        let x = num(&v, &format!("remember_per_s.{mode}"));
        assert!(x.is_finite() && x > 0.0, "remember_per_s.{mode} = {x}");
    }

    let recall = v["recall"].as_array().expect("recall is a list");
    assert!(recall.len() >= 2, "one entry per size: {recall:?}");
    let mut last = 0.0;
    for row in recall {
        let n = num(row, "memories");
        assert!(n > last, "sizes ascend: {recall:?}");
        last = n;
        let (p50, p95) = (num(row, "p50_us"), num(row, "p95_us"));
        assert!(p50 > 0.0 && p95 >= p50, "percentiles: {row}");
        let read = num(row, "candidates_read");
        assert!(read >= 1.0, "queries found candidates: {row}");
        // The corpus is really that large, with revision chains.
        let revisions = num(row, "corpus.revisions");
        assert!(revisions >= 0.9 * n, "corpus of {n}: {row}");
        assert!(num(row, "corpus.max_revision") >= 2.0, "revisions: {row}");
        // The scaling curve: writes into a file of this size, and the RSS.
        let written = num(row, "remember_per_s");
        assert!(written > 0.0, "remember at size {n}: {row}");
        assert_eq!(num(row, "remember.candidates"), 200.0, "{row}");
        assert!(num(row, "rss_mb") > 1.0, "rss at size {n}: {row}");
        // The store's maintained document count agrees with a direct count.
        assert_eq!(
            num(row, "corpus.live_documents"),
            num(row, "corpus.live_documents_via_stats"),
            "{row}"
        );
    }

    // Both sides of the ratio ran the same policy on the same store.
    let wn = &v["details"]["wasm_native"];
    for part in ["ranking", "classification"] {
        let same = num(wn, &format!("{part}.same_results"));
        assert!(same >= 0.9, "{part}: wasm and native disagree: {wn}");
    }
    // The remember run stored most of what it was given.
    let out = &v["details"]["remember"]["batched"]["outcomes"]["dispositions"];
    let stored = out["active"].as_f64().unwrap_or(0.0) + out["pending"].as_f64().unwrap_or(0.0);
    assert!(stored > 0.0, "nothing stored: {out}");
}
