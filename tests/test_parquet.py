"""mpcc's own Parquet writer (python/mpcc/parquet.py), read back by pyarrow, and the
`mpcc run` path that uses it instead of pandas (issue 18, end-to-end cost)."""

import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest

from mpcc import parquet

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


def test_every_column_type_round_trips_through_pyarrow(tmp_path):
    rng = np.random.default_rng(7)
    columns = {
        "t_s": rng.random(1000),
        "flow": [f"flow-{i % 7}-é" for i in range(1000)],
        "subflow": rng.integers(-5, 1 << 40, 1000),
        "ack": rng.random(1000) < 0.3,
        "nan": np.full(1000, np.nan),
    }
    parquet.write(tmp_path / "x.parquet", columns)
    table = pq.read_table(tmp_path / "x.parquet")
    assert table.column_names == list(columns)
    assert [str(f.type) for f in table.schema] == ["double", "string", "int64", "bool", "double"]
    assert np.array_equal(table["t_s"].to_numpy(), columns["t_s"])
    assert table["flow"].to_pylist() == columns["flow"]
    assert np.array_equal(table["subflow"].to_numpy(), columns["subflow"])
    assert np.array_equal(table["ack"].to_numpy(), columns["ack"])
    assert np.isnan(table["nan"].to_numpy()).all()


def test_columns_longer_than_a_page_are_split_into_pages(tmp_path, monkeypatch):
    monkeypatch.setattr(parquet, "PAGE_VALUES", 100)
    values = np.arange(1234, dtype=float)
    names = [str(i) for i in range(1234)]
    flags = np.arange(1234) % 3 == 0  # 100 is not a multiple of 8: each page packs its own bits
    parquet.write(tmp_path / "x.parquet", {"v": values, "s": names, "b": flags})
    table = pq.read_table(tmp_path / "x.parquet")
    assert np.array_equal(table["v"].to_numpy(), values)
    assert table["s"].to_pylist() == names
    assert np.array_equal(table["b"].to_numpy(), flags)
    assert pq.ParquetFile(tmp_path / "x.parquet").metadata.num_rows == 1234


def test_an_empty_table_is_a_valid_file(tmp_path):
    parquet.write(tmp_path / "x.parquet", {"a": np.zeros(0), "b": []})
    table = pq.read_table(tmp_path / "x.parquet")
    assert table.num_rows == 0 and table.column_names == ["a", "b"]


def test_columns_of_different_lengths_are_refused(tmp_path):
    with pytest.raises(ValueError, match="differ in length"):
        parquet.write(tmp_path / "x.parquet", {"a": np.zeros(2), "b": np.zeros(3)})


def test_the_results_files_hold_the_same_data_as_the_result_frames(tmp_path):
    import pandas as pd

    import mpcc

    result = mpcc.run(ROOT / "scenarios/multipath_demo.toml", out=tmp_path / "out", plots=False, event_log=True)
    for name, frame in [("flow_series", result.flow_series), ("link_series", result.link_series),
                        ("delay_cdf", result.delay_cdf), ("events", result.events)]:
        read = pd.read_parquet(tmp_path / "out" / f"{name}.parquet")
        pd.testing.assert_frame_equal(read, frame, check_exact=True)


def test_mpcc_run_imports_neither_pandas_nor_pyarrow(tmp_path):
    code = ("import sys, runpy; sys.argv = ['mpcc', 'run', sys.argv[1], '--out', sys.argv[2], '--no-plots'];"
            "import mpcc.cli as c; rc = c.main();"
            "print(sorted(m for m in ('pandas', 'pyarrow', 'matplotlib') if m in sys.modules)); sys.exit(rc)")
    proc = subprocess.run([sys.executable, "-c", code, str(ROOT / "scenarios/demo.toml"), str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_mpcc_run_without_plots_imports_no_numpy(tmp_path):
    """The tables are built and written from `array.array` columns (mpcc.tables): numpy's
    import (~0.08 s) is left to the Result's DataFrames and the plots (issue 18, item 4)."""
    code = ("import sys; sys.argv = ['mpcc', 'run', sys.argv[1], '--out', sys.argv[2], '--no-plots', '--event-log'];"
            "import mpcc.cli as c; rc = c.main(); print('numpy' in sys.modules); sys.exit(rc)")
    proc = subprocess.run([sys.executable, "-c", code, str(ROOT / "scenarios/multipath_demo.toml"),
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "False"


def test_plain_columns_write_the_same_bytes_as_numpy_columns(tmp_path):
    """A results file is the same whether written from the plain columns or from numpy's."""
    import mpcc

    result = mpcc.run(ROOT / "scenarios/multipath_demo.toml", plots=False, event_log=True)
    for table in ("flow_series", "link_series", "delay_cdf", "event_log"):
        parquet.write(tmp_path / "plain.parquet", result.plain_columns(table))
        parquet.write(tmp_path / "numpy.parquet", result.columns(table))
        assert (tmp_path / "plain.parquet").read_bytes() == (tmp_path / "numpy.parquet").read_bytes(), table
