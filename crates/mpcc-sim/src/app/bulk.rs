//! `bulk` and `file`: the data is always waiting (`DataSender::set_app_bytes`
//! sets how much), so the application has nothing to do until the flow stops.

use super::{AppEnv, Application};
use crate::conn::{AppTiming, DataSender};
use mpcc_core::params::{need, param, Info, Unit};
use mpcc_core::Nanos;

// Registry entries (listed in `APPS`, mod.rs).
pub const BULK: Info = Info::new("bulk", "always has data to send", super::DOC, &[]);
pub const FILE: Info = Info::new(
    "file",
    "sends `size` bytes, then stops; completion time is reported",
    super::DOC,
    &[param("bytes", f64::NAN, 1.0, super::MAX_BYTES, "the file's size")],
)
.with_units(&[("bytes", Unit::Size)])
.with_names(&[("bytes", "size")])
.with_rule(|p| need(p, &["bytes"]));

pub struct Bulk;

impl Bulk {
    pub fn new(env: AppEnv) -> Result<Bulk, String> {
        match env.send_buf {
            Some(_) => Err(format!(
                "{}: allowed only with the cbr, vbr and web applications",
                (env.field)("tcp.send_buf_bytes")
            )),
            None => Ok(Bulk),
        }
    }
}

impl Application for Bulk {
    fn start(&mut self, _now: Nanos, _data: &mut DataSender, _timing: &mut AppTiming) {}

    #[inline]
    fn poll_at(&self) -> Option<Nanos> {
        None
    }

    fn on_timer(&mut self, _now: Nanos, _data: &mut DataSender, _timing: &mut AppTiming) {}

    /// It stops offering data at once.
    fn stop(&mut self, _now: Nanos, data: &mut DataSender) {
        data.stop_app();
    }
}
