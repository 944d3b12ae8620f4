//! A `tools/call` of one of the fixture tools with arguments from the fuzzer, through
//! argument validation and the error envelope. Checks `SessionTarget::check_call`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_tests::props::targets::tool_arguments(data) {
        panic!("{broken}");
    }
});
