//! One line through a whole session of the fixture server, in either era: the first byte's
//! low bit picks 2025-11-25 (initialized first) or 2026-07-28 (the line carries its own
//! claim); the rest is the line. Checks `SessionTarget::check`.
#![no_main]

use mcp_tests::props::targets;

libfuzzer_sys::fuzz_target!(init: targets::init(), |data: &[u8]| targets::run(targets::session_line, data));
