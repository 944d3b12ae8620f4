//! What a `#[tool]` is at run time: its definition and call wrapper (`tool`), its parameters
//! read by their table (`params`), its return value turned into a result (`output`), where a
//! fn without `async` runs (`pace`), and the compile-time probes the macro's expansion uses
//! (`checks`).

pub(crate) mod checks;
pub(crate) mod output;
pub(crate) mod pace;
pub(crate) mod params;
pub(crate) mod tool;
