//! The `lkpx` subcommands that are only command-line glue: their output formats and messages.

pub mod changepoints;
pub mod reports;
