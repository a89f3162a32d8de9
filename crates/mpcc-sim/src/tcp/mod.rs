//! TCP: a SACK sender (RFC 6675 loss recovery, RFC 6298 RTO) and a receiver with
//! a bounded reordering buffer and optional delayed ACKs. Sequence numbers count
//! segments, not bytes.

pub mod ack_clock;
pub mod receiver;
pub mod rtt;
pub mod sender;

pub use ack_clock::AckClock;
pub use receiver::Receiver;
pub use rtt::RttEstimator;
pub use sender::Sender;
