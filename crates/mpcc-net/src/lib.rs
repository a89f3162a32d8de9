//! Link models shared by the simulator and the real-Linux testbed: queue
//! disciplines, loss models and link capacity over time. Sans-IO: every model is
//! driven with the current time and owns its own random stream.

pub mod capacity;
pub mod loss;
pub mod queue;

pub use capacity::Capacity;
pub use loss::LossModel;
pub use queue::{Queue, QueueStats};
