//! The three-way handshake (`tcp.handshake`, handshake.rs) seen from outside: in a
//! capture at the sender, as a reader of the pcap would see it.

mod common;
use common::{MS, S};
use serde_json::{json, Value};

/// One record of a capture: time, client's subflow (from the address), TCP flags,
/// whether the client sent it.
#[derive(Debug, Clone, Copy)]
struct Rec {
    t: u64,
    sub: u8,
    flags: u8,
    from_client: bool,
    payload: u32,
}

const SYN: u8 = 0x02;
const ACK: u8 = 0x10;

fn records(pcap: &[u8]) -> Vec<Rec> {
    let mut out = vec![];
    let mut at = 24;
    let word = |i: usize| u32::from_le_bytes(pcap[i..i + 4].try_into().unwrap());
    while at < pcap.len() {
        let (sec, nsec, caplen, len) = (word(at), word(at + 4), word(at + 8) as usize, word(at + 12));
        let ip = &pcap[at + 16..at + 16 + caplen];
        let tcp = &ip[20..];
        let header = 20 + 4 * (tcp[12] >> 4) as u32;
        let from_client = ip[15] != 254;
        let client_host = if from_client { ip[15] } else { ip[19] };
        out.push(Rec {
            t: sec as u64 * S + nsec as u64,
            sub: client_host - 1,
            flags: tcp[13],
            from_client,
            payload: len - header,
        });
        at += 16 + caplen;
    }
    out
}

fn link(bps: f64, delay_ms: u64) -> Value {
    json!({"name": format!("l{delay_ms}"), "capacity": {"kind": "constant", "bps": bps}, "delay_ns": delay_ms * MS,
           "queue": {"kind": "droptail", "packets": 100}})
}

/// Runs `cfg` with a capture at flow 0's sender; its records.
fn captured(mut cfg: Value) -> Vec<Rec> {
    cfg["pcap"] = json!({"links": [], "flows": [0]});
    let out = mpcc_sim::run_json(&cfg.to_string()).unwrap_or_else(|e| panic!("run fails: {e}"));
    records(&out.pcaps[0].1)
}

fn one_flow(tcp: Value) -> Value {
    json!({"duration_ns": S / 2, "seed": 1, "links": [link(10e6, 10)],
           "flows": [{"name": "f", "cc": "reno", "app": {"kind": "bulk"}, "path": [0], "tcp": tcp}]})
}

/// Data leaves with the third ACK, when the SYN-ACK arrives one round trip (20 ms
/// plus the SYN's 41.6 µs at 10 Mbit/s) after the start; without the handshake, at once.
#[test]
fn data_waits_for_the_synack() {
    for profile in ["linux", "ns3"] {
        let r = captured(one_flow(json!({"profile": profile})));
        let (syn, synack, third) = (r[0], r[1], r[2]);
        assert_eq!((syn.flags, syn.from_client, syn.t), (SYN, true, 0), "{profile}");
        assert_eq!((synack.flags, synack.from_client), (SYN | ACK, false), "{profile}");
        assert_eq!(synack.t, 20 * MS + 41_600, "{profile}");
        assert_eq!((third.flags & (SYN | ACK), third.t), (ACK, synack.t), "{profile}");
        let data = r.iter().find(|x| x.from_client && x.payload > 0).unwrap();
        assert_eq!(data.t, synack.t, "{profile}: the first data goes with the third ACK");
    }
    let r = captured(one_flow(json!({"profile": "linux", "handshake": false})));
    let data = r.iter().find(|x| x.from_client && x.payload > 0).unwrap();
    assert_eq!(data.t, 0, "no handshake: data at the start (the capture still shows one, synthesised)");
}

/// Every SYN lost: Linux's SYNs at 0, 1, 3, 7, 15 s (1 s doubled), ns-3's at 0, 3, 9 s
/// (its 3 s ConnTimeout doubled); no data ever leaves.
#[test]
fn lost_syns_are_sent_again_on_a_doubling_timer() {
    for (profile, expect) in [("linux", vec![0, 1, 3, 7, 15]), ("ns3", vec![0, 3, 9])] {
        let mut cfg = one_flow(json!({"profile": profile}));
        cfg["duration_ns"] = json!(20 * S);
        cfg["links"][0]["loss"] = json!({"kind": "periodic", "every": 1});
        let r = captured(cfg);
        let syns: Vec<u64> = r.iter().filter(|x| x.flags == SYN).map(|x| x.t / S).collect();
        assert_eq!(syns, expect, "{profile}");
        assert!(r.iter().all(|x| x.payload == 0), "{profile}: no data without a SYN-ACK");
    }
    // The lost SYNs count as the subflow's drops; a lost SYN-ACK (every one, on a
    // lossy reverse link) is recovered by the SYN's own timer just the same.
    let mut cfg = one_flow(json!({"profile": "linux"}));
    cfg["duration_ns"] = json!(20 * S);
    cfg["links"][0]["loss"] = json!({"kind": "periodic", "every": 1});
    assert_eq!(common::num(&common::run(&cfg), "/flows/f/drops"), 5.0);
    let mut cfg = one_flow(json!({"profile": "linux"}));
    cfg["duration_ns"] = json!(5 * S);
    cfg["links"].as_array_mut().unwrap().push(json!({"name": "back", "capacity": {"kind": "constant", "bps": 10e6},
        "delay_ns": 10 * MS, "queue": {"kind": "droptail", "packets": 100}, "loss": {"kind": "periodic", "every": 1}}));
    cfg["flows"][0]["reverse_path"] = json!([1]);
    let r = captured(cfg);
    let syns: Vec<u64> = r.iter().filter(|x| x.flags == SYN).map(|x| x.t / S).collect();
    assert_eq!(syns, [0, 1, 3], "every SYN-ACK lost on the way back");
}

