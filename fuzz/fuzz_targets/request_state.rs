//! The sealed `requestState` opener: a token it did not make never opens, and a state it
//! sealed opens only unchanged and for its binding. Checks `check_foreign_state` and
//! `check_sealed_state`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_tests::props::targets::request_state(data) {
        panic!("{broken}");
    }
});
