//! The runtime's modules import each other without a cycle: each module names (`crate::m`)
//! only modules below it, so that one call can be read from the transport down.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module name → the runtime modules its non-test code names.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = BTreeMap::new();
    for entry in std::fs::read_dir(&src).expect("read src") {
        let path = entry.expect("entry").path();
        let name = path.file_stem().and_then(|s| s.to_str()).expect("utf-8 name").to_owned();
        if path.extension().is_some_and(|e| e == "rs") && name != "lib" {
            let text = std::fs::read_to_string(&path).expect("read module");
            // Unit tests may reach anywhere; the module's own code may not.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default().to_owned();
            sources.insert(name, code);
        }
    }
    let modules: BTreeSet<String> = sources.keys().cloned().collect();
    sources
        .iter()
        .map(|(name, code)| {
            let named = code
                .split("crate::")
                .skip(1)
                .map(|rest| rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>())
                .filter(|m| modules.contains(m) && m != name)
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
    assert!(graph.len() > 10, "read the runtime's modules: {:?}", graph.keys());
    for module in graph.keys() {
        if let Some(found) = cycle(&graph, module, &mut Vec::new()) {
            panic!("import cycle: {}", found.join(" → "));
        }
    }
}

#[test]
fn transports_sit_above_the_features_and_the_era_below_them() {
    let graph = imports();
    for low in ["client", "channel", "jsonrpc", "outbox"] {
        for high in ["session", "dispatch", "server", "transport", "http", "context"] {
            assert!(!graph[low].contains(high), "`{low}` must not import `{high}`");
        }
    }
    for feature in ["server", "dispatch", "context"] {
        for transport in ["transport", "http", "connection"] {
            assert!(!graph[feature].contains(transport), "`{feature}` must not import the transport `{transport}`");
        }
    }
}
