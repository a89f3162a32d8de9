"""The run cache: a damaged, edited or swapped entry is reported by name, discarded
and recomputed (never used, never a traceback), and reproductions sharing a cache
never compute a run twice."""

import json
import re
import shutil

import numpy as np
import pytest

from test_outputs import TINY_RUNS, reproduce_tiny, tiny_paper, tree, write_tiny_paper


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """A reproduction of the tiny paper: its paper, cache and report."""
    from mpcc.reproduce.pipeline import reproduce

    root = tmp_path_factory.mktemp("baseline")
    paper = tiny_paper(root)
    outcome = reproduce(paper, out=root / "report", jobs=1, cache=root / "cache")
    assert outcome.stats.computed == TINY_RUNS
    return paper, root / "cache", tree(outcome.folder)


def _truncate(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _empty(path):
    path.write_bytes(b"")


def _flip_a_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _random(path):
    path.write_bytes(np.random.default_rng(1).bytes(4096))


def _directory(path):
    path.unlink()
    path.mkdir()
    (path / "x").write_text("x")


def _edit_summary(path):
    """A valid .npz whose summary says something else (goodput x 1.5)."""
    with np.load(path) as npz:
        arrays = {name: npz[name] for name in npz.files}
    summary = json.loads(str(arrays["summary"]))
    for flow in summary["flows"].values():
        flow["goodput_bps"] *= 1.5
    arrays["summary"] = np.array(json.dumps(summary))
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def _swap(path):
    """Another run's (intact) entry copied over this one."""
    other = next(p for p in sorted(path.parent.parent.glob("*/*.npz")) if p != path)
    shutil.copyfile(other, path)


DAMAGE = {"truncated": _truncate, "empty": _empty, "one byte flipped": _flip_a_byte, "random bytes": _random,
          "a directory": _directory, "summary edited": _edit_summary, "another run's entry": _swap}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_entry_is_reported_by_name_and_recomputed(baseline, damage, tmp_path, capsys):
    from mpcc.reproduce.pipeline import reproduce

    paper, cache, report = baseline
    shutil.copytree(cache, tmp_path / "cache")
    entry = sorted((tmp_path / "cache").glob("*/*.npz"))[2]
    DAMAGE[damage](entry)
    capsys.readouterr()

    outcome = reproduce(paper, out=tmp_path / "report", jobs=1, cache=tmp_path / "cache")
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if line.startswith("mpcc: warning:")]
    assert len(warnings) == 1 and str(entry) in warnings[0] and "recomputed" in warnings[0], err
    assert "Traceback" not in err
    assert outcome.stats.computed == 1 and outcome.stats.cached == TINY_RUNS - 1
    assert tree(outcome.folder) == report  # identical to the undamaged reproduction


def test_several_damaged_entries_are_all_recomputed_in_one_reproduction(baseline, tmp_path, capsys):
    from mpcc.reproduce.pipeline import reproduce

    paper, cache, report = baseline
    shutil.copytree(cache, tmp_path / "cache")
    entries = sorted((tmp_path / "cache").glob("*/*.npz"))
    for damage, entry in zip((_empty, _edit_summary, _flip_a_byte, _directory), entries):
        damage(entry)
    capsys.readouterr()
    outcome = reproduce(paper, out=tmp_path / "report", jobs=1, cache=tmp_path / "cache")
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("mpcc: warning:")]
    assert sorted(w.split()[4] for w in warnings) == sorted(str(e) for e in entries[:4])
    assert outcome.stats.computed == 4 and tree(outcome.folder) == report


def test_a_damaged_entry_through_the_command_is_one_warning_and_exit_0(baseline, tmp_path):
    """The same through `mpcc reproduce` (workers in a pool)."""
    write_tiny_paper(tmp_path)
    shutil.copytree(baseline[1], tmp_path / "cache")
    entry = sorted((tmp_path / "cache").glob("*/*.npz"))[0]
    _flip_a_byte(entry)
    proc = reproduce_tiny(tmp_path, "--out", "report", "--cache", "cache", "--jobs", "2")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert f"{TINY_RUNS} runs ({TINY_RUNS - 1} from cache, 1 computed)" in out
    warnings = [line for line in err.splitlines() if line.startswith("mpcc: warning:")]
    assert len(warnings) == 1 and str(entry.relative_to(tmp_path)) in warnings[0] and "Traceback" not in err


