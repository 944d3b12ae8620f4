//! The runtime's folders are its layers: each file names (`crate::folder::file`) only files of
//! its own folder or of folders below it, and no two files import each other, so that one
//! call can be read from the transport down.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The folders, top to bottom: a folder may import only folders of a lower rank (and itself).
const LAYERS: &[(&str, u8)] = &[
    ("transport", 10),
    // One connection's requests, and the public server that registers every family: neither
    // imports the other.
    ("protocol", 9),
    ("server", 9),
    // The families, each resolve, run and shape on one road (`features::call`); the tools
    // family whole (`features::tools`), a task's runner included.
    ("features", 8),
    // The server's settings and limits, below every family that reads them.
    ("options", 7),
    // Tasks kept in the state store (on any replica), and what a request leaves behind.
    ("tasks", 6),
    ("observe", 6),
    ("context", 4),
    ("schema", 3),
    ("hooks", 3),
    ("rpc", 2),
    ("state", 1),
    ("auth", 1),
];

fn rank(folder: &str) -> Option<u8> {
    LAYERS.iter().find(|(f, _)| *f == folder).map(|&(_, r)| r)
}

/// Every `.rs` file under `dir`, as `folder::file` (a folder's `mod.rs` is `folder::mod`).
fn sources(dir: &Path, folder: &str, into: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        let name = path.file_stem().and_then(|s| s.to_str()).expect("utf-8 name").to_owned();
        if path.is_dir() {
            let inner = if folder.is_empty() { name } else { format!("{folder}::{name}") };
            sources(&path, &inner, into);
        } else if path.extension().is_some_and(|e| e == "rs") && !(folder.is_empty() && name == "lib") {
            let text = std::fs::read_to_string(&path).expect("read module");
            // Unit tests may reach anywhere; the module's own code may not.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            // Doc comments may link anywhere (a link to the guide is not an import).
            let code: String = code
                .lines()
                .filter(|l| !l.trim_start().starts_with("///") && !l.trim_start().starts_with("//!"))
                .flat_map(|l| [l, "\n"])
                .collect();
            let key = if folder.is_empty() { name } else { format!("{folder}::{name}") };
            into.insert(key, code);
        }
    }
}

/// Module (`folder::file`) → the modules its non-test code names.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let mut code = BTreeMap::new();
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), "", &mut code);
    let modules: BTreeSet<String> = code.keys().cloned().collect();
    code.iter()
        .map(|(name, code)| {
            let named = code
                .split("crate::")
                .skip(1)
                .filter_map(|rest| {
                    let path: String =
                        rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
                    let mut parts = path.split("::").filter(|p| !p.is_empty());
                    let first = parts.next()?;
                    // `crate::folder::file`, or `crate::module` for a file at the root.
                    let module = match parts.next() {
                        Some(file) if modules.contains(&format!("{first}::{file}")) => format!("{first}::{file}"),
                        _ if modules.contains(first) => first.to_owned(),
                        _ if modules.contains(&format!("{first}::mod")) => format!("{first}::mod"),
                        _ => return None,
                    };
                    (module != *name).then_some(module)
                })
                .collect();
            (name.clone(), named)
        })
        .collect()
}

/// A cycle through `from`, if there is one.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>, from: &str, path: &mut Vec<String>) -> Option<Vec<String>> {
    if let Some(at) = path.iter().position(|m| m == from) {
        let mut found = path[at..].to_vec();
        found.push(from.to_owned());
        return Some(found);
    }
    path.push(from.to_owned());
    for next in graph.get(from).into_iter().flatten() {
        if let Some(found) = cycle(graph, next, path) {
            return Some(found);
        }
    }
    path.pop();
    None
}

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    let graph = imports();
    assert!(graph.len() > 30, "read the runtime's modules: {:?}", graph.keys());
    for module in graph.keys() {
        if let Some(found) = cycle(&graph, module, &mut Vec::new()) {
            panic!("import cycle: {}", found.join(" → "));
        }
    }
}

#[test]
fn each_folder_imports_only_the_layers_below_it() {
    let graph = imports();
    let folder = |module: &str| module.split("::").next().unwrap_or_default().to_owned();
    let mut seen = BTreeSet::new();
    for (module, named) in &graph {
        let from = folder(module);
        let Some(high) = rank(&from) else { continue };
        seen.insert(from.clone());
        for target in named {
            let to = folder(target);
            if to == from {
                continue;
            }
            let low = rank(&to).unwrap_or_else(|| panic!("`{module}` imports `{target}`, which is in no layer"));
            assert!(
                low < high,
                "`{module}` (layer {high}) imports `{target}` (layer {low}): a layer imports only layers below it"
            );
        }
    }
    assert_eq!(seen.len(), LAYERS.len(), "every layer has code: {seen:?}");
}

#[test]
fn transports_and_eras_stay_apart_from_tools() {
    let graph = imports();
    // The wire knows nothing of what answers it, and no feature knows how bytes travel.
    for (module, named) in &graph {
        if module.starts_with("rpc::") {
            for target in named {
                assert!(
                    !["protocol", "server", "transport", "context", "tools", "features"]
                        .iter()
                        .any(|f| target.starts_with(f)),
                    "`{module}` must not import `{target}`"
                );
            }
        }
        if ["tools::", "features::", "context::", "server::"].iter().any(|f| module.starts_with(f)) {
            for target in named {
                assert!(!target.starts_with("transport"), "`{module}` must not import the transport `{target}`");
            }
        }
    }
}
