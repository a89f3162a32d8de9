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
//! 5201. A subflow's first packet in a capture is preceded by a synthesised
//! handshake with MP_CAPABLE / MP_JOIN, so that readers link the subflows into
//! one connection (docs/outputs.md).
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
    /// Per flow, the subflows already introduced by a handshake (bit i: subflow i;
    /// subflows from 64 on share bit 63).
    opened: Vec<u64>,
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
        Capture { name, bytes, packets: 0, opened: Vec::new() }
    }
}

/// What a flow's packets need for their headers.
#[derive(Clone, Copy)]
pub struct FlowInfo {
    pub index: u32,
    pub mss: u32,
    pub header: u32,
    /// A multipath connection: its packets carry MPTCP options.
    pub mptcp: bool,
    /// The MPTCP keys of client and server (RFC 8684 section 3.1), the server's
    /// token (what MP_JOIN names) and the client's initial data sequence number.
    pub keys: [u64; 2],
    pub token: u32,
    pub idsn: u64,
    /// The server's initial data sequence number (its data is never sent: the
    /// client's DATA_ACK stays at IDSN + 1).
    pub server_idsn: u64,
}

impl FlowInfo {
    pub fn new(index: u32, mss: u32, header: u32, mptcp: bool) -> FlowInfo {
        // Deterministic keys per flow (splitmix64 of its index), never 0.
        let key = |salt: u64| {
            let mut z = (index as u64).wrapping_mul(2).wrapping_add(salt).wrapping_add(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) | 1
        };
        let keys = [key(0), key(1)];
        // Token: the most significant 32 bits of SHA-256(key); IDSN: the least
        // significant 64 bits (RFC 8684 section 3.1).
        let client = sha256(&keys[0].to_be_bytes());
        let server = sha256(&keys[1].to_be_bytes());
        let token = u32::from_be_bytes(server[..4].try_into().expect("4 bytes"));
        let idsn = u64::from_be_bytes(client[24..].try_into().expect("8 bytes"));
        let server_idsn = u64::from_be_bytes(server[24..].try_into().expect("8 bytes"));
        FlowInfo { index, mss, header, mptcp, keys, token, idsn, server_idsn }
    }
}

/// Every capture of a run, and which links and flows feed which.
pub struct Pcap {
    pub captures: Vec<Capture>,
    by_link: Vec<Option<usize>>,
    by_flow: Vec<Option<usize>>,
    flows: Vec<FlowInfo>,
    ip_id: u16,
}

/// The client and server addresses of a flow's subflow (see the module doc).
fn addresses(f: &FlowInfo, sub: u16) -> ([u8; 4], [u8; 4]) {
    let net = [10u8, (f.index >> 8) as u8, f.index as u8];
    ([net[0], net[1], net[2], (1 + sub).min(253) as u8], [net[0], net[1], net[2], 254])
}

