//! One connection's requests: the session (`session`: each request's era, lifecycle methods,
//! routing), a `tools/call` from resolution to result (`dispatch`), and the methods of the other
//! features (`router`).

pub(crate) mod dispatch;
pub(crate) mod router;
pub(crate) mod session;
