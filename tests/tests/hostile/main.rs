//! Under attack and under faults: hostile stdio clients, HTTP attacks, injected faults, the
//! fuzz properties on generated input and the replay of every committed seed. One test
//! binary, one module per concern.

mod faults;
mod fuzz_replay;
mod fuzz_smoke;
mod hostile;
mod http_attacks;
