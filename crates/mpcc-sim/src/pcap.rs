//! Packet captures (`pcap` in a scenario): the packets that cross a link, or that
//! a flow's sender sends and receives, written as a pcap file (nanosecond
//! timestamps, raw IPv4, LINKTYPE_IPV4) that tcpdump, tshark and Wireshark read.
//!
//! mpcc never materialises packets, so a capture synthesises each one's headers
//! from the simulated packet: IPv4, TCP with the timestamp option (RFC 7323),
//! SACK blocks on ACKs (RFC 2018), and on the subflows of a multipath connection
//! the MPTCP DSS option (RFC 8684 section 3.3): a data segment carries its
//! mapping (data sequence number, subflow sequence number, length), an ACK its
//! DATA_ACK. Only the headers are captured (the payload is not: `caplen` <
//! `len`, as with `tcpdump -s`).
//!
//! Numbering: sequence numbers are bytes, `1 + segment x mss` (relative to an
//! initial sequence number of 0, what tshark shows as relative numbers);
//! timestamps are milliseconds of simulated time. Addresses: the client of flow
//! f (as indexed in the configuration, mod 65536) is 10.(f / 256).(f % 256).(1 +
//! subflow), its server 10.(f / 256).(f % 256).254; ports 40000 + subflow and
//! 5201. There is no handshake: the capture starts with the first data segment.
//! Option space is 40 bytes: with the DSS option an ACK keeps the SACK blocks that
//! fit (one), as a real stack drops blocks that do not.
//!
//! Off by default; when off the simulator pays one predictable branch per hook.

use crate::config::{Config, PcapConfig};
use crate::ids::{FlowId, LinkId};
use crate::packet::{Kind, Packet};
use mpcc_core::Nanos;

/// LINKTYPE_IPV4 (raw IPv4, no link-layer header).
const LINKTYPE_IPV4: u32 = 228;
/// pcap's magic number for nanosecond timestamps.
const MAGIC_NS: u32 = 0xa1b2_3c4d;
const SERVER_PORT: u16 = 5201;
const CLIENT_PORT: u16 = 40000;

/// One capture file being written.
pub struct Capture {
    pub name: String,
    pub bytes: Vec<u8>,
    pub packets: u64,
}

impl Capture {
    fn new(name: String) -> Capture {
        let mut bytes = Vec::with_capacity(1 << 16);
        bytes.extend_from_slice(&MAGIC_NS.to_le_bytes());
        bytes.extend_from_slice(&2u16.to_le_bytes()); // version 2.4
        bytes.extend_from_slice(&4u16.to_le_bytes());
        bytes.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        bytes.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        bytes.extend_from_slice(&65535u32.to_le_bytes()); // snaplen
        bytes.extend_from_slice(&LINKTYPE_IPV4.to_le_bytes());
        Capture { name, bytes, packets: 0 }
    }
}

/// What a flow's packets need for their headers.
#[derive(Clone, Copy)]
pub struct FlowInfo {
    pub index: u32,
    pub mss: u32,
    pub header: u32,
    /// A multipath connection: its packets carry the DSS option.
    pub mptcp: bool,
}

/// Every capture of a run, and which links and flows feed which.
pub struct Pcap {
    pub captures: Vec<Capture>,
    by_link: Vec<Option<usize>>,
    by_flow: Vec<Option<usize>>,
    flows: Vec<FlowInfo>,
    ip_id: u16,
}

impl Pcap {
    /// `links` / `flows`: (index, capture name) of what to capture.
    pub fn new(n_links: usize, flows: Vec<FlowInfo>, links_wanted: &[(usize, String)], flows_wanted: &[(usize, String)]) -> Pcap {
        let mut p = Pcap { captures: Vec::new(), by_link: vec![None; n_links], by_flow: vec![None; flows.len()], flows, ip_id: 0 };
        for (i, name) in links_wanted {
            p.by_link[*i] = Some(p.captures.len());
            p.captures.push(Capture::new(name.clone()));
        }
        for (i, name) in flows_wanted {
            p.by_flow[*i] = Some(p.captures.len());
            p.captures.push(Capture::new(name.clone()));
        }
        p
    }

