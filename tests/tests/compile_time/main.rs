//! What the compiler says: trybuild cases of every mistake and accepted shape (`ui`), and the
//! expansion snapshots a user reads with `cargo expand` (`expand`).

mod expand;
mod ui;
