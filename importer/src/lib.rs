//! lkpx: reads kernel test robot reports and lkp-tests result roots, and publishes the sharded
//! JSON the explorer loads. The mails themselves are read by the `reader` crate (no I/O); this
//! library finds and reads the files, builds the dataset and writes it. The binary (`main.rs`,
//! its subcommands in `cli/`) is thin glue over it.
//!
//! Flow: `input` finds files and reads each with `reader::file` into documents (`lkp/` reads
//! result roots, `archive/` public-inbox list archives through git); `build/` merges documents
//! into a validated `model` dataset (pure: no file system); `store/` writes it atomically and
//! reads it back for `--into`, and is the only writer. `synth/` generates synthetic data.

pub mod archive;
pub mod build;
pub mod input;
pub mod lkp;
pub mod rows;
pub mod store;
pub mod synth;
pub mod timing;
