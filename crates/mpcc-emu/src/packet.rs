//! Packet buffers: a pool of fixed-size slots reused through a free list, so the
//! per-packet path allocates nothing once the pool has grown to the network's
//! largest backlog. A slot holds one IPv4 packet as read from a TUN device.

/// Largest packet a slot holds; the TUN devices' MTU is 1500.
pub const SLOT_BYTES: usize = 2048;

pub type Slot = u32;

pub struct Pool {
    data: Vec<u8>,
    lens: Vec<u16>,
    free: Vec<Slot>,
    max: usize,
}

impl Pool {
    /// A pool that never holds more than `max` packets at once.
    pub fn new(max: usize) -> Pool {
        Pool { data: Vec::new(), lens: Vec::new(), free: Vec::new(), max: max.max(1) }
    }

    /// A free slot, or None when `max` packets are held.
    pub fn take(&mut self) -> Option<Slot> {
        if let Some(s) = self.free.pop() {
            return Some(s);
        }
        if self.lens.len() >= self.max {
            return None;
        }
        self.data.resize(self.data.len() + SLOT_BYTES, 0);
        self.lens.push(0);
        Some((self.lens.len() - 1) as Slot)
    }

    pub fn free(&mut self, s: Slot) {
        self.free.push(s);
    }

    /// The whole slot, to read a packet into.
    pub fn buffer(&mut self, s: Slot) -> &mut [u8] {
        let at = s as usize * SLOT_BYTES;
        &mut self.data[at..at + SLOT_BYTES]
    }

    pub fn set_len(&mut self, s: Slot, len: usize) {
        self.lens[s as usize] = len as u16;
    }

    pub fn len(&self, s: Slot) -> u32 {
        self.lens[s as usize] as u32
    }

    /// The packet held in slot `s`.
    pub fn bytes(&self, s: Slot) -> &[u8] {
        let at = s as usize * SLOT_BYTES;
        &self.data[at..at + self.lens[s as usize] as usize]
    }

    /// Slots ever created (the pool's high-water mark).
    pub fn capacity(&self) -> usize {
        self.lens.len()
    }
}

/// IPv4 source and destination of a packet, or None if it is not IPv4.
pub fn ipv4_addrs(p: &[u8]) -> Option<([u8; 4], [u8; 4])> {
    if p.len() < 20 || p[0] >> 4 != 4 {
        return None;
    }
    Some((p[12..16].try_into().ok()?, p[16..20].try_into().ok()?))
}

/// The TCP header fields the RTT meter needs: ACK number, payload length and the
/// timestamp option's TSval and TSecr (None without the option).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpView {
    pub ack: u32,
    pub payload: u32,
    pub ts: Option<(u32, u32)>,
}

pub fn tcp_view(p: &[u8]) -> Option<TcpView> {
    if p.len() < 20 || p[0] >> 4 != 4 || p[9] != 6 {
        return None;
    }
    let ihl = (p[0] & 0x0f) as usize * 4;
    let total = u16::from_be_bytes([p[2], p[3]]) as usize;
    let tcp = p.get(ihl..total.min(p.len()))?;
    if tcp.len() < 20 {
        return None;
    }
    let doff = (tcp[12] >> 4) as usize * 4;
    if doff < 20 || doff > tcp.len() {
        return None;
    }
    let ack = u32::from_be_bytes(tcp[8..12].try_into().ok()?);
    let payload = (tcp.len() - doff) as u32;
    let mut ts = None;
    let mut opts = &tcp[20..doff];
    while let Some(&kind) = opts.first() {
        match kind {
            0 => break,
            1 => opts = &opts[1..],
            _ => {
                let len = *opts.get(1)? as usize;
                if len < 2 || len > opts.len() {
                    break;
                }
                if kind == 8 && len == 10 {
                    let v = u32::from_be_bytes(opts[2..6].try_into().ok()?);
                    let e = u32::from_be_bytes(opts[6..10].try_into().ok()?);
                    ts = Some((v, e));
                }
                opts = &opts[len..];
            }
        }
    }
    Some(TcpView { ack, payload, ts })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An IPv4/TCP packet with the timestamp option and `payload` bytes.
    pub fn tcp_packet(src: [u8; 4], dst: [u8; 4], ack: u32, tsval: u32, tsecr: u32, payload: usize) -> Vec<u8> {
        let total = 20 + 32 + payload;
        let mut p = vec![0u8; total];
        p[0] = 0x45;
        p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        p[9] = 6;
        p[12..16].copy_from_slice(&src);
        p[16..20].copy_from_slice(&dst);
        let t = &mut p[20..];
        t[8..12].copy_from_slice(&ack.to_be_bytes());
        t[12] = 8 << 4;
        t[20] = 1;
        t[21] = 1;
        t[22] = 8;
        t[23] = 10;
        t[24..28].copy_from_slice(&tsval.to_be_bytes());
        t[28..32].copy_from_slice(&tsecr.to_be_bytes());
        p
    }

    #[test]
    fn parses_addresses_and_timestamps() {
        let p = tcp_packet([10, 201, 0, 1], [10, 200, 0, 1], 77, 1000, 999, 100);
        assert_eq!(ipv4_addrs(&p), Some(([10, 201, 0, 1], [10, 200, 0, 1])));
        assert_eq!(tcp_view(&p), Some(TcpView { ack: 77, payload: 100, ts: Some((1000, 999)) }));
        assert_eq!(ipv4_addrs(&[0x60; 40]), None);
        assert_eq!(tcp_view(&p[..30]), None);
    }

    #[test]
    fn pool_reuses_slots_and_stops_at_its_bound() {
        let mut pool = Pool::new(2);
        let a = pool.take().unwrap();
        let b = pool.take().unwrap();
        assert!(pool.take().is_none());
        pool.buffer(a)[..3].copy_from_slice(b"abc");
        pool.set_len(a, 3);
        assert_eq!(pool.bytes(a), b"abc");
        pool.free(b);
        assert_eq!(pool.take(), Some(b));
        assert_eq!(pool.capacity(), 2);
    }
}
