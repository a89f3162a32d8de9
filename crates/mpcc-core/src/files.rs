//! Reading the input files a scenario names (capacity and frame-size traces):
//! only regular files, and only up to a size limit, so that a path such as
//! `/dev/zero`, a FIFO or a directory gives one clear error instead of reading
//! forever or blocking.

use std::io::Read;

/// The largest trace file read: 256 MiB.
pub const MAX_TRACE_BYTES: u64 = 256 << 20;

/// The text of the regular file at `path`, at most `max_bytes` long. Errors say
/// what is wrong without quoting the file's content.
pub fn read_regular(path: &str, max_bytes: u64) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
    if !meta.is_file() {
        return Err(format!("'{path}' is not a regular file"));
    }
    if meta.len() > max_bytes {
        return Err(format!("'{path}' is {} bytes; allowed: at most {max_bytes}", meta.len()));
    }
    let mut text = String::new();
    // The limit holds even if the file grows while it is read.
    std::fs::File::open(path)
        .and_then(|f| f.take(max_bytes + 1).read_to_string(&mut text))
        .map_err(|e| format!("cannot read '{path}': {e}"))?;
    if text.len() as u64 > max_bytes {
        return Err(format!("'{path}' grew past {max_bytes} bytes while it was read"));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_regular_file_or_too_large() {
        assert!(read_regular("/dev/zero", 1 << 20).unwrap_err().contains("not a regular file"));
        assert!(read_regular("/", 1 << 20).unwrap_err().contains("not a regular file"));
        assert!(read_regular("/nonexistent/x", 1 << 20).unwrap_err().contains("cannot read"));
        let path = std::env::temp_dir().join(format!("mpcc-files-{}", std::process::id()));
        std::fs::write(&path, "1\n2\n").unwrap();
        let p = path.to_str().unwrap();
        assert_eq!(read_regular(p, 4).unwrap(), "1\n2\n");
        assert!(read_regular(p, 3).unwrap_err().contains("at most 3"));
        std::fs::remove_file(&path).unwrap();
    }
}
