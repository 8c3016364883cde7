//! What the end-to-end tests need from outside the workspace, provisioned by
//! the tests themselves so that `cargo test` works on a fresh machine:
//! Debian packages (PostgreSQL, Chromium), the Node driver for Chromium
//! (`playwright-core` from npm) and Python virtualenvs (pip).
//!
//! Nothing here skips: when something cannot be installed the calling test
//! panics with what was tried and how to fix it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

/// Scratch space shared by every test binary of this build
/// (`target/<profile>/engram-provision`), for installs that outlive a run.
pub fn cache_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // Test binaries live in target/<profile>/deps/.
        let exe = std::env::current_exe().expect("the test binary's path");
        let profile = exe
            .parent()
            .and_then(Path::parent)
            .expect("the test binary lives in target/<profile>/deps");
        let dir = profile.join("engram-provision");
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        dir
    })
    .clone()
}

/// Runs a command and panics, with its output, if it fails.
pub fn run(cmd: &mut Command, what: &str) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: could not start {:?}: {e}", cmd.get_program()));
    if !out.status.success() {
        panic!(
            "{what} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out
}

/// `program --version` as text, or why it is unusable.
pub fn version_of(program: &str) -> Result<String, String> {
    match Command::new(program).arg("--version").output() {
        Ok(o) if o.status.success() => Ok(format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
        .trim()
        .to_string()),
        Ok(o) => Err(format!("`{program} --version` exited with {}", o.status)),
        Err(e) => Err(format!("`{program}` was not found on PATH ({e})")),
    }
}

/// The first `major.minor` in a version string.
pub fn major_minor(text: &str) -> Option<(u32, u32)> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let mut parts = text[start..]
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??))
}

/// A lock directory shared between processes (test binaries run in
/// parallel and may provision the same thing); stale after 20 minutes.
pub struct DirLock(PathBuf);

impl DirLock {
    pub fn acquire(path: PathBuf) -> DirLock {
        let start = Instant::now();
        loop {
            match std::fs::create_dir(&path) {
                Ok(()) => return DirLock(path),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let age = std::fs::metadata(&path)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| SystemTime::now().duration_since(t).ok())
                        .unwrap_or_default();
                    if age > Duration::from_secs(20 * 60) {
                        let _ = std::fs::remove_dir(&path);
                    } else if start.elapsed() > Duration::from_secs(30 * 60) {
                        panic!("waited 30 minutes for the install lock {}", path.display());
                    } else {
                        std::thread::sleep(Duration::from_millis(250));
                    }
                }
                Err(e) => panic!("cannot create the install lock {}: {e}", path.display()),
            }
        }
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

fn installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .map(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("ok installed"))
        .unwrap_or(false)
}

pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// Installs Debian packages that are missing (as root, or through
/// `sudo -n`). Panics, naming the packages, when that is impossible.
pub fn debian(packages: &[&str]) {
    if packages.iter().all(|p| installed(p)) {
        return;
    }
    // One installer at a time across every test binary and target dir.
    let _lock = DirLock::acquire(std::env::temp_dir().join("engram-apt.lock"));
    let missing: Vec<&str> = packages.iter().copied().filter(|p| !installed(p)).collect();
    if missing.is_empty() {
        return;
    }
    let apt = |args: &[&str]| -> Result<(), String> {
        let mut cmd = if is_root() {
            Command::new("apt-get")
        } else {
            let mut c = Command::new("sudo");
            c.args(["-n", "apt-get"]);
            c
        };
        cmd.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        match cmd.output() {
            Ok(o) if o.status.success() => Ok(()),
            Ok(o) => Err(format!(
                "apt-get {} exited with {}: {}",
                args.join(" "),
                o.status,
                String::from_utf8_lossy(&o.stderr).trim()
            )),
            Err(e) => Err(format!("could not run apt-get: {e}")),
        }
    };
    let t = Instant::now();
    eprintln!("provision: apt-get install {}…", missing.join(" "));
    let mut install = vec!["install", "-y", "-q", "--no-install-recommends"];
    install.extend(&missing);
    // Package lists may be absent on a fresh machine: update, then retry.
    if apt(&install).is_err() {
        if let Err(e) = apt(&["update", "-q"]) {
            panic!(
                "cannot install the Debian packages {missing:?} this test needs: {e}. \
                 Install them (apt-get install {}) and rerun.",
                missing.join(" ")
            );
        }
        if let Err(e) = apt(&install) {
            panic!(
                "cannot install the Debian packages {missing:?} this test needs: {e}. \
                 Install them (apt-get install {}) and rerun.",
                missing.join(" ")
            );
        }
    }
    eprintln!(
        "provision: installed {} in {:.1?}",
        missing.join(" "),
        t.elapsed()
    );
}

