//! Import circles between the modules of a crate.
//!
//! A module *refers to* another when its code names it: a `use` or any
//! path through `crate::`, `super::`, `self::`, a child module's name or a
//! name a `use` bound to a module. The crate root is a module like any
//! other. `mod x;` declarations are not references (a parent always
//! declares its children), and `#[cfg(test)]` items are left out (a test
//! module may reach anywhere). A circle is a set of modules each reachable
//! from every other through references: the layout then no longer says
//! which concept sits on which.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A module, by its path from the crate root (`[]` is the root).
type ModPath = Vec<String>;

/// One reference: where it is written and what it names.
#[derive(Debug, Clone)]
pub struct Reference {
    pub from: ModPath,
    pub to: ModPath,
    pub file: PathBuf,
    pub line: usize,
}

/// A circle: the modules in it, and one cycle through them with the line
/// of each step.
#[derive(Debug, Clone)]
pub struct Circle {
    pub krate: PathBuf,
    pub modules: Vec<String>,
    pub cycle: Vec<Reference>,
}

fn name(p: &[String]) -> String {
    if p.is_empty() {
        "crate".into()
    } else {
        p.join("::")
    }
}

impl fmt::Display for Circle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} modules in a circle: {}",
            self.krate.display(),
            self.modules.len(),
            self.modules.join(", ")
        )?;
        for r in &self.cycle {
            writeln!(
                f,
                "    {} -> {}   ({}:{})",
                name(&r.from),
                name(&r.to),
                r.file.display(),
                r.line
            )?;
        }
        Ok(())
    }
}

struct Module {
    file: PathBuf,
    /// The module of the file this one is written in: an inline `mod x
    /// { … }` is part of its file's module (the layout is files).
    node: ModPath,
    items: Vec<syn::Item>,
    children: BTreeSet<String>,
}

/// Is this item compiled only for tests?
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && {
            let mut found = false;
            let _ = a.parse_nested_meta(|m| {
                if m.path.is_ident("test") {
                    found = true;
                }
                // `all(test, …)`: look one level in.
                if m.input.peek(syn::token::Paren) {
                    let _ = m.parse_nested_meta(|n| {
                        if n.path.is_ident("test") {
                            found = true;
                        }
                        Ok(())
                    });
                }
                Ok(())
            });
            found
        }
    })
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

struct Crate {
    modules: BTreeMap<ModPath, Module>,
}

impl Crate {
    fn load(root: &Path) -> Result<Crate, String> {
        let mut c = Crate {
            modules: BTreeMap::new(),
        };
        let dir = root.parent().unwrap_or(Path::new(".")).to_path_buf();
        c.load_file(root, Vec::new(), &dir)?;
        Ok(c)
    }

    fn load_file(&mut self, file: &Path, at: ModPath, child_dir: &Path) -> Result<(), String> {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let parsed = syn::parse_file(&text).map_err(|e| {
            let l = e.span().start().line;
            format!("{}:{l}: {e}", file.display())
        })?;
        let node = at.clone();
        self.add_module(file, at, node, parsed.items, child_dir)
    }

    fn add_module(
        &mut self,
        file: &Path,
        at: ModPath,
        node: ModPath,
        items: Vec<syn::Item>,
        child_dir: &Path,
    ) -> Result<(), String> {
        let mut kept = Vec::new();
        let mut children = BTreeSet::new();
        let mut nested = Vec::new();
        for item in items {
            if let syn::Item::Mod(m) = &item {
                if test_only(&m.attrs) {
                    continue;
                }
                let name = m.ident.to_string();
                children.insert(name.clone());
                let mut path = at.clone();
                path.push(name.clone());
                match &m.content {
                    Some((_, inner)) => nested.push((
                        file.to_path_buf(),
                        path,
                        inner.clone(),
                        child_dir.join(&name),
                    )),
                    None => {
                        let here = file.parent().unwrap_or(Path::new("."));
                        let (f, d) = match path_attr(&m.attrs) {
                            Some(p) => {
                                let f = here.join(p);
                                let d = f.with_extension("");
                                (f, d)
                            }
                            None => {
                                let flat = child_dir.join(format!("{name}.rs"));
                                if flat.exists() {
                                    (flat, child_dir.join(&name))
                                } else {
                                    (child_dir.join(&name).join("mod.rs"), child_dir.join(&name))
                                }
                            }
                        };
                        nested.push((f, path, Vec::new(), d));
                    }
                }
                continue;
            }
            if item_test_only(&item) {
                continue;
            }
            kept.push(item);
        }
        self.modules.insert(
            at,
            Module {
                file: file.to_path_buf(),
                node: node.clone(),
                items: kept,
                children,
            },
        );
        for (f, path, inner, d) in nested {
            if inner.is_empty() && f != file {
                self.load_file(&f, path, &d)?;
            } else {
                self.add_module(&f, path, node.clone(), inner, &d)?;
            }
        }
        Ok(())
    }