/// Step 0, 1, 2 of subflow `sub`'s three-way handshake (SYN, SYN/ACK, ACK) with
/// MP_CAPABLE on the first subflow of a multipath connection and MP_JOIN on the
/// others (RFC 8684 sections 3.1 and 3.2); IPv4 length and checksum left to the caller.
fn handshake(h: &mut [u8; 80], f: &FlowInfo, sub: u16, step: u8) -> usize {
    let (client, server) = addresses(f, sub);
    let from_client = step != 1;
    let mut o = [0u8; 40];
    let mut n = 0;
    let mut put = |bytes: &[u8], n: &mut usize| {
        o[*n..*n + bytes.len()].copy_from_slice(bytes);
        *n += bytes.len();
    };
    if step < 2 {
        // MSS, SACK permitted and timestamps, as a Linux SYN and SYN/ACK carry them.
        put(&[2, 4], &mut n);
        put(&(f.mss.min(65535) as u16).to_be_bytes(), &mut n);
        put(&[4, 2, 8, 10, 0, 0, 0, 0, 0, 0, 0, 0], &mut n);
    }
    if f.mptcp && sub == 0 {
        // MP_CAPABLE, version 1, flag H (HMAC-SHA256): the SYN carries no key, the
        // SYN/ACK the server's, the third ACK both.
        match step {
            0 => put(&[30, 4, 0x01, 0x01], &mut n),
            1 => {
                put(&[30, 12, 0x01, 0x01], &mut n);
                put(&f.keys[1].to_be_bytes(), &mut n);
            }
            _ => {
                put(&[30, 20, 0x01, 0x01], &mut n);
                put(&f.keys[0].to_be_bytes(), &mut n);
                put(&f.keys[1].to_be_bytes(), &mut n);
            }
        }
    } else if f.mptcp {
        // MP_JOIN: the SYN names the connection by the server's token. The HMACs
        // are not computed (zeros): a capture reader checks the token, not them.
        let nonce = (f.keys[0] as u32) ^ sub as u32;
        match step {
            0 => {
                put(&[30, 12, 0x10, sub.min(255) as u8], &mut n);
                put(&f.token.to_be_bytes(), &mut n);
                put(&nonce.to_be_bytes(), &mut n);
            }
            1 => {
                put(&[30, 16, 0x10, sub.min(255) as u8], &mut n);
                put(&[0; 8], &mut n);
                put(&(!nonce).to_be_bytes(), &mut n);
            }
            _ => {
                put(&[30, 24, 0x10, 0], &mut n);
                put(&[0; 20], &mut n);
            }
        }
    }
    while n % 4 != 0 {
        put(&[0], &mut n); // end of options
    }
    let tcp_len = 20 + n;
    ip_header(h, if from_client { client } else { server }, if from_client { server } else { client });
    let t = &mut h[20..];
    let (sport, dport) = if from_client { (CLIENT_PORT + sub, SERVER_PORT) } else { (SERVER_PORT, CLIENT_PORT + sub) };
    t[0..2].copy_from_slice(&sport.to_be_bytes());
    t[2..4].copy_from_slice(&dport.to_be_bytes());
    let (seq, ack) = match step {
        0 => (0u32, 0u32),
        1 => (0, 1),
        _ => (1, 1),
    };
    t[4..8].copy_from_slice(&seq.to_be_bytes());
    t[8..12].copy_from_slice(&ack.to_be_bytes());
    t[12] = ((tcp_len / 4) as u8) << 4;
    t[13] = match step {
        0 => 0x02,
        1 => 0x12,
        _ => 0x10,
    };
    t[14..16].copy_from_slice(&65535u16.to_be_bytes());
    t[20..20 + n].copy_from_slice(&o[..n]);
    20 + tcp_len
}

/// The fixed fields of an IPv4 header: version, don't-fragment, TTL, TCP, addresses.
fn ip_header(h: &mut [u8; 80], src: [u8; 4], dst: [u8; 4]) {
    h[0] = 0x45;
    h[6] = 0x40;
    h[8] = 64;
    h[9] = 6;
    h[12..16].copy_from_slice(&src);
    h[16..20].copy_from_slice(&dst);
}

impl Pcap {
    /// `links` / `flows`: (index, capture name) of what to capture.
    pub fn new(
        n_links: usize, flows: Vec<FlowInfo>, links_wanted: &[(usize, String)], flows_wanted: &[(usize, String)],
    ) -> Pcap {
        let mut p = Pcap {
            captures: Vec::new(),
            by_link: vec![None; n_links],
            by_flow: vec![None; flows.len()],
            flows,
            ip_id: 0,
        };
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
            .map(|(i, f)| FlowInfo::new(i as u32, f.tcp.mss, f.tcp.header_bytes, multipath(i)))
            .collect();
        let mut links = Vec::new();
        for &i in &p.links {
            let l = cfg
                .links
                .get(i)
                .ok_or_else(|| format!("pcap.links: link index {i}; allowed: below {}", cfg.links.len()))?;
            links.push((i, format!("link-{}", l.name)));
        }
        let mut wanted = Vec::new();
        for &i in &p.flows {
            let f = cfg
                .flows
                .get(i)
                .ok_or_else(|| format!("pcap.flows: flow index {i}; allowed: below {}", cfg.flows.len()))?;
            wanted.push((i, format!("flow-{}", f.name)));
        }
        Ok(Pcap::new(cfg.links.len(), flows, &links, &wanted))
    }

    /// A packet starts crossing `link`. `pushed`: a data segment that ends an
    /// application's write, written with PSH (`DataSender::pushed`).
    #[inline]
    pub fn on_link(&mut self, now: Nanos, link: LinkId, pkt: &Packet, pushed: bool) {
        if let Some(c) = self.by_link[link.0 as usize] {
            self.write(c, now, pkt, pushed);
        }
    }

    /// A packet leaves (data) or reaches (ACK) its flow's sender.
    #[inline]
    pub fn at_sender(&mut self, now: Nanos, flow: FlowId, pkt: &Packet, pushed: bool) {
        if let Some(c) = self.by_flow[flow.0 as usize] {
            self.write(c, now, pkt, pushed);
        }
    }

