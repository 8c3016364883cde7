//! Rebuilds the kind model's weights from `guest/model/data/` (the test
//! split left out), or measures the training recipe:
//!
//! ```text
//! cargo run --release -p engram-guest --example train_model            # writes guest/model/weights.bin
//! cargo run --release -p engram-guest --example train_model -- --cv 5  # k-fold CV on the training part
//! cargo run --release -p engram-guest --example train_model -- --grid  # CV over a small settings grid
//! cargo run --release -p engram-guest --example train_model -- --test  # the untouched split, once
//! ```

use std::path::PathBuf;
use std::time::Instant;

use engram_guest::core::config::Policy;
use engram_guest::write::model::train::{self, data, Example, Params, PARAMS};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("model")
}

fn print_confusion(m: &[[usize; 5]; 5]) {
    let names = train::kind_names();
    print!("{:>12}", "expected\\got");
    for n in names {
        print!("{n:>11}");
    }
    println!();
    for (i, row) in m.iter().enumerate() {
        print!("{:>12}", names[i]);
        for c in row {
            print!("{c:>11}");
        }
        println!();
    }
}

fn cv(ex: &[Example], p: &Params, folds: u64) -> (f64, [[usize; 5]; 5]) {
    let mut total = [[0usize; 5]; 5];
    for k in 0..folds {
        let (test, fit): (Vec<Example>, Vec<Example>) = ex
            .iter()
            .cloned()
            .partition(|e| train::fold_of(&e.id, folds) == k);
        let w = train::train(&fit, p);
        let (_, m) = train::evaluate(&w, &test);
        for i in 0..5 {
            for j in 0..5 {
                total[i][j] += m[i][j];
            }
        }
    }
    let ok: usize = (0..5).map(|i| total[i][i]).sum();
    let all: usize = total.iter().flatten().sum();
    (ok as f64 / all.max(1) as f64, total)
}

/// One line per candidate: id, expected kind, the rules' kind, the model's
/// kind and margin (for choosing how far the model may overrule the rules).
fn explain(rows: &[data::Labelled], w: &[u8], policy: &Policy, out: &mut String) {
    use engram_guest::core::model::candidate_kind_name as name;
    let Ok(weights) = engram_guest::write::model::blob::Weights::parse(w) else {
        return;
    };
    for r in rows {
        let now = train::clock_of(&r.candidate);
        let (rule, strong) = engram_guest::write::classify::rule_kind(&r.candidate, now, policy);
        let full = train::features_of(&r.candidate, PARAMS.buckets, policy);
        let f =
            engram_guest::write::model::Features::from_ids(full.ids().to_vec(), full.text_count());
        let d = engram_guest::write::model::decide_with(&weights, &f, 0);
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{:.3}\t{}\t{}\t{}\n",
            r.id,
            r.kind.map_or("*", name),
            name(rule),
            name(d.kind),
            d.margin,
            r.file,
            strong,
            engram_guest::core::model::source_label(r.candidate.source.kind)
        ));
    }
}