    /// Every reference of every module to another module.
    fn references(&self) -> Vec<Reference> {
        let mut out = Vec::new();
        for (at, m) in &self.modules {
            let mut paths = Paths::default();
            for item in &m.items {
                paths.visit_item(item);
            }
            // Names a `use` binds to a module (`use crate::write;`).
            let mut aliases: BTreeMap<String, ModPath> = BTreeMap::new();
            for (segs, rename, _) in &paths.uses {
                if let Some(target) = self.resolve(at, segs, &BTreeMap::new(), true) {
                    if let Some(last) = rename.clone().or_else(|| segs.last().cloned()) {
                        if last != "*" && last != "self" {
                            aliases.insert(last, target);
                        }
                    }
                }
            }
            let all = paths
                .uses
                .iter()
                .map(|(s, _, l)| (s, *l))
                .chain(paths.paths.iter().map(|(s, l)| (s, *l)));
            for (segs, line) in all {
                if let Some(to) = self.resolve(at, segs, &aliases, false) {
                    let to = self.modules[&to].node.clone();
                    if to != m.node {
                        out.push(Reference {
                            from: m.node.clone(),
                            to,
                            file: m.file.clone(),
                            line,
                        });
                    }
                }
            }
        }
        out
    }

    /// The deepest module a path names, if it names one of this crate's.
    /// `whole`: only when every segment is a module (for aliases).
    fn resolve(
        &self,
        at: &ModPath,
        segs: &[String],
        aliases: &BTreeMap<String, ModPath>,
        whole: bool,
    ) -> Option<ModPath> {
        let first = segs.first()?;
        let (mut cur, rest): (ModPath, &[String]) = match first.as_str() {
            "crate" => (Vec::new(), &segs[1..]),
            "self" => (at.clone(), &segs[1..]),
            "super" => {
                let mut cur = at.clone();
                let mut i = 0;
                while segs.get(i).map(String::as_str) == Some("super") {
                    cur.pop()?;
                    i += 1;
                }
                (cur, &segs[i..])
            }
            _ => {
                if self.modules[at].children.contains(first) {
                    (at.clone(), segs)
                } else if let Some(t) = aliases.get(first) {
                    (t.clone(), &segs[1..])
                } else {
                    return None;
                }
            }
        };
        for s in rest {
            let mut next = cur.clone();
            next.push(s.clone());
            if self.modules.contains_key(&next) {
                cur = next;
            } else {
                if whole {
                    return None;
                }
                break;
            }
        }
        Some(cur)
    }
}

fn item_test_only(item: &syn::Item) -> bool {
    let attrs = match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        _ => return false,
    };
    test_only(attrs)
}

/// The paths written in a module: `use` trees flattened (with the name a
/// `use` binds) and every other path.
#[derive(Default)]
struct Paths {
    uses: Vec<(Vec<String>, Option<String>, usize)>,
    paths: Vec<(Vec<String>, usize)>,
}

impl Paths {
    fn flatten(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree, line: usize) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.flatten(prefix, &p.tree, line);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut s = prefix.clone();
                s.push(n.ident.to_string());
                self.uses.push((s, None, line));
            }
            syn::UseTree::Rename(r) => {
                let mut s = prefix.clone();
                s.push(r.ident.to_string());
                self.uses.push((s, Some(r.rename.to_string()), line));
            }
            syn::UseTree::Glob(_) => {
                let mut s = prefix.clone();
                s.push("*".into());
                self.uses.push((s, None, line));
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.flatten(prefix, t, line);
                }
            }
        }
    }
}