    #[inline(never)]
    fn write(&mut self, c: usize, now: Nanos, pkt: &Packet, pushed: bool) {
        let f = self.flows[pkt.flow as usize];
        let cap = &mut self.captures[c];
        if cap.opened.len() <= pkt.flow as usize {
            cap.opened.resize(pkt.flow as usize + 1, 0);
        }
        let bit = 1u64 << pkt.sub.min(63);
        if pkt.kind == Kind::Handshake {
            // A simulated handshake (`tcp.handshake`): written as it happens.
            cap.opened[pkt.flow as usize] |= bit;
            let mut h = [0u8; 80];
            let len = handshake(&mut h, &f, pkt.sub, pkt.seq.min(2) as u8);
            return self.record(c, now, &mut h, len, 0);
        }
        if cap.opened[pkt.flow as usize] & bit == 0 {
            cap.opened[pkt.flow as usize] |= bit;
            for step in 0..3 {
                let mut h = [0u8; 80];
                let len = handshake(&mut h, &f, pkt.sub, step);
                self.record(c, now, &mut h, len, 0);
            }
        }
        let mut h = [0u8; 80];
        let len = headers(&mut h, &f, pkt, f.idsn, pushed);
        let payload = match pkt.kind {
            Kind::Data => pkt.bytes.saturating_sub(f.header),
            Kind::Ack | Kind::Handshake => 0,
        };
        self.record(c, now, &mut h, len, payload);
    }

    /// Fills in the IPv4 id, length and checksum and appends the record.
    fn record(&mut self, c: usize, now: Nanos, h: &mut [u8; 80], len: usize, payload: u32) {
        h[4..6].copy_from_slice(&self.ip_id.to_be_bytes());
        self.ip_id = self.ip_id.wrapping_add(1);
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
fn headers(h: &mut [u8; 80], f: &FlowInfo, pkt: &Packet, idsn: u64, pushed: bool) -> usize {
    let (client, server) = addresses(f, pkt.sub);
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
            // DSS as Linux sends it: A (a 4-octet DATA_ACK), M (mapping) and m (an
            // 8-octet DSN); the DATA_ACK of the server's data (none: its IDSN + 1),
            // DSN, subflow sequence number, length; 22 bytes, two NOPs pad it to 24.
            let payload = pkt.bytes.saturating_sub(f.header) as u16;
            put(&[30, 22, 2 << 4, 0x01 | 0x04 | 0x08], &mut n);
            put(&(f.server_idsn.wrapping_add(1) as u32).to_be_bytes(), &mut n);
            put(&idsn.wrapping_add(1 + pkt.dsn * mss).to_be_bytes(), &mut n);
            put(&byte(pkt.seq).to_be_bytes(), &mut n);
            put(&payload.to_be_bytes(), &mut n);
            put(&[1, 1], &mut n);
        } else {
            // DSS: A (DATA_ACK present) and a (8 octets).
            put(&[30, 12, 2 << 4, 0x01 | 0x02], &mut n);
            put(&idsn.wrapping_add(1 + pkt.dsn * mss).to_be_bytes(), &mut n);
        }
    }
    if !data && pkt.sack_count() > 0 {
        // SACK (RFC 2018) after two NOPs: as many of the ACK's blocks as the 40
        // option bytes still hold (3 beside timestamps, 1 beside MPTCP's DSS), in
        // the ACK's order, so a DSACK (RFC 2883) stays first.
        let k = pkt.sack_count().min(40usize.saturating_sub(n + 4) / 8);
        if k > 0 {
            put(&[1, 1, 5, 2 + 8 * k as u8], &mut n);
            for i in 0..k {
                let (lo, hi) = pkt.sack_block(i);
                put(&byte(lo).to_be_bytes(), &mut n);
                put(&byte(hi).to_be_bytes(), &mut n);
            }
        }
    }
    let tcp_len = 20 + n;

