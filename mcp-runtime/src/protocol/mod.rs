//! One connection's requests: the session (`session`: each request's era, lifecycle methods,
//! routing), a `tools/call` from resolution to result (`dispatch`), a task tool's call that
//! may go on as a task (`tasked`), and the methods of the other features (`router`).

pub(crate) mod dispatch;
pub(crate) mod handler;
pub(crate) mod router;
pub(crate) mod session;
pub(crate) mod tasked;
