//! The `lkpx` command line (`cli/`): thin glue over the `importer` library.

/// mimalloc: the import allocates and frees millions of small strings and vectors; glibc's malloc took a
/// third of the build stage.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;

fn main() {
    cli::main()
}
