//! Rebuilds the model heads' weights from `guest/model/data/` (the test
//! split left out), or measures the training recipe:
//!
//! ```text
//! cargo run --release -p engram-guest --example train_model            # writes every head's file in guest/model/
//! cargo run --release -p engram-guest --example train_model -- --cv 5  # k-fold CV on the training part
//! cargo run --release -p engram-guest --example train_model -- --grid  # CV over a small settings grid
//! cargo run --release -p engram-guest --example train_model -- --test  # the untouched split, once
//! cargo run --release -p engram-guest --example train_model -- --head sensitive --sweep   # recall / false positives by margin
//! cargo run --release -p engram-guest --example train_model -- --head sensitive --errors  # cross-validated mistakes
//! ```
//!
//! `--head NAME` picks the head `--cv`, `--grid`, `--set`, `--sweep`,
//! `--errors` and `--test` measure (default `kind`; `train::HEADS` lists them).

use std::path::PathBuf;
use std::time::Instant;

use engram_guest::core::config::Policy;
use engram_guest::write::model::train::{self, data, Example, Head, Params, PARAMS};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("model")
}

fn print_confusion(names: &[&str], m: &[Vec<usize>]) {
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

fn cv(ex: &[Example], p: &Params, folds: u64) -> (f64, Vec<Vec<usize>>) {
    let c = p.classes;
    let mut total = vec![vec![0usize; c]; c];
    for k in 0..folds {
        let (test, fit): (Vec<Example>, Vec<Example>) = ex
            .iter()
            .cloned()
            .partition(|e| train::fold_of(&e.id, folds) == k);
        let w = train::train(&fit, p);
        let (_, m) = train::evaluate(&w, &test);
        for (t, r) in total.iter_mut().zip(&m) {
            for (a, b) in t.iter_mut().zip(r) {
                *a += b;
            }
        }
    }
    let ok: usize = (0..c).map(|i| total[i][i]).sum();
    let all: usize = total.iter().flatten().sum();
    (ok as f64 / all.max(1) as f64, total)
}

/// Every example ranked by the head trained on the other four of five
/// folds (for `--sweep` and `--errors`).
fn cv_ranks(ex: &[Example], p: &Params) -> Vec<(Example, engram_guest::write::model::Ranked)> {
    let mut out = Vec::new();
    for k in 0..5 {
        let (held, fit): (Vec<Example>, Vec<Example>) = ex
            .iter()
            .cloned()
            .partition(|e| train::fold_of(&e.id, 5) == k);
        let bytes = train::train(&fit, p);
        let Ok(w) = engram_guest::write::model::blob::Weights::parse(&bytes) else {
            continue;
        };
        for e in held {
            let f = engram_guest::write::model::Features::from_ids(e.ids.clone(), e.text);
            let r = engram_guest::write::model::rank(&w, &f, 0);
            out.push((e, r));
        }
    }
    out
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
fn settings(args: &[String], head: &Head) -> Params {
    let mut p = head.params;
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
                "buckets" => p.buckets = x as u32,
                _ => eprintln!("unknown setting {k}"),
            }
        }
    }
    p
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args
        .iter()
        .position(|a| a == "--head")
        .and_then(|i| args.get(i + 1))
        .map_or("kind", String::as_str);
    let Some(head) = train::head(name) else {
        eprintln!("no head named {name}");
        std::process::exit(2);
    };
    let params = settings(&args, head);
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
    let all = train::examples_for(&rows, train::FEATURE_BUCKETS, &policy, |_| Some(0));
    let ex = train::relabel(&rows, &all, head.label);
    let featurise = t0.elapsed();
    if let Some(i) = args.iter().position(|a| a == "--cv") {
        let folds = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(5);
        let (acc, m) = cv(&ex, &params, folds);
        println!(
            "{folds}-fold CV on {} training lines: {} accuracy {acc:.3}",
            ex.len(),
            head.name
        );
        print_confusion(head.classes, &m);
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
                            ..head.params
                        };
                        let (acc, _) = cv(&ex, &p, 5);
                        println!("epochs {epochs:>2} rate {rate:.2} balance {balance:.1} file_balance {file_balance:.1}: CV {} accuracy {acc:.3}", head.name);
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
    } else if args.iter().any(|a| a == "--sweep") {
        // For heads whose class 0 is "nothing": cross-validated recall of
        // the other classes and false positives among class-0 lines, at
        // several thresholds on the lead over class 0 (in logits).
        let leads: Vec<(bool, f64)> = cv_ranks(&ex, &params)
            .into_iter()
            .map(|(e, r)| {
                let lead = if r.best == 0 {
                    f64::NEG_INFINITY
                } else {
                    r.scores[r.best] - r.scores[0]
                };
                (e.label != 0, lead)
            })
            .collect();
        let pos = leads.iter().filter(|l| l.0).count().max(1);
        let neg = leads.iter().filter(|l| !l.0).count().max(1);
        for t in [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0] {
            let tp = leads.iter().filter(|l| l.0 && l.1 >= t).count();
            let fp = leads.iter().filter(|l| !l.0 && l.1 >= t).count();
            println!(
                "lead >= {t:.1}: recall {:.3} ({tp}/{pos}), false positives {:.3} ({fp}/{neg})",
                tp as f64 / pos as f64,
                fp as f64 / neg as f64
            );
        }
    } else if args.iter().any(|a| a == "--errors") {
        // The head's cross-validated mistakes, one line each: id, expected,
        // got, text (for reading the data, never for the test split).
        let text: std::collections::BTreeMap<&str, &str> = rows
            .iter()
            .map(|r| (r.id.as_str(), r.candidate.text.as_str()))
            .collect();
        for (e, r) in cv_ranks(&ex, &params) {
            if r.best != e.label {
                println!(
                    "{}\t{}\t{}\t{}",
                    e.id,
                    head.classes[e.label],
                    head.classes[r.best],
                    text.get(e.id.as_str()).unwrap_or(&"")
                );
            }
        }
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
        let mut m = vec![vec![0usize; 5]; 5];
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
        print_confusion(train::KIND.classes, &m);
    } else if args.iter().any(|a| a == "--test") {
        let w = train::train(&ex, &head.params);
        let test = train::examples_for(&test_rows, train::FEATURE_BUCKETS, &policy, head.label);
        let (acc, m) = train::evaluate(&w, &test);
        println!(
            "untouched split ({} lines): model {} accuracy {acc:.3}",
            test.len(),
            head.name
        );
        print_confusion(head.classes, &m);
    } else {
        for h in train::HEADS {
            let t1 = Instant::now();
            let hx = train::relabel(&rows, &all, h.label);
            let w = train::train(&hx, &h.params);
            let path = root().join(h.file);
            if let Err(e) = std::fs::write(&path, &w) {
                eprintln!("{}: {e}", path.display());
                std::process::exit(1);
            }
            println!(
                "{} head, {} training lines: features {:.2}s, training {:.2}s; wrote {} ({} bytes)",
                h.name,
                hx.len(),
                featurise.as_secs_f64(),
                t1.elapsed().as_secs_f64(),
                path.display(),
                w.len()
            );
        }
    }
}
