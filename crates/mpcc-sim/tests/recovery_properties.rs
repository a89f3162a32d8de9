//! Property test of the TCP sender and receiver over random event sequences, in
//! every profile: a channel that loses, delays and reorders data and ACKs at
//! random. Whatever happens, the sender's in-flight count equals what its
//! scoreboard says (so it never goes negative: an underflow panics in tests),
//! the receiver delivers every segment exactly once and in order, and the whole
//! transfer completes. With RFC 6675's NextSeg rules 3 and 4 too, and ns-3 3.44's
//! SACKed retransmissions kept in pipe.

use mpcc_algo::{build, CongestionControl, Params};
use mpcc_core::{Nanos, Rng};
use mpcc_sim::config::TcpConfig;
use mpcc_sim::packet::Packet;
use mpcc_sim::profile::Profile;
use mpcc_sim::tcp::receiver::AckAction;
use mpcc_sim::tcp::{Receiver, Sender};
use std::collections::BTreeMap;

const MS: Nanos = 1_000_000;
const SEGMENTS: u64 = 400;

/// One transfer of SEGMENTS segments; returns (rescue retransmissions, delivered in order).
fn transfer(profile: Profile, seed: u64, cc_name: &str) -> (u64, u64) {
    let mut rng = Rng::stream(seed, 7);
    let loss = [0.0, 0.01, 0.05, 0.15][(seed % 4) as usize];
    let jitter = [0, 2 * MS, 30 * MS][(seed % 3) as usize];
    // RFC 6675's NextSeg rules 3 and 4 (off in every profile) on every other group of four seeds.
    let rules_3_4 = Some(seed / 4 % 2 == 1);
    let tcp = TcpConfig {
        profile,
        rcv_buf_bytes: [None, Some(8 * 1448)][(seed % 2) as usize],
        sack_rule3: rules_3_4,
        rule3_ns3: Some(seed % 8 == 5),
        rescue: rules_3_4,
        // ns-3 3.44's SACKed retransmissions kept in pipe: the ns3 profile's, and on
        // one seed in five of the others.
        sacked_retx_in_pipe: (seed % 5 == 2).then_some(true),
        ..Default::default()
    };
    let mut cc = build(cc_name, &Params::new()).unwrap();
    cc.add_subflow(0);
    let mut snd = Sender::new(0, 0, &tcp);
    snd.set_app_bytes(SEGMENTS * 1448);
    let mut rcv = Receiver::new(0, &tcp);
    // In flight: (arrival time, tie-break) -> packet; data and ACKs alike.
    let mut wire: BTreeMap<(Nanos, u64), Packet> = BTreeMap::new();
    let mut order = 0u64;
    let mut delack: Option<Nanos> = None;
    let mut out = Vec::new();
    let mut next_dsn = 0u64;
    let mut now: Nanos = 0;
    snd.send(now, &cc, &mut out);
    for _ in 0..2_000_000 {
        for p in out.drain(..) {
            if !rng.bernoulli(loss) {
                let d = 20 * MS + (rng.uniform() * jitter as f64) as Nanos;
                order += 1;
                wire.insert((now + d, order), p);
            }
        }
        assert_eq!(snd.pipe, snd.pipe_recount(), "{profile:?} seed {seed}: pipe out of step at {now}");
        if rcv.rcv_nxt == SEGMENTS && snd.all_acked() {
            return (snd.stats.rescues, rcv.rcv_nxt);
        }
        // The next event: a packet arriving, the sender's timer, the delayed ACK.
        let t_wire = wire.keys().next().map(|k| k.0);
        let t_timer = snd.rto_deadline;
        let t = [t_wire, t_timer, delack].into_iter().flatten().min().expect("something is always pending");
        assert!(t >= now);
        now = t;
        if delack == Some(now) {
            delack = None;
            if let Some(a) = rcv.on_delack_timer() {
                out.push(a);
            }
            continue;
        }
        if t_wire == Some(now) {
            let (_, p) = wire.pop_first().unwrap();
            match p.kind {
                mpcc_sim::packet::Kind::Data => {
                    let (action, _) = rcv.on_data(now, &p, 1448);
                    for &(lo, hi) in rcv.delivered_dsns() {
                        assert_eq!(lo, next_dsn, "{profile:?} seed {seed}: delivered out of order or twice");
                        next_dsn = hi;
                    }
                    match action {
                        AckAction::Now => out.push(rcv.built),
                        AckAction::Delay => {
                            delack.get_or_insert(now + 40 * MS);
                        }
                        AckAction::Withhold => {}
                    }
                    // ACKs travel back over the same channel.
                    let acks: Vec<Packet> = std::mem::take(&mut out);
                    for a in acks {
                        if !rng.bernoulli(loss) {
                            order += 1;
                            wire.insert((now + 20 * MS + (rng.uniform() * jitter as f64) as Nanos, order), a);
                        }
                    }
                }
                mpcc_sim::packet::Kind::Ack => snd.on_ack(now, &p, &mut cc, &mut out),
                mpcc_sim::packet::Kind::Handshake => unreachable!("a bare sender makes no handshake"),
            }
            continue;
        }
        snd.on_timeout(now, &mut cc, &mut out);
    }
    panic!("{profile:?} seed {seed}: the transfer did not finish");
}

#[test]
fn random_loss_delay_and_reordering_never_break_the_invariants() {
    let mut rescues = 0;
    for profile in Profile::ALL {
        for seed in 0..24 {
            for cc in ["reno", "cubic"] {
                let (rescued, delivered) = transfer(profile, seed, cc);
                assert_eq!(delivered, SEGMENTS);
                rescues += rescued;
            }
        }
    }
    assert!(rescues > 0, "the rescue retransmission was exercised");
}
