//! Who is calling: the principal a request carries (`principal`), and over HTTP the bearer
//! token check (`bearer`, feature `http`) with its JWT validator (`jwt`, feature `jwt`).

#[cfg(feature = "http")]
pub(crate) mod bearer;
#[cfg(feature = "jwt")]
pub(crate) mod jwt;
pub(crate) mod principal;