/// Two subflows (20 ms and 80 ms round trips): the MP_JOIN SYN leaves when the first
/// ACK after the first subflow's handshake arrives (Linux's fully established
/// connection), and the second subflow's data one of its own round trips later.
#[test]
fn the_join_waits_for_the_connection_to_be_fully_established() {
    let cfg = json!({"duration_ns": S / 2, "seed": 1, "links": [link(10e6, 10), link(20e6, 40)],
        "flows": [{"name": "mp", "cc": "lia", "app": {"kind": "bulk"},
                   "subflows": [{"path": [0]}, {"path": [1]}], "tcp": {"profile": "linux"}}]});
    let r = captured(cfg);
    let first = |sub: u8, f: &dyn Fn(&Rec) -> bool| *r.iter().find(|x| x.sub == sub && f(x)).unwrap();
    let synack0 = first(0, &|x| x.flags == SYN | ACK);
    let ack0 = first(0, &|x| !x.from_client && x.flags == ACK);
    let syn1 = first(1, &|x| x.flags == SYN);
    let synack1 = first(1, &|x| x.flags == SYN | ACK);
    let data1 = first(1, &|x| x.from_client && x.payload > 0);
    assert!(ack0.t > synack0.t);
    assert_eq!(syn1.t, ack0.t, "the MP_JOIN goes with the first ACK after the handshake");
    assert_eq!(synack1.t, syn1.t + 80 * MS + 20_800, "one round trip of its own (52 bytes at 20 Mbit/s)");
    assert_eq!(data1.t, synack1.t);
}

/// The SYN-ACK also crosses reverse links, queueing there like any packet, and its
/// round trip becomes the sender's first RTT sample (before any data is acknowledged).
#[test]
fn the_synack_crosses_reverse_links_and_seeds_the_rtt() {
    let cfg = json!({"duration_ns": 20 * MS + 41_600 + 1_000 + 5 * MS, "seed": 1,
        "links": [link(10e6, 10), link(1e6, 5)],
        "flows": [{"name": "f", "cc": "reno", "app": {"kind": "bulk"}, "path": [0], "reverse_path": [1],
                   "tcp": {"profile": "linux"}}]});
    let config: mpcc_sim::config::Config = serde_json::from_value(cfg).unwrap();
    let mut sim = mpcc_sim::sim::Sim::new(&config).unwrap();
    sim.run();
    let s = &sim.flows.iter().next().unwrap().subs[0];
    // SYN: 41.6 µs + 10 ms; SYN-ACK: 416 µs at 1 Mbit/s + 5 ms.
    let rtt = 41_600 + 10 * MS + 416_000 + 5 * MS;
    assert!(s.active);
    assert_eq!((s.snd.rtt.srtt, s.snd.rtt.min_rtt), (rtt, rtt));
    assert_eq!(s.snd.stats.sent_packets, 10, "the initial window went with the third ACK");
}

/// The same join over a first path without delay, whose ACKs the sender reads where
/// the receiver built them (`Event::AckBuilt`, no capture or log to see it): the
/// second subflow still opens and carries data.
#[test]
fn the_join_follows_an_ack_read_in_place() {
    let cfg = json!({"duration_ns": S / 2, "seed": 1, "links": [link(100e6, 0), link(20e6, 40)],
        "flows": [{"name": "mp", "cc": "lia", "app": {"kind": "bulk"},
                   "subflows": [{"path": [0]}, {"path": [1]}], "tcp": {"profile": "linux"}}]});
    let config: mpcc_sim::config::Config = serde_json::from_value(cfg).unwrap();
    let mut sim = mpcc_sim::sim::Sim::new(&config).unwrap();
    sim.run();
    let f = sim.flows.iter().next().unwrap();
    assert!(f.hs.fully_established);
    assert!(f.subs.iter().all(|s| s.active && s.snd.stats.sent_packets > 0));
}
