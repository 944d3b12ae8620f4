//! What outlives one call: the state store (`store`: the trait, the memory store, the scoped
//! handle), its Redis backend (`redis`, feature `redis`), the events every replica hears
//! (`bus`: in this process, and over Redis pub/sub with the Redis store), and the sealing of
//! `requestState` (`seal`).

pub(crate) mod bus;
#[cfg(feature = "redis")]
pub(crate) mod redis;
pub(crate) mod seal;
pub(crate) mod store;
