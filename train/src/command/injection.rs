//! `engram-train injection`: the learned injection detector. With no
//! option it rebuilds `guest/model/injection.bin` from
//! `guest/model/injection/data/`; an option measures the recipe:
//!
//! ```text
//! engram-train injection --cv 5             # grouped k-fold CV: recall and false positives by threshold
//! engram-train injection --cv 5 --misses    # …and the documents it gets wrong
//! engram-train injection --grid             # CV over a small settings grid
//! engram-train injection --set epochs=8,l2=1e-4 --cv 5
//! engram-train injection --explain "TEXT"…  # each text scored as a tool output
//! ```

use std::collections::BTreeSet;
use std::time::Instant;

use clap::ArgGroup;
use engram_guest::analysis::cues::fold;
use engram_guest::core::config::Policy;
use engram_guest::write::model::blob::Weights;
use engram_guest::write::model::injection::{scan_with, Via, THRESHOLD};

use super::settings;
use crate::data;
use crate::injection::{self as inj, Doc, Segmented, FILE, PARAMS};
use crate::measure::fold_of;
use crate::recipe::Params;

#[derive(clap::Args, Debug)]
#[command(group(ArgGroup::new("measure").multiple(false)))]
pub struct Args {
    /// Settings other than the shipped ones, e.g. epochs=8,l2=1e-4.
    #[arg(long, value_name = "NAME=VALUE,…")]
    set: Option<String>,
    /// Grouped k-fold cross-validation: recall and false positives by
    /// threshold, per data file.
    #[arg(long, group = "measure", value_name = "FOLDS", num_args = 0..=1, default_missing_value = "5")]
    cv: Option<u64>,
    /// With --cv: the documents missed and the false positives, one line each.
    #[arg(long, requires = "cv")]
    misses: bool,
    /// Cross-validation over a small grid of settings.
    #[arg(long, group = "measure")]
    grid: bool,
    /// Train on every document, then score each text as a tool's output,
    /// segment by segment.
    #[arg(long, group = "measure", value_name = "TEXT", num_args = 1..)]
    explain: Vec<String>,
}

const THRESHOLDS: [f64; 7] = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0];

pub fn run(a: &Args) -> Result<(), String> {
    let params = match &a.set {
        Some(spec) => settings::apply(PARAMS, spec)?,
        None => PARAMS,
    };
    let t0 = Instant::now();
    let docs = inj::load(&inj::data_dir())?;
    let segs = inj::segment(&docs, params.buckets, &Policy::default())?;
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
    if let Some(folds) = a.cv {
        let logits = cv_logits(&docs, &segs, &params, folds);
        println!("{folds}-fold CV grouped by template/document (shipped threshold {THRESHOLD}):");
        report(&docs, &logits);
        if a.misses {
            misses(&docs, &logits);
        }
    } else if !a.explain.is_empty() {
        let w = inj::train(&docs, &segs, &params);
        let weights = Weights::parse(&w).map_err(|e| format!("the trained weights: {e}"))?;
        for t in &a.explain {
            let f = fold(t);
            match scan_with(&weights, &f, &[(0, f.len())], Via::Tool) {
                Some(v) => println!(
                    "{:6.2}  '{}'  {}",
                    v.logit,
                    f.get(v.start..v.end).unwrap_or(""),
                    v.describe()
                ),
                None => println!("  none  {t}"),
            }
        }
    } else if a.grid {
        grid(&docs, &segs, &params);
    } else {
        let t1 = Instant::now();
        let w = inj::train(&docs, &segs, &params);
        let path = data::model_dir().join(FILE);
        std::fs::write(&path, &w).map_err(|e| format!("{}: {e}", path.display()))?;
        println!(
            "{} documents, {n_seg} segments: training {:.2}s; wrote {} ({} bytes)",
            docs.len(),
            t1.elapsed().as_secs_f64(),
            path.display(),
            w.len()
        );
    }
    Ok(())
}

/// Each document's best-segment logit from the fold that left it out.
fn cv_logits(docs: &[Doc], segs: &[Segmented], p: &Params, folds: u64) -> Vec<f64> {
    let mut out = vec![0.0; segs.len()];
    let group = |s: &Segmented| docs.get(s.doc).map_or("", |d| d.group.as_str());
    for k in 0..folds {
        let (held, fit): (Vec<Segmented>, Vec<Segmented>) = segs
            .iter()
            .cloned()
            .partition(|s| fold_of(group(s), folds) == k);
        let w = inj::train(docs, &fit, p);
        for (s, l) in held.iter().zip(inj::doc_logits(&w, &held)) {
            if let Some(slot) = out.get_mut(s.doc) {
                *slot = l;
            }
        }
    }
    out
}

/// Recall on documents with an injection and false positives on the rest,
/// by threshold; per file.
fn report(docs: &[Doc], logits: &[f64]) {
    let files: BTreeSet<&str> = docs.iter().map(|d| d.file.as_str()).collect();
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

fn misses(docs: &[Doc], logits: &[f64]) {
    for (d, l) in docs.iter().zip(logits) {
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

fn grid(docs: &[Doc], segs: &[Segmented], params: &Params) {
    for epochs in [6, 12] {
        for l2 in [1e-5, 1e-4] {
            for balance in [0.0, 0.5, 1.0] {
                let p = Params {
                    epochs,
                    l2,
                    balance,
                    ..*params
                };
                let logits = cv_logits(docs, segs, &p, 5);
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
}
