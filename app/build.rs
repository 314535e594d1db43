//! With the `split` feature, on wasm32: keep the linker's relocations in `app.wasm`.
//! `wasm-split-cli` reads them to know which code each split point reaches
//! (scripts/build-app.sh). Only the app's own link changes: no flag reaches the dependencies,
//! so the worker's build and the app's share them.

fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_FEATURE_SPLIT");
    let split = std::env::var_os("CARGO_FEATURE_SPLIT").is_some();
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "wasm32");
    if split && wasm {
        println!("cargo:rustc-link-arg-bins=--emit-relocs");
    }
}
