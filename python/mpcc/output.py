"""The results folder of a run:

    summary.json          summary statistics (sorted keys, indent 2; byte-identical
                          for the same scenario and seed except sim.wall_s)
    flow_series.parquet   per-subflow time series (flow names, subflow ids, derived
                          throughput_bps per subflow and goodput_bps per flow)
    link_series.parquet   per-link time series
    delay_cdf.parquet     each flow's RTT and application-delay CDF (quantile sketch, or exact_percentiles)
    metric_series.parquet the controllers' and schedulers' own figures, when asked for (`metric_series`)
    events.parquet        the per-event log, when asked for (`event_log`)
    link-NAME.pcap,       packet captures of a link or a flow's sender, when asked
    flow-NAME.pcap        for (`pcap`)
    scenario.toml         the scenario as given
    config.json           the canonical configuration the simulator ran
    *.png                 the plots (mpcc.plots), unless turned off
    .mpcc-manifest.json   what mpcc wrote here (see below)

Folders that mpcc writes (a run's results, a paper's report) are built in a
temporary sibling folder and moved into place in one rename, so a crash, a full
disk or Ctrl-C never leaves a half-written folder under the final name. Each
carries a manifest listing every file mpcc wrote, with its size and SHA-256. An
existing folder is replaced only if the manifest accounts for every file in it:
mpcc never deletes a file it did not write.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import math
import os
import secrets
import shutil
from pathlib import Path

SUMMARY = "summary.json"
FLOW_SERIES = "flow_series.parquet"
LINK_SERIES = "link_series.parquet"
EVENTS = "events.parquet"
METRIC_SERIES = "metric_series.parquet"
DELAY_CDF = "delay_cdf.parquet"
SCENARIO = "scenario.toml"
CONFIG = "config.json"
MANIFEST = ".mpcc-manifest.json"


class OutputFolderError(ValueError):
    """An output folder mpcc refuses to write or replace; the message is one line."""


class OutputsIncomplete(Exception):
    """Some outputs of a finished run could not be written: memory ran out (`MemoryError`)
    or a plot failed. The folder holds `written` (summary.json first), not `missing`;
    `result` is the run."""

    def __init__(self, folder: Path, written: list[str], missing: list[str], reason: str, result=None):
        self.folder, self.written, self.missing, self.result = folder, written, missing, result
        super().__init__(f"{reason} while writing {folder}: wrote {', '.join(written) or 'nothing'}; "
                         f"not written: {', '.join(missing)}")


def write(result, out, force: bool = False, plots: bool = True, flag: str = "force=True") -> tuple[Path, list[Path]]:
    """Writes the results folder `out` (see the module docstring); returns it and the
    plots written. Refuses an existing `out` unless `force` and mpcc wrote all of it.
    Raises OutputsIncomplete (after saving the rest) if memory runs out on the way
    or a plot fails."""
    final = Path(out)
    with building(final, force, flag) as tmp:
        written, missing = _write_files(result, tmp)
        reason = "out of memory" if missing else ""
        pngs = []
        if plots and not missing:
            pngs, reason = _draw_plots(tmp)
            missing = ["plots"] if reason else []
    if missing:
        raise OutputsIncomplete(final, written, missing, reason, result)
    return final, [final / p.name for p in pngs]


def _write_files(result, folder: Path) -> tuple[list[str], list[str]]:
    """Writes each file of a results folder, summary.json first; a file that runs out
    of memory is skipped so the others (smaller ones especially) are still saved."""
    from . import parquet

    def scenario_text():
        scenario = result.scenario
        if scenario is not None and scenario._toml_text is not None:
            return scenario._toml_text
        return dumps_toml((scenario._source if scenario is not None else None) or {})

    steps = [
        (SUMMARY, lambda path: path.write_text(dumps_json(_with_version(result.summary)), encoding="utf-8")),
        (CONFIG, lambda path: path.write_text(dumps_json(result.config), encoding="utf-8")),
        (SCENARIO, lambda path: path.write_text(scenario_text(), encoding="utf-8")),
        (FLOW_SERIES, lambda path: parquet.write(path, result.plain_columns("flow_series"))),
        (LINK_SERIES, lambda path: parquet.write(path, result.plain_columns("link_series"))),
    ]
    if result.tables.get("delay_cdf") is not None:
        steps.append((DELAY_CDF, lambda path: parquet.write(path, result.plain_columns("delay_cdf"))))
    if result.tables.get("metric_series") is not None:
        steps.append((METRIC_SERIES, lambda path: parquet.write(path, result.plain_columns("metric_series"))))
    if result.tables.get("event_log") is not None:
        steps.append((EVENTS, lambda path: parquet.write(path, result.plain_columns("event_log"))))
    for name, data in getattr(result, "pcaps", {}).items():
        steps.append((f"{name}.pcap", lambda path, data=data: path.write_bytes(data)))
    written, missing = [], []
    for name, save in steps:
        try:
            save(folder / name)
            written.append(name)
        except MemoryError:
            (folder / name).unlink(missing_ok=True)
            missing.append(name)
    return written, missing


def _draw_plots(folder: Path) -> tuple[list[Path], str]:
    """(plots written, "") or, if plotting fails, ([], why): the data files stay."""
    from .plots import plot_results

    try:
        return plot_results(folder), ""
    except MemoryError:
        reason = "out of memory"
    except Exception as e:  # noqa: BLE001 - a plot must never cost the run's data
        reason = f"plotting failed ({type(e).__name__}: {e})"
    for png in folder.glob("*.png"):
        png.unlink()
    return [], reason


# ---- folders mpcc writes -------------------------------------------------------------------


def check_replaceable(folder, force: bool = True, flag: str = "force=True") -> None:
    """Raises OutputFolderError unless `folder` is absent or, with `force`, holds only
    files that mpcc wrote (listed in its manifest, unchanged)."""
    folder = Path(folder)
    if not os.path.lexists(folder):
        return
    if folder.is_symlink() or not folder.is_dir():
        raise OutputFolderError(f'"{folder}" exists and is not a folder; choose another output folder')
    if Path(os.path.abspath(folder)) in (Path.cwd(), *Path.cwd().parents):  # replacing it would strand the shell
        raise OutputFolderError(f'"{folder}" is the current folder or holds it; choose another output folder')
    if not force:
        raise OutputFolderError(f'output folder "{folder}" already exists; pass {flag} to replace it')
    problem = _foreign_content(folder)
    if problem:
        raise OutputFolderError(f'not replacing "{folder}": {problem}; move it away or choose another folder')


def _foreign_content(folder: Path) -> str:
    """Why `folder` is not entirely mpcc's, or "" if it is."""
    listed = read_manifest(folder)
    if listed is None:
        if not any(folder.iterdir()):
            return ""  # an empty folder: nothing to lose
        return f"it has no readable {MANIFEST}, so mpcc did not write it"
    for name in _files(folder):
        entry = listed.get(name)
        if entry is None:
            return f"{name} was not written by mpcc"
        if _fingerprint(folder / name) != entry:
            return f"{name} was changed after mpcc wrote it"
    return ""