    /// The captures `p` asks for; `multipath(i)`: whether flow i has several subflows.
    pub fn configure(cfg: &Config, p: &PcapConfig, multipath: impl Fn(usize) -> bool) -> Result<Pcap, String> {
        let flows = cfg
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| FlowInfo { index: i as u32, mss: f.tcp.mss, header: f.tcp.header_bytes, mptcp: multipath(i) })
            .collect();
        let mut links = Vec::new();
        for &i in &p.links {
            let l = cfg.links.get(i).ok_or_else(|| format!("pcap.links: link index {i}; allowed: below {}", cfg.links.len()))?;
            links.push((i, format!("link-{}", l.name)));
        }
        let mut wanted = Vec::new();
        for &i in &p.flows {
            let f = cfg.flows.get(i).ok_or_else(|| format!("pcap.flows: flow index {i}; allowed: below {}", cfg.flows.len()))?;
            wanted.push((i, format!("flow-{}", f.name)));
        }
        Ok(Pcap::new(cfg.links.len(), flows, &links, &wanted))
    }

    /// A packet starts crossing `link`.
    #[inline]
    pub fn on_link(&mut self, now: Nanos, link: LinkId, pkt: &Packet) {
        if let Some(c) = self.by_link[link.0 as usize] {
            self.write(c, now, pkt);
        }
    }

    /// A packet leaves (data) or reaches (ACK) its flow's sender.
    #[inline]
    pub fn at_sender(&mut self, now: Nanos, flow: FlowId, pkt: &Packet) {
        if let Some(c) = self.by_flow[flow.0 as usize] {
            self.write(c, now, pkt);
        }
    }

    fn write(&mut self, c: usize, now: Nanos, pkt: &Packet) {
        let f = self.flows[pkt.flow as usize];
        let mut h = [0u8; 80];
        let len = headers(&mut h, &f, pkt, self.ip_id);
        self.ip_id = self.ip_id.wrapping_add(1);
        let payload = match pkt.kind {
            Kind::Data => pkt.bytes.saturating_sub(f.header),
            Kind::Ack => 0,
        };
        let total = len as u32 + payload;
        h[2..4].copy_from_slice(&(total.min(65535) as u16).to_be_bytes());
        let sum = checksum(&h[..20]);
        h[10..12].copy_from_slice(&sum.to_be_bytes());
        let cap = &mut self.captures[c];
        for v in [(now / 1_000_000_000) as u32, (now % 1_000_000_000) as u32, len as u32, total] {
            cap.bytes.extend_from_slice(&v.to_le_bytes());
        }
        cap.bytes.extend_from_slice(&h[..len]);
        cap.packets += 1;
    }
}

