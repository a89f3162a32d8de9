"""The run cache: one file per finished run, named by a hash of the canonical
configuration (seed included) and the simulator version, so a run is never
computed twice and a rebuilt simulator never reuses stale results.

Each file is an uncompressed .npz: the summary and the configuration as JSON text,
every time-series column as an array, the entry's key, and a SHA-256 checksum of
all of these. It is written to a temporary name and renamed, so an interrupted
write leaves no half file under the final name. An entry that cannot be read, whose
checksum does not match its content, or whose key is not its file name (another
run's entry copied over it) is reported by name on stderr, discarded and recomputed.

Processes sharing a cache take an flock on `<key>.lock` next to an entry while they
compute it, so two reproductions never simulate the same run twice; the holder removes
the lock file when it is done.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
from functools import lru_cache
from pathlib import Path

from ..output import alive

SUFFIX = ".npz"
LOCK_SUFFIX = ".lock"


class DamagedEntry(ValueError):
    """A cache entry that cannot be trusted; it has been reported and discarded."""


@lru_cache(maxsize=1)
def simulator_version() -> str:
    """The extension's version plus a hash of its binary (a rebuild changes it)."""
    from .. import _core

    digest = hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:16]
    return f"{_core.__version__}+{digest}"


def run_key(config: dict, version: str) -> str:
    """The cache key of a run: its canonical configuration, the simulator build, and
    the content of every file the configuration reads (capacity and frame-size
    traces), so that an edited trace is never served from the cache."""
    inputs = {path: file_digest(path) for path in input_files(config)}
    canonical = json.dumps({"config": config, "simulator": version, "inputs": inputs}, sort_keys=True,
                           separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def input_files(config) -> list[str]:
    """Paths of the files a canonical configuration reads: the string values of its
    `path` (a trace capacity) and `trace` (a frame-size list) fields."""
    found = []
    if isinstance(config, dict):
        for k, v in config.items():
            if k in ("path", "trace") and isinstance(v, str):
                found.append(v)
            else:
                found += input_files(v)
    elif isinstance(config, list):
        for v in config:
            found += input_files(v)
    return sorted(set(found))


def file_digest(path: str) -> str:
    """SHA-256 of a file's content ("missing" if it cannot be read: the run then
    fails on its own), remembered per (path, size, modification time)."""
    try:
        st = os.stat(path)
    except OSError:
        return "missing"
    return _digest(path, st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=1024)
def _digest(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checksum(arrays: dict) -> str:
    """SHA-256 over every array of an entry but the checksum itself: names, dtypes,
    shapes and bytes, in name order."""
    import numpy as np

    digest = hashlib.sha256()
    for name in sorted(arrays):
        if name == "checksum":
            continue
        a = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}\0{a.dtype.str}\0{a.shape}\0".encode())
        digest.update(a.tobytes())
    return digest.hexdigest()


class RunCache:
    def __init__(self, root):
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}{SUFFIX}"

    def has(self, key: str) -> bool:
        """An entry file exists (its content is checked when it is loaded)."""
        return self.path(key).is_file()

    def entries(self) -> list[Path]:
        return sorted(self.root.glob(f"*/*{SUFFIX}"))

    def store(self, key: str, config: dict, summary: dict, tables: dict) -> Path:
        import numpy as np

        final = self.path(key)
        final.parent.mkdir(parents=True, exist_ok=True)
        arrays = {"summary": np.array(json.dumps(summary)), "config": np.array(json.dumps(config)),
                  "key": np.array(key)}
        for table, columns in tables.items():
            for column, values in columns.items():
                arrays[f"{table}/{column}"] = np.asarray(values)
        arrays["checksum"] = np.array(checksum(arrays))
        tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "wb") as f:
                np.savez(f, **arrays)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, final)
        except OSError as e:  # e.g. a full disk: name the entry, leave no temporary
            tmp.unlink(missing_ok=True)
            raise OSError(e.errno, e.strerror or str(e), str(final)) from None
        return final

    def load(self, key: str):
        """The cached run as an mpcc.Result (without its Scenario object). Raises
        DamagedEntry (after reporting and discarding the entry) if it cannot be trusted."""
        from ..run import Result

        arrays = self._read(key)
        summary = json.loads(str(arrays.pop("summary")))
        config = json.loads(str(arrays.pop("config")))
        tables: dict = {}
        for name, values in arrays.items():
            if "/" in name:
                table, column = name.split("/", 1)
                tables.setdefault(table, {})[column] = values.tolist()
        return Result(None, config, summary, tables)

    def valid(self, key: str) -> bool:
        """The entry exists and is intact; a damaged one is reported and discarded."""
        if not os.path.lexists(self.path(key)):
            return False
        try:
            self._read(key)
        except DamagedEntry:
            return False
        return True

    def _read(self, key: str) -> dict:
        """Every array of the entry, after checking its key and checksum."""
        path = self.path(key)
        if not os.path.lexists(path):  # removed meanwhile (e.g. discarded by another process)
            raise DamagedEntry(f"cache entry {path} is missing")
        try:
            arrays = _read_npz(path)
        except Exception as e:  # noqa: BLE001 - any reader error means a damaged file
            self._discard(path, f"unreadable: {type(e).__name__}: {e}")
        if "checksum" not in arrays or "key" not in arrays:
            self._discard(path, "no checksum or key (written by an older mpcc)")
        if str(arrays.pop("key")) != key:
            self._discard(path, "it holds another run (its key is not its file name)")
        if str(arrays.pop("checksum")) != checksum({**arrays, "key": key}):
            self._discard(path, "its content does not match its checksum")
        return arrays

    def _discard(self, path: Path, reason: str):
        reason = " ".join(reason.split())[:200]
        print(f"mpcc: warning: cache entry {path} is damaged ({reason}); discarded, the run will be recomputed",
              file=sys.stderr, flush=True)
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        raise DamagedEntry(f"cache entry {path} is damaged ({reason})")

    @contextlib.contextmanager
    def lock(self, key: str, wait: bool):
        """Holds `<key>.lock` (flock) while one process computes the entry; yields
        False at once if another process holds it and not `wait`.

        The holder removes the lock file before it lets go, so a finished cache keeps
        no lock files. A process that was waiting then holds a lock on a removed file,
        which guards nothing: it sees that the name no longer leads to the file it
        locked and tries again (and then finds the entry stored)."""
        import fcntl

        lock = self.path(key).with_suffix(LOCK_SUFFIX)
        lock.parent.mkdir(parents=True, exist_ok=True)
        while True:
            with open(lock, "a") as f:
                try:
                    fcntl.flock(f.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
                except BlockingIOError:
                    yield False
                    return
                if not _names(lock, f):
                    continue
                try:
                    yield True
                finally:
                    lock.unlink(missing_ok=True)  # still held: no one can lock this file next
                return  # closing the file releases the lock

    def remove_stale_temporaries(self) -> None:
        """Temporary files left by a killed writer."""
        for tmp in self.root.glob("*/.*.tmp"):
            try:
                pid = int(tmp.name.rsplit(".", 2)[-2])
            except ValueError:
                continue
            if not alive(pid):
                tmp.unlink(missing_ok=True)


def _names(path: Path, f) -> bool:
    """Whether `path` still names the open file `f` (not removed or replaced)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    own = os.fstat(f.fileno())
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


def _read_npz(path: Path) -> dict:
    import numpy as np

    with np.load(path, allow_pickle=False) as npz:
        return {name: npz[name] for name in npz.files}

