//! A resource URI template and a URI: parsing and matching. Checks `check_uri_template`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_tests::props::targets::uri_template(data) {
        panic!("{broken}");
    }
});
