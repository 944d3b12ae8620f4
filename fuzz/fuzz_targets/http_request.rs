//! One HTTP request through the Streamable HTTP endpoint, with sessions or stateless.
//! Checks `HttpTarget::check`.
#![no_main]

use mcp_tests::props::targets;

libfuzzer_sys::fuzz_target!(init: targets::init(), |data: &[u8]| targets::run(targets::http_request, data));
