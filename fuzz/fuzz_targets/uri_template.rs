//! A resource URI template and a URI: parsing and matching. Checks `check_uri_template`.
#![no_main]

use mcp_tests::props::targets;

libfuzzer_sys::fuzz_target!(init: targets::init(), |data: &[u8]| targets::run(targets::uri_template, data));