/// Debian's Chromium, installed if missing, with a CJK font (without one
/// Chinese text renders as empty boxes): the path of its binary.
pub fn chromium() -> PathBuf {
    debian(&["chromium", "fonts-wqy-microhei"]);
    for candidate in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] {
        if Path::new(candidate).exists() {
            return PathBuf::from(candidate);
        }
    }
    panic!("the chromium package is installed but no /usr/bin/chromium was found")
}

/// The version of `playwright-core` the browser tests drive Chromium with
/// (its own browser download is not used: `executablePath` points at
/// Debian's Chromium).
pub const PLAYWRIGHT_CORE: &str = "1.65.1";

/// A directory whose `node_modules` holds `playwright-core`; run Node
/// scripts with it as `NODE_PATH` (`<dir>/node_modules`) or cwd.
pub fn playwright_core() -> PathBuf {
    let version = version_of("node")
        .unwrap_or_else(|e| panic!("the browser tests need Node.js ≥ 20 on PATH: {e}"));
    match major_minor(&version) {
        Some((major, _)) if major >= 20 => {}
        _ => panic!("the browser tests need Node.js ≥ 20, found {version:?}"),
    }
    let dir = cache_dir().join("playwright");
    std::fs::create_dir_all(&dir).expect("create the playwright directory");
    let _lock = DirLock::acquire(cache_dir().join("playwright.lock"));
    let manifest = dir.join("node_modules/playwright-core/package.json");
    let have = std::fs::read_to_string(&manifest)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["version"].as_str().map(str::to_string));
    if have.as_deref() != Some(PLAYWRIGHT_CORE) {
        let t = Instant::now();
        eprintln!("provision: npm install playwright-core@{PLAYWRIGHT_CORE}…");
        std::fs::write(
            dir.join("package.json"),
            "{\"name\":\"engram-browser-tests\",\"private\":true}\n",
        )
        .expect("write package.json");
        run(
            Command::new("npm")
                .current_dir(&dir)
                .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
                .args([
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--save-exact",
                    &format!("playwright-core@{PLAYWRIGHT_CORE}"),
                ]),
            "npm install playwright-core",
        );
        eprintln!(
            "provision: playwright-core installed in {:.1?}",
            t.elapsed()
        );
    }
    dir
}

/// A Python virtualenv under the cache directory named `name`, with
/// `requirements` (pip requirement lines) installed; returns its
/// interpreter. Reinstalled when the requirements change.
pub fn python_venv(name: &str, requirements: &str) -> PathBuf {
    let version = version_of("python3").unwrap_or_else(|e| {
        panic!("this test needs Python ≥ 3.9 (with pip and venv) on PATH as `python3`: {e}")
    });
    match major_minor(&version) {
        Some((3, minor)) if minor >= 9 => {}
        _ => panic!("this test needs Python ≥ 3.9, found {version:?}"),
    }
    let root = cache_dir();
    let _lock = DirLock::acquire(root.join(format!("{name}.lock")));
    let venv = root.join(name);
    let python = venv.join("bin/python");
    let stamp = venv.join("engram-requirements.txt");
    if python.exists() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(requirements) {
        return python;
    }
    let t = Instant::now();
    let _ = std::fs::remove_dir_all(&venv);
    run(
        Command::new("python3").args(["-m", "venv"]).arg(&venv),
        "python3 -m venv (on Debian: apt-get install python3-venv)",
    );
    let reqs = root.join(format!("{name}-requirements.txt"));
    std::fs::write(&reqs, requirements).expect("write the requirements file");
    eprintln!("provision: pip install into {}…", venv.display());
    run(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "-q",
                "-r",
            ])
            .arg(&reqs),
        &format!("pip install into the {name} virtualenv"),
    );
    std::fs::write(&stamp, requirements).expect("write the requirements stamp");
    eprintln!("provision: {name} virtualenv ready in {:.1?}", t.elapsed());
    python
}
