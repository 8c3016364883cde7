//! `engram-train eval`: the evaluation sets scored through the native
//! policy, one line per set with its floors (`train/eval-floors.txt`); fails
//! when a set falls below one. The test `eval_floors` runs the same.

pub fn run() -> Result<(), String> {
    let (lines, failures) = crate::eval::run()?;
    for l in &lines {
        println!("{l}");
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("below the floors:\n{}", failures.join("\n")))
    }
}