def test_an_entry_stores_its_key_and_a_checksum(tmp_path):
    from mpcc.reproduce.cache import RunCache, checksum

    cache = RunCache(tmp_path)
    key = "cd" * 32
    path = cache.store(key, {"seed": 1, "links": [], "flows": []}, {"flows": {}}, {"flow_series": {"t_s": [0.5]}})
    with np.load(path) as npz:
        arrays = {name: npz[name] for name in npz.files}
    assert str(arrays["key"]) == key and str(arrays["checksum"]) == checksum(arrays)
    assert cache.valid(key) and cache.load(key).summary == {"flows": {}}


def _computed(stdout: str) -> int:
    match = re.search(r"(\d+) runs \((\d+) from cache, (\d+) computed\)", stdout)
    assert match, stdout
    return int(match.group(3))


def test_two_reproductions_on_one_cache_and_one_out_compute_each_run_once(baseline, tmp_path):
    write_tiny_paper(tmp_path)
    # Runs of a second or so (the loss keeps the 1 Gbit/s link far from full), so that
    # the two overlap even when one start-up outlasts the other by a second.
    slow = {"TINY_RATE": "1Gbps", "TINY_DURATION": "1200s"}
    procs = [reproduce_tiny(tmp_path, "--out", "report", "--cache", "cache", "--jobs", jobs, env=slow)
             for jobs in ("1", "1")]  # equal start-up times, so that they overlap
    results = [p.communicate(timeout=180) for p in procs]
    for proc, (out, err) in zip(procs, results):
        assert proc.returncode == 0, err
        assert "Traceback" not in err and "warning" not in err, err
    computed = [_computed(out) for out, _ in results]
    assert sum(computed) == TINY_RUNS and min(computed) > 0, computed  # shared out, none twice
    assert len(list((tmp_path / "cache").glob("*/*.npz"))) == TINY_RUNS
    assert (tmp_path / "report" / "tinypaper" / "index.html").is_file()
    assert not [p.name for p in (tmp_path / "report").iterdir() if p.name != "tinypaper"]
    assert not list((tmp_path / "cache").glob("*/.*.tmp"))
    assert not list((tmp_path / "cache").glob("*/*.lock"))  # each holder removed its lock file


def test_a_process_that_waited_on_a_removed_lock_file_locks_again(tmp_path):
    """The holder removes `<key>.lock` before letting go; a process that was waiting
    on it then holds a lock on a removed file and must lock the new one instead."""
    import fcntl
    import threading
    import time

    from mpcc.reproduce.cache import RunCache

    cache, key, holders = RunCache(tmp_path), "ab" + "0" * 62, []

    def second():
        with cache.lock(key, wait=True) as mine:
            holders.append(mine)
            path = cache.path(key).with_suffix(".lock")
            with open(path, "a") as probe:  # the file it holds is the one the name leads to
                with pytest.raises(BlockingIOError):
                    fcntl.flock(probe.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    with cache.lock(key, wait=True) as mine:
        assert mine
        waiter = threading.Thread(target=second)
        waiter.start()
        time.sleep(0.3)  # the waiter opens the file and blocks in flock
        with cache.lock(key, wait=False) as other:
            assert other is False  # held: a non-waiting process is told at once
    waiter.join(10)
    assert holders == [True]
    assert not list(tmp_path.glob("*/*.lock"))


def test_a_trace_edited_in_place_changes_the_run_key(tmp_path):
    """The key covers the content of the files a run reads, not only their paths."""
    from mpcc.reproduce.cache import input_files, run_key

    trace = tmp_path / "link.trace"
    trace.write_text("1\n2\n")
    config = {"links": [{"capacity": {"kind": "trace", "path": str(trace)}}],
              "flows": [{"path": [0], "app": {"kind": "vbr", "trace": str(tmp_path / "frames.txt")}}]}
    assert input_files(config) == sorted([str(trace), str(tmp_path / "frames.txt")])
    before = run_key(config, "v")
    assert run_key(config, "v") == before
    trace.write_text("1\n3\n")
    assert run_key(config, "v") != before