/// `--set epochs=30,rate=0.05,…`: settings other than the shipped ones (exploration only).
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
                "average_text" => p.average_text = x != 0.0,
                _ => eprintln!("unknown setting {k}"),
            }
        }
    }
    p
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let params = settings(&args);
    let dir = root().join("data");
    let (rows, test_rows) = match data::load_split(&dir) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let policy = Policy::default();
    let t0 = Instant::now();
    let ex = train::examples(&rows, PARAMS.buckets, &policy);
    let featurise = t0.elapsed();
    if let Some(i) = args.iter().position(|a| a == "--cv") {
        let folds = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(5);
        let (acc, m) = cv(&ex, &params, folds);
        println!(
            "{folds}-fold CV on {} training lines: kind accuracy {acc:.3}",
            ex.len()
        );
        print_confusion(&m);
    } else if args.iter().any(|a| a == "--grid") {
        for epochs in [15, 30] {
            for rate in [0.05, 0.1, 0.3] {
                for balance in [0.0, 0.5, 1.0] {
                    for file_balance in [0.0, 0.5] {
                        let p = Params {
                            epochs,
                            rate,
                            balance,
                            file_balance,
                            ..PARAMS
                        };
                        let (acc, _) = cv(&ex, &p, 5);
                        println!("epochs {epochs:>2} rate {rate:.2} balance {balance:.1} file_balance {file_balance:.1}: CV kind accuracy {acc:.3}");
                    }
                }
            }
        }
    } else if let Some(i) = args.iter().position(|a| a == "--explain") {
        // --explain DIR_OR_FILE...: the shipped recipe on the training part,
        // then rules vs model on other labelled sets; --explain-cv: the same
        // for each training line from the fold that left it out.
        let w = train::train(&ex, &params);
        let mut out = String::new();
        for path in args[i + 1..].iter().take_while(|a| !a.starts_with("--")) {
            let p = PathBuf::from(path);
            let rows = if p.is_dir() {
                data::load(&p)
            } else {
                data::load_file(&p)
            };
            match rows {
                Ok(rows) => explain(&rows, &w, &policy, &mut out),
                Err(e) => eprintln!("{e}"),
            }
        }
        print!("{out}");
    } else if args.iter().any(|a| a == "--explain-cv") {
        let mut out = String::new();
        for k in 0..5 {
            let (held, fit): (Vec<data::Labelled>, Vec<data::Labelled>) = rows
                .iter()
                .cloned()
                .partition(|r| train::fold_of(&r.id, 5) == k);
            let w = train::train(&train::examples(&fit, PARAMS.buckets, &policy), &params);
            explain(&held, &w, &policy, &mut out);
        }
        print!("{out}");
    } else if args.iter().any(|a| a == "--timing") {
        // Native cost per candidate: the rule scan alone, the model's part
        // (features + decision), and the whole of `classify`, interleaved.
        let (mut scan, mut model, mut whole) = (Vec::new(), Vec::new(), Vec::new());
        let weights = engram_guest::write::model::WEIGHTS;
        for _ in 0..3 {
            for r in &rows {
                let now = train::clock_of(&r.candidate);
                let t = Instant::now();
                std::hint::black_box(engram_guest::write::classify::rule_kind(
                    &r.candidate,
                    now,
                    &policy,
                ));
                scan.push(t.elapsed().as_secs_f64() * 1e6);
                let t = Instant::now();
                let f = engram_guest::write::classify::model_features(
                    &r.candidate,
                    now,
                    &policy,
                    weights.buckets(),
                );
                std::hint::black_box(engram_guest::write::model::decide(&f));
                model.push(t.elapsed().as_secs_f64() * 1e6);
                let t = Instant::now();
                std::hint::black_box(engram_guest::write::classify::classify(
                    &r.candidate,
                    now,
                    &policy,
                ));
                whole.push(t.elapsed().as_secs_f64() * 1e6);
            }
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let (s, m, w) = (median(&mut scan), median(&mut model), median(&mut whole));
        println!(
            "native µs per candidate (median of {}): rule scan {s:.1}; scan + features + decision {m:.1} (model part ≈ {:.1}); classify {w:.1}",
            scan.len(),
            m - s
        );
    } else if args.iter().any(|a| a == "--rules") {
        // The ordered rules alone, on the training part (the baseline).
        let mut m = [[0usize; 5]; 5];
        for r in rows.iter().filter(|r| r.kind.is_some()) {
            let now = train::clock_of(&r.candidate);
            let (got, _) = engram_guest::write::classify::rule_kind(&r.candidate, now, &policy);
            m[train::label_of(r.kind.unwrap_or(got))][train::label_of(got)] += 1;
        }
        let ok: usize = (0..5).map(|i| m[i][i]).sum();
        let all: usize = m.iter().flatten().sum();
        println!(
            "rules alone on {all} training lines: kind accuracy {:.3}",
            ok as f64 / all.max(1) as f64
        );
        print_confusion(&m);
    } else if args.iter().any(|a| a == "--test") {
        let w = train::train(&ex, &PARAMS);
        let test = train::examples(&test_rows, PARAMS.buckets, &policy);
        let (acc, m) = train::evaluate(&w, &test);
        println!(
            "untouched split ({} lines): model kind accuracy {acc:.3}",
            test.len()
        );
        print_confusion(&m);
    } else {
        let t1 = Instant::now();
        let w = train::train(&ex, &PARAMS);
        let path = root().join("weights.bin");
        if let Err(e) = std::fs::write(&path, &w) {
            eprintln!("{}: {e}", path.display());
            std::process::exit(1);
        }
        println!(
            "{} training lines: features {:.2}s, training {:.2}s; wrote {} ({} bytes)",
            ex.len(),
            featurise.as_secs_f64(),
            t1.elapsed().as_secs_f64(),
            path.display(),
            w.len()
        );
    }
}
