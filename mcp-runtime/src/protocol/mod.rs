//! One connection's requests: the session (`session`: each request's era, lifecycle methods,
//! what starts and runs each request) and which family answers what (`router`). Nothing here
//! knows what a tool is: a `tools/call` goes to `features::tools::call`.

pub(crate) mod router;
pub(crate) mod session;
