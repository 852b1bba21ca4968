//! The library half of `lightrag-bench`: the corpus reader, `/proc` readings, latency summaries
//! and the HTTP load test ([`http_load`]), shared by the `lightrag-bench` binary and the CLI
//! crate's end-to-end test of the load run.

pub mod corpus;
pub mod http_load;
pub mod procstat;
pub mod stats;
