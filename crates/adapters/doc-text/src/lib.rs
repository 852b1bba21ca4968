//! # lightrag-doc-text
//!
//! Plain text out of uploaded documents (being written).