impl<'a> Visit<'a> for Paths {
    fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
        if test_only(&u.attrs) {
            return;
        }
        let line = u.use_token.span.start().line;
        self.flatten(&mut Vec::new(), &u.tree, line);
    }
    fn visit_item_mod(&mut self, _: &'a syn::ItemMod) {}
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        if !test_only(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }
    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        if !test_only(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }
    fn visit_visibility(&mut self, _: &'a syn::Visibility) {}
    fn visit_path(&mut self, p: &'a syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        let line = p
            .segments
            .first()
            .map(|s| s.ident.span().start().line)
            .unwrap_or(0);
        self.paths.push((segs, line));
        syn::visit::visit_path(self, p);
    }
}

/// The circles of the crate whose root file is `root` (`src/lib.rs`,
/// `src/main.rs`, a `build.rs`, …).
pub fn circles(root: &Path) -> Result<Vec<Circle>, String> {
    let krate = Crate::load(root)?;
    let refs = krate.references();
    let nodes: Vec<&ModPath> = krate
        .modules
        .iter()
        .filter(|(p, m)| **p == m.node)
        .map(|(p, _)| p)
        .collect();
    let index: BTreeMap<&ModPath, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let mut adj: Vec<Vec<(usize, usize)>> = vec![Vec::new(); nodes.len()];
    for (k, r) in refs.iter().enumerate() {
        if let (Some(&a), Some(&b)) = (index.get(&r.from), index.get(&r.to)) {
            if !adj[a].iter().any(|&(t, _)| t == b) {
                adj[a].push((b, k));
            }
        }
    }
    let mut out = Vec::new();
    for scc in strongly_connected(&adj) {
        if scc.len() < 2 {
            continue;
        }
        let set: BTreeSet<usize> = scc.iter().copied().collect();
        let start = *scc.iter().min().unwrap_or(&0);
        let cycle = shortest_cycle(&adj, &set, start)
            .into_iter()
            .map(|k| refs[k].clone())
            .collect();
        let mut modules: Vec<String> = scc.iter().map(|&i| name(nodes[i])).collect();
        modules.sort();
        out.push(Circle {
            krate: root.to_path_buf(),
            modules,
            cycle,
        });
    }
    Ok(out)
}

/// Tarjan's algorithm, iterative.
fn strongly_connected(adj: &[Vec<(usize, usize)>]) -> Vec<Vec<usize>> {
    let n = adj.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut next = 0;
    for s in 0..n {
        if index[s] != usize::MAX {
            continue;
        }
        let mut work = vec![(s, 0usize)];
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&(w, _)) = adj[v].get(*i) {
                *i += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut scc = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(scc);
            }
        }
    }
    out
}

/// The references of a shortest cycle through `start` inside `set`.
fn shortest_cycle(adj: &[Vec<(usize, usize)>], set: &BTreeSet<usize>, start: usize) -> Vec<usize> {
    let mut prev: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &(w, k) in &adj[v] {
            if !set.contains(&w) {
                continue;
            }
            if w == start {
                let mut path = vec![k];
                let mut cur = v;
                while cur != start {
                    let (p, pk) = prev[&cur];
                    path.push(pk);
                    cur = p;
                }
                path.reverse();
                return path;
            }
            if let std::collections::btree_map::Entry::Vacant(e) = prev.entry(w) {
                e.insert((v, k));
                queue.push_back(w);
            }
        }
    }
    Vec::new()
}

/// The crate roots of every package under `repo` (skipping `target/` and
/// `node_modules/`): `src/lib.rs`, `src/main.rs`, `src/bin/*.rs`,
/// `build.rs`, `tests/*.rs`, `examples/*.rs`, `benches/*.rs`.
pub fn crate_roots(repo: &Path) -> Vec<PathBuf> {
    let mut manifests = Vec::new();
    find_manifests(repo, &mut manifests);
    let mut roots = Vec::new();
    for m in manifests {
        let dir = m.parent().unwrap_or(Path::new(".")).to_path_buf();
        for f in ["src/lib.rs", "src/main.rs", "build.rs"] {
            let p = dir.join(f);
            if p.exists() {
                roots.push(p);
            }
        }
        for d in ["src/bin", "tests", "examples", "benches"] {
            if let Ok(rd) = std::fs::read_dir(dir.join(d)) {
                let mut fs: Vec<PathBuf> = rd
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "rs"))
                    .collect();
                fs.sort();
                roots.extend(fs);
            }
        }
    }
    roots.sort();
    roots
}

/// Every `Cargo.toml` under `dir`, skipping `target/`, `node_modules/` and
/// hidden folders, in path order.
pub fn find_manifests(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            if name == "target" || name == "node_modules" || name.starts_with('.') {
                continue;
            }
            find_manifests(&p, out);
        } else if name == "Cargo.toml" {
            out.push(p);
        }
    }
}
