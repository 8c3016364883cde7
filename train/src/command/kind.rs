//! `engram-train kind`: the heads trained on `guest/model/data/` (the kind
//! head and the sensitive-data head). With no option it rebuilds every
//! head's weight file in `guest/model/`; an option measures the recipe:
//!
//! ```text
//! engram-train kind --cv 5                      # k-fold CV on the training part
//! engram-train kind --grid                      # CV over a small settings grid
//! engram-train kind --test                      # the untouched split, once
//! engram-train kind --head sensitive --sweep    # recall / false positives by margin
//! engram-train kind --head sensitive --errors   # cross-validated mistakes
//! engram-train kind --rules                     # the ordered rules alone
//! engram-train kind --explain FILE…             # rules vs model per line
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use clap::ArgGroup;
use engram_guest::core::config::Policy;
use engram_guest::core::model::source_label;
use engram_guest::write::classify::{classify, model_features, rule_kind};
use engram_guest::write::model::{blob, decide, decide_with, kind_index, Features, WEIGHTS};

use super::settings;
use crate::data::{self, Labelled};
use crate::featurise::{clock_of, examples_for, features_of, relabel};
use crate::heads::{self, Head, FEATURE_BUCKETS, HEADS, KIND};
use crate::measure::{cv, cv_ranks, evaluate, fold_of};
use crate::recipe::{train, Params};

#[derive(clap::Args, Debug)]
#[command(group(ArgGroup::new("measure").multiple(false)))]
pub struct Args {
    /// The head the options measure (kind, sensitive).
    #[arg(long, default_value = "kind", value_name = "NAME")]
    head: String,
    /// Settings other than the head's own, e.g. epochs=30,rate=0.05
    /// (epochs, rate, l2, balance, file_balance, average_text, buckets).
    #[arg(long, value_name = "NAME=VALUE,…")]
    set: Option<String>,
    /// k-fold cross-validation on the training part: accuracy and confusion.
    #[arg(long, group = "measure", value_name = "FOLDS", num_args = 0..=1, default_missing_value = "5")]
    cv: Option<u64>,
    /// Cross-validation over a small grid of settings.
    #[arg(long, group = "measure")]
    grid: bool,
    /// Train on the training part, then print rules vs model for every
    /// line of these labelled files or folders.
    #[arg(long, group = "measure", value_name = "PATH", num_args = 1..)]
    explain: Vec<PathBuf>,
    /// Rules vs model for every training line, from the fold that left it out.
    #[arg(long, group = "measure")]
    explain_cv: bool,
    /// For a head whose class 0 is "nothing": cross-validated recall and
    /// false positives by the lead over class 0.
    #[arg(long, group = "measure")]
    sweep: bool,
    /// The head's cross-validated mistakes: id, expected, got, text.
    #[arg(long, group = "measure")]
    errors: bool,
    /// Native cost per candidate: the rule scan, the model's part, classify.
    #[arg(long, group = "measure")]
    timing: bool,
    /// The ordered rules alone on the training part (the baseline).
    #[arg(long, group = "measure")]
    rules: bool,
    /// The untouched test split, scored once.
    #[arg(long, group = "measure")]
    test: bool,
}

pub fn run(a: &Args) -> Result<(), String> {
    let head = heads::head(&a.head).ok_or_else(|| {
        let names: Vec<&str> = HEADS.iter().map(|h| h.name).collect();
        format!("no head named {} (heads: {})", a.head, names.join(", "))
    })?;
    let params = match &a.set {
        Some(spec) => settings::apply(head.params, spec)?,
        None => head.params,
    };
    let (rows, test_rows) = data::load_split(&data::model_dir().join("data"))?;
    let policy = Policy::default();
    let t0 = Instant::now();
    let all = examples_for(&rows, FEATURE_BUCKETS, &policy, |_| Some(0));
    let ex = relabel(&rows, &all, head.label);
    let featurise = t0.elapsed().as_secs_f64();
    if let Some(folds) = a.cv {
        let (acc, m) = cv(&ex, &params, folds);
        println!(
            "{folds}-fold CV on {} training lines: {} accuracy {acc:.3}",
            ex.len(),
            head.name
        );
        print_confusion(head.classes, &m);
    } else if a.grid {
        grid(&ex, head);
    } else if !a.explain.is_empty() {
        let w = train(&ex, &params);
        let mut out = String::new();
        for p in &a.explain {
            let rows = if p.is_dir() {
                data::load(p)
            } else {
                data::load_file(p)
            }?;
            explain(&rows, &w, &policy, &mut out);
        }
        print!("{out}");
    } else if a.explain_cv {
        let mut out = String::new();
        for k in 0..5 {
            let (held, fit): (Vec<Labelled>, Vec<Labelled>) =
                rows.iter().cloned().partition(|r| fold_of(&r.id, 5) == k);
            let fit = examples_for(&fit, FEATURE_BUCKETS, &policy, KIND.label);
            explain(&held, &train(&fit, &params), &policy, &mut out);
        }
        print!("{out}");
    } else if a.sweep {
        sweep(&ex, &params);
    } else if a.errors {
        let text: BTreeMap<&str, &str> = rows
            .iter()
            .map(|r| (r.id.as_str(), r.candidate.text.as_str()))
            .collect();
        for (e, r) in cv_ranks(&ex, &params) {
            if r.best != e.label {
                let name = |i: usize| head.classes.get(i).copied().unwrap_or("?");
                println!(
                    "{}\t{}\t{}\t{}",
                    e.id,
                    name(e.label),
                    name(r.best),
                    text.get(e.id.as_str()).unwrap_or(&"")
                );
            }
        }
    } else if a.timing {
        timing(&rows, &policy);
    } else if a.rules {
        rules(&rows, &policy);
    } else if a.test {
        let w = train(&ex, &params);
        let test = examples_for(&test_rows, FEATURE_BUCKETS, &policy, head.label);
        let (acc, m) = evaluate(&w, &test);
        println!(
            "untouched split ({} lines): model {} accuracy {acc:.3}",
            test.len(),
            head.name
        );
        print_confusion(head.classes, &m);
    } else {
        for h in HEADS {
            let t1 = Instant::now();
            let hx = relabel(&rows, &all, h.label);
            let w = train(&hx, &h.params);
            let path = data::model_dir().join(h.file);
            std::fs::write(&path, &w).map_err(|e| format!("{}: {e}", path.display()))?;
            println!(
                "{} head, {} training lines: features {featurise:.2}s, training {:.2}s; wrote {} ({} bytes)",
                h.name,
                hx.len(),
                t1.elapsed().as_secs_f64(),
                path.display(),
                w.len()
            );
        }
    }
    Ok(())
}

