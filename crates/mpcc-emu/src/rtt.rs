//! RTT of a subflow measured on the wire, from the TCP timestamp option (RFC 7323):
//! the first time a data packet carrying TSval v entered the emulator, and the time
//! an ACK echoing v (TSecr) is delivered back to the sender. As RFC 7323 section 4
//! asks, only an ACK that acknowledges new data gives a sample. Linux's timestamp
//! clock ticks every millisecond, so a sample can be up to 1 ms longer than the
//! packet's own round trip (it is timed from the first packet with that TSval), the
//! same quantisation Linux's own timestamp RTT has.

use crate::packet::tcp_view;
use mpcc_core::Nanos;

const RING: usize = 4096;

pub struct RttMeter {
    /// (TSval, first time seen) by TSval modulo the ring's size.
    sent: Vec<(u32, Nanos)>,
    has_sent: Vec<bool>,
    highest_ack: Option<u32>,
    /// (time of the ACK's delivery, RTT), seconds.
    pub samples: Vec<(f32, f32)>,
}

impl RttMeter {
    pub fn new() -> RttMeter {
        RttMeter { sent: vec![(0, 0); RING], has_sent: vec![false; RING], highest_ack: None, samples: Vec::new() }
    }

    pub fn on_data(&mut self, pkt: &[u8], now: Nanos) {
        let Some(v) = tcp_view(pkt) else { return };
        let Some((tsval, _)) = v.ts else { return };
        if v.payload == 0 {
            return;
        }
        let i = tsval as usize % RING;
        if !self.has_sent[i] || self.sent[i].0 != tsval {
            self.sent[i] = (tsval, now);
            self.has_sent[i] = true;
        }
    }

    pub fn on_ack(&mut self, pkt: &[u8], now: Nanos) {
        let Some(v) = tcp_view(pkt) else { return };
        let Some((_, tsecr)) = v.ts else { return };
        let advances = match self.highest_ack {
            None => true,
            Some(h) => (v.ack.wrapping_sub(h) as i32) > 0,
        };
        if !advances {
            return;
        }
        self.highest_ack = Some(v.ack);
        let i = tsecr as usize % RING;
        if self.has_sent[i] && self.sent[i].0 == tsecr && now >= self.sent[i].1 {
            let rtt = (now - self.sent[i].1) as f64 * 1e-9;
            self.samples.push(((now as f64 * 1e-9) as f32, rtt as f32));
        }
    }
}

impl Default for RttMeter {
    fn default() -> Self {
        Self::new()
    }
}