def _files(folder: Path) -> list[str]:
    """Every non-folder entry under `folder` (symlinks not followed), relative, sorted."""
    names = []
    for root, dirs, files in os.walk(folder):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            rel = Path(root, name).relative_to(folder).as_posix()
            if rel != MANIFEST:
                names.append(rel)
    return sorted(names)


def _fingerprint(path: Path) -> dict | None:
    if path.is_symlink() or not path.is_file():
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return {"bytes": path.stat().st_size, "sha256": digest.hexdigest()}


def read_manifest(folder) -> dict | None:
    """{relative path: {bytes, sha256}} of a folder's manifest, or None without one."""
    try:
        data = json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
        files = data["files"]
        return files if isinstance(files, dict) else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_manifest(folder) -> None:
    """Lists every file in `folder` as written by mpcc."""
    folder = Path(folder)
    _save_manifest(folder, {name: _fingerprint(folder / name) for name in _files(folder)})


def _save_manifest(folder: Path, files: dict) -> None:
    """Sorted and without dates, so identical folders get identical manifests."""
    (folder / MANIFEST).write_text(json.dumps({"written_by": "mpcc", "files": files}, sort_keys=True, indent=1)
                                   + "\n", encoding="utf-8")


@contextlib.contextmanager
def building(final, force: bool = True, flag: str = "force=True"):
    """Yields an empty temporary sibling of `final` to fill. On success the folder gets
    its manifest and takes `final`'s place in one rename (replacing it only if
    check_replaceable allows, checked again at the swap); on any failure it is removed
    and `final` is left as it was. Errors name `final`, not the temporary folder."""
    final = Path(final)
    check_replaceable(final, force, flag)
    where = Path(os.path.abspath(final))  # "." and "dir/.." have no usable name
    if where.parent == where:
        raise OutputFolderError(f'"{final}" cannot be an output folder; choose another one')
    parent = where.parent
    with _naming(final, final):
        parent.mkdir(parents=True, exist_ok=True)
    _remove_dead_temporaries(parent, where.name)
    tmp = parent / f".{where.name}.mpcc-tmp-{os.getpid()}-{secrets.token_hex(4)}"
    with _naming(final, final):
        tmp.mkdir()
    try:
        with _naming(tmp, final):
            yield tmp
            write_manifest(tmp)
            with locked(parent):
                check_replaceable(final, force, flag)
                _swap_into_place(tmp, where)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def _naming(tmp: Path, final: Path):
    """Re-raises an OSError with the path the user knows: `final` instead of the
    temporary folder (or instead of no path at all, e.g. a full disk)."""
    try:
        yield
    except OSError as e:
        name = str(final)
        if e.filename and str(e.filename).startswith(str(tmp)):
            name = str(final) + str(e.filename)[len(str(tmp)):]
        elif e.filename and tmp == final:
            name = str(e.filename)
        raise OSError(e.errno, e.strerror or " ".join(str(e).split()), name) from None


