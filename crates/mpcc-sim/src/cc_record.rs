//! Records the congestion-control events of one connection to a text file, so
//! that the integer C cores of the eBPF controllers (ebpf/replay) can replay the
//! same sequence and their window trajectories can be compared with the Rust
//! controller's (docs/kernel.md).
//!
//! Each subflow's sender holds an `Option<Recorder>`; with recording off the
//! per-ACK cost is one branch on `None`. One line per event, after the
//! controller has handled it, with the window and threshold it left:
//!
//! ```text
//! # mpcc-cc-record 1 cc=lia flow=mptcp subflows=2
//! N sf cwnd ssthresh                                  subflow added
//! A sf now acked rtt srtt min_rtt flags cwnd ssthresh ACK (flags: 1 recovery, 2 round start, 4 app-limited)
//! C sf now kind cwnd ssthresh srtt                    congestion (kind: L loss, E ECN, T timeout;
//!                                                     srtt: the smoothed RTT the event carries)
//! X sf now cwnd ssthresh                              recovery exit
//! ```
//! Times in nanoseconds, windows in segments (shortest round-trip float text).

use std::cell::RefCell;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::rc::Rc;

use mpcc_algo::{AckEvent, CongestionControl, CongestionEvent, CongestionKind, Controller};

/// Shared by the senders of the recorded connection (the simulator is single-threaded).
pub type Recorder = Rc<RefCell<CcRecorder>>;

pub struct CcRecorder {
    out: BufWriter<File>,
    /// The first write error, reported at the end of the run.
    pub error: Option<String>,
}

impl CcRecorder {
    fn line(&mut self, args: std::fmt::Arguments) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_fmt(args) {
                self.error = Some(e.to_string());
            }
        }
    }

    pub fn ack(&mut self, sf: usize, ev: &AckEvent, cc: &Controller) {
        let flags = ev.in_recovery as u8 | (ev.round_start as u8) << 1 | (ev.app_limited as u8) << 2;
        self.line(format_args!(
            "A {sf} {} {} {} {} {} {flags} {} {}\n",
            ev.now,
            ev.acked,
            ev.rtt,
            ev.srtt,
            ev.min_rtt,
            cc.cwnd(sf),
            cc.ssthresh(sf)
        ));
    }

    pub fn congestion(&mut self, sf: usize, ev: &CongestionEvent, cc: &Controller) {
        let kind = match ev.kind {
            CongestionKind::Loss => 'L',
            CongestionKind::Ecn => 'E',
            CongestionKind::Timeout => 'T',
        };
        self.line(format_args!("C {sf} {} {kind} {} {} {}\n", ev.now, cc.cwnd(sf), cc.ssthresh(sf), ev.srtt));
    }

    pub fn recovery_exit(&mut self, sf: usize, now: u64, cc: &Controller) {
        self.line(format_args!("X {sf} {now} {} {}\n", cc.cwnd(sf), cc.ssthresh(sf)));
    }

    /// Flushes the file; the first error of the run, if any.
    pub fn finish(&mut self) -> Result<(), String> {
        if let Err(e) = self.out.flush() {
            self.error.get_or_insert(e.to_string());
        }
        match &self.error {
            Some(e) => Err(format!("record_cc: {e}")),
            None => Ok(()),
        }
    }
}

/// Opens the record file `path` and writes its header: the connection's controller
/// and name, and each subflow's initial (cwnd, ssthresh).
pub fn open(path: &str, cc: &str, flow: &str, windows: &[(f64, f64)]) -> Result<Recorder, String> {
    let file = File::create(path).map_err(|e| format!("record_cc.path: {path}: {e}"))?;
    let rec = Rc::new(RefCell::new(CcRecorder { out: BufWriter::new(file), error: None }));
    {
        let mut r = rec.borrow_mut();
        r.line(format_args!("# mpcc-cc-record 1 cc={cc} flow={flow} subflows={}\n", windows.len()));
        for (sf, (cwnd, ssthresh)) in windows.iter().enumerate() {
            r.line(format_args!("N {sf} {cwnd} {ssthresh}\n"));
        }
    }
    Ok(rec)
}
