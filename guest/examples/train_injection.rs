//! Rebuilds the learned injection detector's weights from
//! `guest/model/injection/data/`, or measures the recipe:
//!
//! ```text
//! cargo run --release -p engram-guest --example train_injection            # writes guest/model/injection.bin
//! cargo run --release -p engram-guest --example train_injection -- --cv 5  # grouped k-fold CV: recall and false positives by threshold
//! cargo run --release -p engram-guest --example train_injection -- --grid  # CV over a small settings grid
//! cargo run --release -p engram-guest --example train_injection -- --set epochs=8,l2=1e-4 --cv 5
//! ```

use std::path::PathBuf;
use std::time::Instant;

use engram_guest::core::config::Policy;
use engram_guest::write::model::injection::THRESHOLD;
use engram_guest::write::model::train::injection::{self as inj, Doc, Segmented, PARAMS};
use engram_guest::write::model::train::{fold_of, Params};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("model")
}

const THRESHOLDS: [f64; 7] = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0];

/// Each document's best-segment logit from the fold that left it out.
fn cv_logits(docs: &[Doc], segs: &[Segmented], p: &Params, folds: u64) -> Vec<f64> {
    let mut out = vec![0.0; segs.len()];
    for k in 0..folds {
        let (held, fit): (Vec<&Segmented>, Vec<&Segmented>) = segs
            .iter()
            .partition(|s| fold_of(&docs[s.doc].group, folds) == k);
        let fit: Vec<Segmented> = fit.into_iter().cloned().collect();
        let w = inj::train(docs, &fit, p);
        let held_owned: Vec<Segmented> = held.iter().map(|s| (*s).clone()).collect();
        for (s, l) in held.iter().zip(inj::doc_logits(&w, &held_owned)) {
            out[s.doc] = l;
        }
    }
    out
}

/// Recall on documents with an injection and false positives on the rest,
/// by threshold; per file.
fn report(docs: &[Doc], logits: &[f64]) {
    let files: std::collections::BTreeSet<&str> = docs.iter().map(|d| d.file.as_str()).collect();
    print!("{:>14} {:>6} {:>6}", "file", "pos", "neg");
    for t in THRESHOLDS {
        print!("   t={t:<3} rec  fp ");
    }
    println!();
    for file in files.iter().copied().chain(std::iter::once("all")) {
        let pick = |label: bool| -> Vec<f64> {
            docs.iter()
                .zip(logits)
                .filter(|(d, _)| (file == "all" || d.file == file) && d.label == label)
                .map(|(_, &l)| l)
                .collect()
        };
        let (pos, neg) = (pick(true), pick(false));
        print!("{file:>14} {:>6} {:>6}", pos.len(), neg.len());
        for t in THRESHOLDS {
            let rec = pos.iter().filter(|&&l| l >= t).count() as f64 / pos.len().max(1) as f64;
            let fp = neg.iter().filter(|&&l| l >= t).count() as f64 / neg.len().max(1) as f64;
            print!("   {rec:.3} {fp:.3}    ");
        }
        println!();
    }
}

fn settings(args: &[String]) -> Params {
    let mut p = PARAMS;
    if let Some(i) = args.iter().position(|a| a == "--set") {
        for kv in args.get(i + 1).map(String::as_str).unwrap_or("").split(',') {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            let x: f64 = v.parse().unwrap_or(f64::NAN);
            match k {
                "epochs" => p.epochs = x as usize,
                "rate" => p.rate = x,
                "l2" => p.l2 = x,
                "balance" => p.balance = x,
                "file_balance" => p.file_balance = x,
                "buckets" => p.buckets = x as u32,
                _ => eprintln!("unknown setting {k}"),
            }
        }
    }
    p
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let params = settings(&args);
    let dir = root().join("injection").join("data");
    let policy = Policy::default();
    let t0 = Instant::now();
    let docs = match inj::load(&dir) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let segs = match inj::segment(&docs, params.buckets, &policy) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let n_seg: usize = segs.iter().map(|s| s.segments.len()).sum();
    let n_pos = segs
        .iter()
        .flat_map(|s| &s.segments)
        .filter(|x| x.2 == Some(true))
        .count();
    eprintln!(
        "{} documents, {n_seg} segments ({n_pos} positive), featurised in {:.1}s",
        docs.len(),
        t0.elapsed().as_secs_f64()
    );
    if let Some(i) = args.iter().position(|a| a == "--cv") {
        let folds = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(5);
        let logits = cv_logits(&docs, &segs, &params, folds);
        println!("{folds}-fold CV grouped by template/document (shipped threshold {THRESHOLD}):");
        report(&docs, &logits);
        if args.iter().any(|a| a == "--misses") {
            for (d, l) in docs.iter().zip(&logits) {
                if (d.label && *l < THRESHOLD) || (!d.label && *l >= THRESHOLD) {
                    println!(
                        "{}\t{}\t{:.2}\t{}",
                        if d.label { "MISS" } else { "FP" },
                        d.id,
                        l,
                        d.candidate
                            .text
                            .replace('\n', "\\n")
                            .chars()
                            .take(220)
                            .collect::<String>()
                    );
                }
            }
        }
    } else if let Some(i) = args.iter().position(|a| a == "--explain") {
        // --explain "TEXT"...: train on everything, then score each text as
        // a tool output, segment by segment.
        let w = inj::train(&docs, &segs, &params);
        let weights = engram_guest::write::model::blob::Weights::parse(&w).expect("weights");
        for t in args[i + 1..].iter().take_while(|a| !a.starts_with("--")) {
            let f = engram_guest::analysis::cues::fold(t);
            let v = engram_guest::write::model::injection::scan_with(
                &weights,
                &f,
                &[(0, f.len())],
                engram_guest::write::model::injection::Via::Tool,
            );
            match v {
                Some(v) => println!(
                    "{:6.2}  '{}'  {}",
                    v.logit,
                    &f[v.start..v.end],
                    v.describe()
                ),
                None => println!("  none  {t}"),
            }
        }
    } else if args.iter().any(|a| a == "--grid") {
        for epochs in [6, 12] {
            for l2 in [1e-5, 1e-4] {
                for balance in [0.0, 0.5, 1.0] {
                    let p = Params {
                        epochs,
                        l2,
                        balance,
                        ..params
                    };
                    let logits = cv_logits(&docs, &segs, &p, 5);
                    let (mut tp, mut np, mut fp, mut nn) = (0, 0, 0, 0);
                    for (d, l) in docs.iter().zip(&logits) {
                        if d.label {
                            np += 1;
                            tp += (*l >= THRESHOLD) as usize;
                        } else {
                            nn += 1;
                            fp += (*l >= THRESHOLD) as usize;
                        }
                    }
                    println!(
                        "epochs {epochs:>2} l2 {l2:.0e} balance {balance:.1}: recall {:.3} fp {:.3}",
                        tp as f64 / np.max(1) as f64,
                        fp as f64 / nn.max(1) as f64
                    );
                }
            }
        }
    } else {
        let t1 = Instant::now();
        let w = inj::train(&docs, &segs, &PARAMS);
        let path = root().join("injection.bin");
        if let Err(e) = std::fs::write(&path, &w) {
            eprintln!("{}: {e}", path.display());
            std::process::exit(1);
        }
        println!(
            "{} documents, {n_seg} segments: training {:.2}s; wrote {} ({} bytes)",
            docs.len(),
            t1.elapsed().as_secs_f64(),
            path.display(),
            w.len()
        );
    }
}
