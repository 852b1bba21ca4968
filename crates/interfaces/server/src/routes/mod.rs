//! The HTTP routes, one module per group of LightRAG's API, plus ours beyond it ([`admin`],
//! [`provenance`], [`workspaces`]).

pub mod admin;
pub mod chunking;
pub mod documents;
pub mod estimate;
pub mod graph;
pub mod graph_edit;
pub mod graph_edit_body;
pub mod health;
pub mod login;
pub mod ollama;
pub mod provenance;
pub mod query;
pub mod query_data_body;
pub mod ui_customization;
pub mod upload;
pub mod workspaces;
