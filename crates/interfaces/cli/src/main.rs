//! The `lightrag` command.

fn main() {}
