//! A `tools/call` of one of the fixture tools with arguments from the fuzzer, through
//! argument validation and the error envelope. Checks `SessionTarget::check_call`.
#![no_main]

use mcp_tests::props::targets;

libfuzzer_sys::fuzz_target!(init: targets::init(), |data: &[u8]| targets::run(targets::tool_arguments, data));
