//! The protocol: both eras over stdio, Streamable HTTP and the in-process connection — the
//! lifecycle, sessions, headers, the context a handler sees, asking the caller, the local
//! principal, and backpressure on a slow client. One test binary, one module per concern.

mod ask;
mod backpressure;
mod context;
mod eras;
mod header_params;
mod http;
mod http_modern;
mod in_process;
mod local_principal;
mod protocol;
mod skills;
mod stdio_inline;