/// Writes the IPv4 and TCP headers of `pkt` into `h`; returns their length.
/// The IPv4 total length and checksum are filled in by the caller.
fn headers(h: &mut [u8; 80], f: &FlowInfo, pkt: &Packet, ip_id: u16) -> usize {
    let net = [10u8, (f.index >> 8) as u8, f.index as u8];
    let client = [net[0], net[1], net[2], (1 + pkt.sub).min(253) as u8];
    let server = [net[0], net[1], net[2], 254];
    let data = pkt.kind == Kind::Data;
    let (src, dst) = if data { (client, server) } else { (server, client) };
    let mss = f.mss as u64;
    let byte = |seg: u64| (1 + seg * mss) as u32;

    // TCP options, 4-byte aligned, at most 40 bytes.
    let mut o = [0u8; 40];
    let mut n = 0;
    let mut put = |bytes: &[u8], n: &mut usize| {
        o[*n..*n + bytes.len()].copy_from_slice(bytes);
        *n += bytes.len();
    };
    put(&[1, 1, 8, 10], &mut n);
    let ms = |t: Nanos| (t / 1_000_000) as u32;
    // Data: TSval = its send time, TSecr = the echoed receiver time. ACK: TSval =
    // when the receiver sent it (send time + one-way delay), TSecr = the echo.
    let (tsval, tsecr) = if data { (ms(pkt.ts), ms(pkt.owd)) } else { (ms(pkt.ts + pkt.owd), ms(pkt.ts)) };
    put(&tsval.to_be_bytes(), &mut n);
    put(&tsecr.to_be_bytes(), &mut n);
    if f.mptcp {
        if data {
            // DSS: M (mapping) and a (8-octet DSN); DSN, subflow sequence number, length.
            let payload = pkt.bytes.saturating_sub(f.header) as u16;
            put(&[30, 18, 2 << 4, 0x04 | 0x08], &mut n);
            put(&(1 + pkt.dsn * mss).to_be_bytes(), &mut n);
            put(&byte(pkt.seq).to_be_bytes(), &mut n);
            put(&payload.to_be_bytes(), &mut n);
            put(&[1, 1], &mut n);
        } else {
            // DSS: A (DATA_ACK present) and a (8 octets).
            put(&[30, 12, 2 << 4, 0x01 | 0x02], &mut n);
            put(&(1 + pkt.dsn * mss).to_be_bytes(), &mut n);
        }
    }
    if !data && pkt.sack_hi > pkt.sack_lo && n + 12 <= 40 {
        put(&[1, 1, 5, 10], &mut n);
        put(&byte(pkt.sack_lo).to_be_bytes(), &mut n);
        put(&byte(pkt.sack_hi).to_be_bytes(), &mut n);
    }
    let tcp_len = 20 + n;

    h[0] = 0x45;
    h[4..6].copy_from_slice(&ip_id.to_be_bytes());
    h[6] = 0x40; // don't fragment
    h[8] = 64;
    h[9] = 6;
    h[12..16].copy_from_slice(&src);
    h[16..20].copy_from_slice(&dst);
    let t = &mut h[20..];
    let (sport, dport) = if data { (CLIENT_PORT + pkt.sub, SERVER_PORT) } else { (SERVER_PORT, CLIENT_PORT + pkt.sub) };
    t[0..2].copy_from_slice(&sport.to_be_bytes());
    t[2..4].copy_from_slice(&dport.to_be_bytes());
    let (seq, ack) = if data { (byte(pkt.seq), 1) } else { (1, byte(pkt.seq)) };
    t[4..8].copy_from_slice(&seq.to_be_bytes());
    t[8..12].copy_from_slice(&ack.to_be_bytes());
    t[12] = ((tcp_len / 4) as u8) << 4;
    t[13] = if data { 0x18 } else { 0x10 }; // PSH+ACK, ACK
    t[14..16].copy_from_slice(&65535u16.to_be_bytes());
    t[20..20 + n].copy_from_slice(&o[..n]);
    20 + tcp_len
}

/// The Internet checksum (RFC 1071) of an IPv4 header whose checksum field is 0.
fn checksum(b: &[u8]) -> u16 {
    let mut sum: u32 = b.chunks(2).map(|w| u16::from_be_bytes([w[0], w[1]]) as u32).sum();
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_segment_of_a_multipath_flow() {
        let f = FlowInfo { index: 258, mss: 1448, header: 52, mptcp: true };
        let p = Packet::segment(258, 1, 3, 7, 1500, 5_000_000);
        let mut h = [0u8; 80];
        let len = headers(&mut h, &f, &p, 9);
        assert_eq!(len, 20 + 20 + 32);
        assert_eq!(&h[12..20], &[10, 1, 2, 2, 10, 1, 2, 254]);
        assert_eq!(u32::from_be_bytes(h[24..28].try_into().unwrap()), 1 + 3 * 1448);
        // TS option, then DSS with the data sequence number 1 + 7 x 1448.
        assert_eq!(&h[40..44], &[1, 1, 8, 10]);
        assert_eq!(u32::from_be_bytes(h[44..48].try_into().unwrap()), 5);
        assert_eq!(&h[52..56], &[30, 18, 0x20, 0x0c]);
        assert_eq!(u64::from_be_bytes(h[56..64].try_into().unwrap()), 1 + 7 * 1448);
    }

    #[test]
    fn the_ip_checksum_verifies() {
        let f = FlowInfo { index: 0, mss: 1448, header: 52, mptcp: false };
        let mut pc = Pcap::new(1, vec![f], &[(0, "l".into())], &[]);
        pc.on_link(1, LinkId(0), &Packet::data(0, 0, 1500, 0));
        let rec = &pc.captures[0].bytes[24 + 16..];
        assert_eq!(checksum(&rec[..20]), 0);
        assert_eq!(u16::from_be_bytes([rec[2], rec[3]]), 20 + 32 + 1448);
    }
}