    ip_header(h, src, dst);
    let t = &mut h[20..];
    let (sport, dport) = if data { (CLIENT_PORT + pkt.sub, SERVER_PORT) } else { (SERVER_PORT, CLIENT_PORT + pkt.sub) };
    t[0..2].copy_from_slice(&sport.to_be_bytes());
    t[2..4].copy_from_slice(&dport.to_be_bytes());
    let (seq, ack) = if data { (byte(pkt.seq), 1) } else { (1, byte(pkt.seq)) };
    t[4..8].copy_from_slice(&seq.to_be_bytes());
    t[8..12].copy_from_slice(&ack.to_be_bytes());
    t[12] = ((tcp_len / 4) as u8) << 4;
    t[13] = if pushed { 0x18 } else { 0x10 }; // PSH+ACK at the end of a write, else ACK
    t[14..16].copy_from_slice(&65535u16.to_be_bytes());
    t[20..20 + n].copy_from_slice(&o[..n]);
    20 + tcp_len
}

/// SHA-256 (FIPS 180-4) of a short message, for MPTCP's tokens and IDSNs.
fn sha256(msg: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
        0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
        0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
        0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
        0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
        0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut state: [u32; 8] =
        [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    // Padding: 0x80, zeros, the bit length as a big-endian u64, to a multiple of 64 bytes.
    let mut data = msg.to_vec();
    data.push(0x80);
    while data.len() % 64 != 56 {
        data.push(0);
    }
    data.extend_from_slice(&((msg.len() as u64) * 8).to_be_bytes());
    for block in data.chunks(64) {
        let mut w = [0u32; 64];
        for i in 0..16 {
            w[i] = u32::from_be_bytes(block[4 * i..4 * i + 4].try_into().expect("4 bytes"));
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let mut v = state;
        for i in 0..64 {
            let [a, b, c, d, e, f, g, h] = v;
            let t1 = h
                .wrapping_add(e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25))
                .wrapping_add((e & f) ^ (!e & g))
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let t2 =
                (a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22)).wrapping_add((a & b) ^ (a & c) ^ (b & c));
            v = [t1.wrapping_add(t2), a, b, c, d.wrapping_add(t1), e, f, g];
        }
        for (s, x) in state.iter_mut().zip(v) {
            *s = s.wrapping_add(x);
        }
    }
    let mut out = [0u8; 32];
    for (i, s) in state.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&s.to_be_bytes());
    }
    out
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
        let f = FlowInfo::new(258, 1448, 52, true);
        let p = Packet::segment(258, 1, 3, 7, 1500, 5_000_000);
        let mut h = [0u8; 80];
        let len = headers(&mut h, &f, &p, 0, true);
        // Linux's 36 option bytes: what `header_bytes` 76 of the linux profile's
        // multipath flows counts (20 + 20 + 36).
        assert_eq!(len, 20 + 20 + 36);
        assert_eq!(&h[12..20], &[10, 1, 2, 2, 10, 1, 2, 254]);
        assert_eq!(u32::from_be_bytes(h[24..28].try_into().unwrap()), 1 + 3 * 1448);
        // TS option, then DSS with the DATA_ACK and the data sequence number 1 + 7 x 1448.
        assert_eq!(&h[40..44], &[1, 1, 8, 10]);
        assert_eq!(u32::from_be_bytes(h[44..48].try_into().unwrap()), 5);
        assert_eq!(&h[52..56], &[30, 22, 0x20, 0x0d]);
        assert_eq!(u32::from_be_bytes(h[56..60].try_into().unwrap()), f.server_idsn.wrapping_add(1) as u32);
        assert_eq!(u64::from_be_bytes(h[60..68].try_into().unwrap()), 1 + 7 * 1448);
        assert_eq!(&h[74..76], &[1, 1]);
    }

    #[test]
    fn sha256_test_vectors() {
        // FIPS 180-4 examples: "abc" and the empty message.
        let hex = |b: [u8; 32]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        assert_eq!(hex(sha256(b"abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(hex(sha256(b"")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    #[test]
    fn the_ip_checksum_verifies() {
        let f = FlowInfo::new(0, 1448, 52, false);
        let mut pc = Pcap::new(1, vec![f], &[(0, "l".into())], &[]);
        pc.on_link(1, LinkId(0), &Packet::data(0, 0, 1500, 0), true);
        assert_eq!(pc.captures[0].packets, 4, "handshake, then the segment");
        let mut rec = &pc.captures[0].bytes[24..];
        for _ in 0..3 {
            let caplen = u32::from_le_bytes(rec[8..12].try_into().unwrap()) as usize;
            rec = &rec[16 + caplen..];
        }
        let rec = &rec[16..];
        assert_eq!(checksum(&rec[..20]), 0);
        assert_eq!(u16::from_be_bytes([rec[2], rec[3]]), 20 + 32 + 1448);
    }
}