@contextlib.contextmanager
def locked(folder: Path):
    """An exclusive flock on `folder` itself, so concurrent mpcc processes swapping
    folders inside it take turns (and no lock file is left behind)."""
    import fcntl

    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _swap_into_place(tmp: Path, final: Path) -> None:
    if not os.path.lexists(final):
        os.rename(tmp, final)
        return
    if not _exchange(tmp, final):  # no atomic exchange here: two renames
        old = final.parent / f".{final.name}.mpcc-old-{os.getpid()}-{secrets.token_hex(4)}"
        os.rename(final, old)
        os.rename(tmp, final)
        tmp = old
    shutil.rmtree(tmp)  # now the replaced folder, checked to be all mpcc's


def _exchange(a: Path, b: Path) -> bool:
    """Swaps two paths atomically (Linux renameat2 RENAME_EXCHANGE); False if unsupported."""
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EPERM, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _remove_dead_temporaries(parent: Path, name: str) -> None:
    """Temporary folders of `name` left by a killed mpcc process."""
    for prefix in (f".{name}.mpcc-tmp-", f".{name}.mpcc-old-"):
        for path in parent.glob(prefix + "*"):
            pid = path.name[len(prefix):].split("-")[0]
            if pid.isdigit() and not alive(int(pid)):
                shutil.rmtree(path, ignore_errors=True)


def alive(pid: int) -> bool:
    """Whether process `pid` still runs (its temporary files are then not stale)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def write_file(folder, name: str, text: str) -> Path:
    """Writes `folder/name` (a file among others that mpcc did not write, e.g. the
    index of a reports folder) atomically and lists it in the folder's manifest.
    Replaces an existing file only if the manifest says mpcc wrote it, unchanged."""
    folder = Path(folder)
    path = folder / name
    check_file_replaceable(folder, name)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{name}.mpcc-tmp-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        with _naming(path, path):
            tmp.write_text(text, encoding="utf-8")
            with locked(folder):
                check_file_replaceable(folder, name)
                os.replace(tmp, path)
                listed = read_manifest(folder) or {}
                _save_manifest(folder, {**listed, name: _fingerprint(path)})
    finally:
        tmp.unlink(missing_ok=True)
    return path


def record_written(folder, names: list[str]) -> None:
    """Adds files mpcc (re)wrote in place, e.g. by `mpcc plot`, to the folder's manifest,
    if it has one, so that they still count as mpcc's."""
    folder = Path(folder)
    with locked(folder):
        listed = read_manifest(folder)
        if listed is not None:
            _save_manifest(folder, {**listed, **{name: _fingerprint(folder / name) for name in names}})


def check_file_replaceable(folder, name: str) -> None:
    """Raises OutputFolderError if `folder/name` exists and mpcc did not write it."""
    path = Path(folder) / name
    if not os.path.lexists(path):
        return
    listed = read_manifest(folder) or {}
    if name not in listed or _fingerprint(path) != listed[name]:
        raise OutputFolderError(f'not replacing "{path}": mpcc did not write it (or it was changed since); '
                                "move it away or choose another folder")


def read(out):
    """(summary dict, flow_series DataFrame, link_series DataFrame) of a results folder."""
    import pandas as pd

    out = Path(out)
    summary = json.loads((out / SUMMARY).read_text(encoding="utf-8"))
    return summary, pd.read_parquet(out / FLOW_SERIES), pd.read_parquet(out / LINK_SERIES)


def dumps_json(data) -> str:
    """Deterministic JSON: sorted keys, indent 2, NaN and infinities as null, final newline."""
    return json.dumps(_finite(data), sort_keys=True, indent=2, allow_nan=False) + "\n"


def _finite(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def dumps_toml(data: dict) -> str:
    """A small TOML writer for scenario dicts: scalars first, then [tables] and [[arrays of tables]].

    Values below the section level are written inline; None values are left out
    (TOML has no null)."""
    lines, sections = [], []
    for key, value in data.items():
        if value is None:
            continue
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            for name, table in value.items():
                sections.append(f"\n[{_key(key)}.{_key(name)}]")
                sections += [f"{_key(k)} = {_value(v)}" for k, v in table.items() if v is not None]
        elif isinstance(value, dict):
            sections.append(f"\n[{_key(key)}]")
            sections += [f"{_key(k)} = {_value(v)}" for k, v in value.items() if v is not None]
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for table in value:
                sections.append(f"\n[[{_key(key)}]]")
                sections += [f"{_key(k)} = {_value(v)}" for k, v in table.items() if v is not None]
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    return "\n".join(lines + sections).lstrip("\n") + "\n"


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() and k.isascii() else json.dumps(k)


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items() if x is not None) + " }"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _with_version(summary: dict) -> dict:
    """The summary as written to summary.json: with the mpcc version and source commit
    that made it (`mpcc`: {version, commit})."""
    from . import version

    return {**summary, "mpcc": version.describe()}