fn print_confusion(names: &[&str], m: &[Vec<usize>]) {
    print!("{:>12}", "expected\\got");
    for n in names {
        print!("{n:>11}");
    }
    println!();
    for (name, row) in names.iter().zip(m) {
        print!("{name:>12}");
        for c in row {
            print!("{c:>11}");
        }
        println!();
    }
}

fn grid(ex: &[crate::recipe::Example], head: &Head) {
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
                    let (acc, _) = cv(ex, &p, 5);
                    println!("epochs {epochs:>2} rate {rate:.2} balance {balance:.1} file_balance {file_balance:.1}: CV {} accuracy {acc:.3}", head.name);
                }
            }
        }
    }
}

/// Cross-validated recall of the classes other than 0 and false positives
/// among class-0 lines, at several thresholds on the lead over class 0 (in
/// logits).
fn sweep(ex: &[crate::recipe::Example], params: &Params) {
    let leads: Vec<(bool, f64)> = cv_ranks(ex, params)
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
}

/// One line per candidate: id, expected kind, the rules' kind, the model's
/// kind and margin (for choosing how far the model may overrule the rules).
fn explain(rows: &[Labelled], w: &[u8], policy: &Policy, out: &mut String) {
    let Ok(weights) = blob::Weights::parse(w) else {
        return;
    };
    for r in rows {
        let (rule, strong) = rule_kind(&r.candidate, clock_of(&r.candidate), policy);
        let full = features_of(&r.candidate, KIND.params.buckets, policy);
        let f = Features::from_ids(full.ids().to_vec(), full.text_count());
        let d = decide_with(&weights, &f, 0);
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{:.3}\t{}\t{}\t{}\n",
            r.id,
            r.kind.map_or("*", |k| k.name()),
            rule.name(),
            d.kind.name(),
            d.margin,
            r.file,
            strong,
            source_label(r.candidate.source.kind)
        ));
    }
}

/// Native cost per candidate: the rule scan alone, the model's part
/// (features + decision), and the whole of `classify`, interleaved.
fn timing(rows: &[Labelled], policy: &Policy) {
    let (mut scan, mut model, mut whole) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..3 {
        for r in rows {
            let now = clock_of(&r.candidate);
            let t = Instant::now();
            std::hint::black_box(rule_kind(&r.candidate, now, policy));
            scan.push(t.elapsed().as_secs_f64() * 1e6);
            let t = Instant::now();
            let f = model_features(&r.candidate, now, policy, WEIGHTS.buckets());
            std::hint::black_box(decide(&f));
            model.push(t.elapsed().as_secs_f64() * 1e6);
            let t = Instant::now();
            std::hint::black_box(classify(&r.candidate, now, policy));
            whole.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    let (s, m, w) = (median(&mut scan), median(&mut model), median(&mut whole));
    println!(
        "native µs per candidate (median of {}): rule scan {s:.1}; scan + features + decision {m:.1} (model part ≈ {:.1}); classify {w:.1}",
        scan.len(),
        m - s
    );
}

/// The ordered rules alone, on the training part (the baseline).
fn rules(rows: &[Labelled], policy: &Policy) {
    let n = KIND.classes.len();
    let mut m = vec![vec![0usize; n]; n];
    let mut scored = 0;
    for r in rows {
        let Some(want) = r.kind else { continue };
        let (got, _) = rule_kind(&r.candidate, clock_of(&r.candidate), policy);
        m[kind_index(want)][kind_index(got)] += 1;
        scored += 1;
    }
    let ok: usize = (0..n).map(|i| m[i][i]).sum();
    println!(
        "rules alone on {scored} training lines: kind accuracy {:.3}",
        ok as f64 / scored.max(1) as f64
    );
    print_confusion(KIND.classes, &m);
}
