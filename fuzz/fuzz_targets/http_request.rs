//! One HTTP request through the Streamable HTTP endpoint, with sessions or stateless.
//! Checks `HttpTarget::check`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_tests::props::targets::http_request(data) {
        panic!("{broken}");
    }
});
