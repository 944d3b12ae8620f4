//! The sealed `requestState` opener: a token it did not make never opens, and a state it
//! sealed opens only unchanged and for its binding. Checks `check_foreign_state` and
//! `check_sealed_state`.
#![no_main]

use mcp_tests::props::targets;

libfuzzer_sys::fuzz_target!(init: targets::init(), |data: &[u8]| targets::run(targets::request_state, data));
