//! Every committed input of the fuzz campaigns (`fuzz/seeds/<target>/`: the seeds, and each
//! past finding as `regression-*`) through its target's property, on stable Rust: a finding
//! fixed once stays fixed. The long campaigns themselves are `fuzz/campaign.sh`.

use std::path::Path;

use mcp_tests::props::targets;

#[test]
fn every_seed_and_past_finding_holds() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds");
    let mut failures = Vec::new();
    let mut replayed = 0;
    for name in targets::NAMES {
        let target = targets::by_name(name).expect("a target");
        let folder = seeds.join(name);
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries {
            let path = entry.expect("a seed").path();
            let data = std::fs::read(&path).expect("read a seed");
            replayed += 1;
            if let Err(broken) = target(&data) {
                failures.push(format!("{}: {broken}", path.display()));
            }
        }
    }
    assert!(replayed >= 150, "found only {replayed} seeds under {}", seeds.display());
    assert!(failures.is_empty(), "{} of {replayed} inputs broke a property:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_target_has_seeds_or_a_reason() {
    // uri_template starts from libFuzzer's own inputs and the dictionary.
    for name in ["session_line", "tool_arguments", "http_request", "request_state"] {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds").join(name);
        let count = std::fs::read_dir(&folder).map_or(0, Iterator::count);
        assert!(count > 0, "no seeds in {}", folder.display());
    }
}
