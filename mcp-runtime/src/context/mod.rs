//! What a handler sees while it runs: `Ctx` (`ctx`), logging to the client (`logging`),
//! asking the caller (`ask`; over a 2025 session through the `shim`), consent that holds once
//! (`consent`), template variables read from text (`text`), and the context of a handler called in a unit
//! test (`test_ctx`).

pub(crate) mod ask;
pub(crate) mod consent;
pub(crate) mod ctx;
pub(crate) mod logging;
pub(crate) mod shim;
pub(crate) mod test_ctx;
pub(crate) mod text;
