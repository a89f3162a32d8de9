//! TUN devices opened inside other network namespaces. The device lives as long as
//! its file descriptor, so when the emulator exits (or is killed) every device it
//! made disappears with it.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

fn check(ret: libc::c_int, what: &str) -> io::Result<libc::c_int> {
    if ret < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("{what}: {e}")));
    }
    Ok(ret)
}

fn open(path: &str, flags: libc::c_int) -> io::Result<OwnedFd> {
    let c = CString::new(path).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path with NUL"))?;
    // SAFETY: a valid C string; the descriptor is owned by the returned OwnedFd.
    let fd = check(unsafe { libc::open(c.as_ptr(), flags | libc::O_CLOEXEC) }, path)?;
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Opens TUN device `name` (IPv4 packets without a header, non-blocking) inside
/// the network namespace at `netns`, and returns to the caller's namespace.
pub fn open_in_netns(netns: &str, name: &str) -> io::Result<OwnedFd> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("bad device name {name:?}")));
    }
    let home = open("/proc/self/ns/net", libc::O_RDONLY)?;
    let target = open(netns, libc::O_RDONLY)?;
    // SAFETY: setns on descriptors we own; the emulator is single-threaded here.
    check(unsafe { libc::setns(target.as_raw_fd(), libc::CLONE_NEWNET) }, netns)?;
    let made = (|| {
        let fd = open("/dev/net/tun", libc::O_RDWR | libc::O_NONBLOCK)?;
        let mut req = IfReq { name: [0; libc::IFNAMSIZ], flags: IFF_TUN | IFF_NO_PI, _pad: [0; 22] };
        req.name[..name.len()].copy_from_slice(name.as_bytes());
        // SAFETY: TUNSETIFF reads and writes an ifreq, which IfReq lays out.
        check(unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF as _, &mut req) }, "TUNSETIFF")?;
        Ok(fd)
    })();
    // SAFETY: as above; going home must not fail silently.
    check(unsafe { libc::setns(home.as_raw_fd(), libc::CLONE_NEWNET) }, "returning to the emulator's namespace")?;
    made
}

/// Reads one packet; Ok(None) when none is waiting.
pub fn read(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    // SAFETY: buf is a valid writable buffer of buf.len() bytes.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        };
    }
    Ok(Some(n as usize))
}

/// Writes one packet; false when the device would not take it.
pub fn write(fd: RawFd, pkt: &[u8]) -> bool {
    // SAFETY: pkt is a valid buffer of pkt.len() bytes.
    unsafe { libc::write(fd, pkt.as_ptr().cast(), pkt.len()) == pkt.len() as isize }
}
