//! What outlives one call: the state store (`store`: the trait, the memory store, the scoped
//! handle), its Redis backend (`redis`, feature `redis`), and the sealing of `requestState`
//! (`seal`).

#[cfg(feature = "redis")]
pub(crate) mod redis;
pub(crate) mod seal;
pub(crate) mod store;
