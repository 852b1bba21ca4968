//! Rebuilds the server when the web UI's build (`webui/dist`, embedded by `src/webui/assets.rs`)
//! changes: rust-embed's `include_bytes!` notices edited files but not added or removed ones.

fn main() {
    // A directory here makes cargo scan everything under it for changes.
    println!("cargo:rerun-if-changed=../../../webui/dist");
    println!("cargo:rerun-if-changed=build.rs");
}
