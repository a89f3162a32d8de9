//! The packet-level discrete-event simulator.
pub mod config;
