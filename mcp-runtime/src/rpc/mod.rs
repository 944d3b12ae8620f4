//! The wire beneath every feature: what a JSON-RPC message is (`jsonrpc`), which protocol era a
//! request speaks and what its client declared (`era`), where one request's messages go
//! (`channel`) and wait for their transport (`outbox`), lines written to stderr or a file
//! without waiting for it (`lines`), the requests the server sends and the
//! answers it waits for (`pending`), request ids (`request_id`), and the one failure path of
//! every feature: a panic caught (`catch`) and a failure rendered as an envelope (`envelope`).

pub(crate) mod catch;
pub(crate) mod channel;
pub(crate) mod envelope;
pub(crate) mod era;
pub(crate) mod jsonrpc;
pub(crate) mod lines;
pub(crate) mod outbox;
pub(crate) mod pending;
pub(crate) mod request_id;
