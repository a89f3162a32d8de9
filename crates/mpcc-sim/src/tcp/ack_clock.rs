//! The receiver's timestamp clock as RFC 7323 has it, for receiver controllers.
//!
//! A simulated ACK carries the send time of the segment it echoes (`ts`, from which
//! the sender measures its RTT, delayed-ACK wait included as RFC 7323 section 4.3
//! asks) and that segment's one-way delay (`owd`); the sender keeps `ts + owd`, the
//! segment's arrival time, as TS.Recent and echoes it on its data (TSecr). For an
//! ACK sent at once that is the time the ACK left: the receiver's own TSval. A
//! delayed ACK leaves later (with the second segment, or when the timer fires) and a
//! real receiver stamps its TSval then, so the RTT it measures from the echo
//! (`now - TSecr`) does not include its own delayed-ACK wait. [`AckClock`] keeps
//! the (echoed value, time sent) pairs of the delayed ACKs a subflow's receiver sent
//! and turns an echo back into the time its ACK left. Only subflows whose
//! connection has a receiver controller keep one (the controllers are the only
//! readers of the receiver's RTT).

use mpcc_core::Nanos;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct AckClock {
    /// Delayed ACKs not yet echoed, oldest first: (the value the sender will echo, time sent).
    /// The values grow (each delayed ACK's first segment arrived after the last one's).
    delayed: VecDeque<(Nanos, Nanos)>,
}

impl AckClock {
    /// An ACK whose echoed value will be `echo` (its segment's arrival time) left at `now`.
    #[inline]
    pub fn sent(&mut self, echo: Nanos, now: Nanos) {
        if echo < now {
            self.delayed.push_back((echo, now));
        }
    }

    /// The time the ACK the sender echoes as `echo` left the receiver (its TSval).
    /// The sender echoes the largest value it has seen, so older entries are done.
    #[inline]
    pub fn tsval(&mut self, echo: Nanos) -> Nanos {
        while let Some(&(value, at)) = self.delayed.front() {
            if value > echo {
                break;
            }
            if value == echo {
                return at;
            }
            self.delayed.pop_front();
        }
        echo
    }

    /// Gives back spare capacity (called at the run's periodic checks, never per packet).
    pub fn trim(&mut self) {
        crate::mem::trim_deque(&mut self.delayed, 8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echo_of_a_delayed_ack_gives_the_time_it_left() {
        let mut c = AckClock::default();
        c.sent(100, 100); // sent at once: its echo is its send time
        c.sent(200, 240); // delayed 40 ns
        c.sent(300, 300);
        c.sent(400, 410);
        assert_eq!(c.tsval(100), 100);
        assert_eq!(c.tsval(200), 240);
        assert_eq!(c.tsval(200), 240, "several segments may echo the same ACK");
        assert_eq!(c.tsval(300), 300);
        // The delayed ACK echoed as 400 was lost; a later one supersedes it.
        c.sent(500, 530);
        assert_eq!(c.tsval(500), 530);
        assert_eq!(c.delayed.len(), 1);
        assert_eq!(c.tsval(600), 600);
        assert!(c.delayed.is_empty());
    }
}
