//! `--set epochs=30,rate=0.05,…`: training settings other than the shipped
//! ones (for exploring the recipe; the shipped weights use the heads' own).

use crate::recipe::Params;

/// `p` with the settings of `spec` applied.
pub fn apply(mut p: Params, spec: &str) -> Result<Params, String> {
    for kv in spec.split(',').filter(|s| !s.is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("--set {kv}: want NAME=VALUE"))?;
        let bad = || format!("--set {k}={v}: not a number");
        let x: f64 = v.parse().map_err(|_| bad())?;
        let count = || v.parse::<u32>().map_err(|_| bad());
        match k {
            "epochs" => p.epochs = count()? as usize,
            "rate" => p.rate = x,
            "l2" => p.l2 = x,
            "balance" => p.balance = x,
            "file_balance" => p.file_balance = x,
            "average_text" => p.average_text = x != 0.0,
            "buckets" if count()?.is_power_of_two() => p.buckets = count()?,
            "buckets" => return Err(format!("--set buckets={v}: not a power of two")),
            _ => {
                return Err(format!(
                    "--set {k}: no such setting (epochs, rate, l2, balance, file_balance, average_text, buckets)"
                ))
            }
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heads::KIND;

    #[test]
    fn settings_apply_and_refuse_what_they_do_not_know() {
        let p = apply(KIND.params, "epochs=30,rate=0.05").unwrap();
        assert_eq!((p.epochs, p.rate), (30, 0.05));
        assert_eq!(p.l2, KIND.params.l2);
        assert!(apply(KIND.params, "epoch=3").is_err());
        assert!(apply(KIND.params, "rate=fast").is_err());
        assert!(apply(KIND.params, "buckets=1000").is_err());
    }
}
