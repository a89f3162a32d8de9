"""The run cache: one file per finished run, named by a hash of the canonical
configuration (seed included) and the simulator version, so a run is never
computed twice and a rebuilt simulator never reuses stale results.

Each file is an uncompressed .npz: the summary and the configuration as JSON text,
and every time-series column as an array. It is written to a temporary name and
renamed, so an interrupted write leaves no half file under the final name.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path

SUFFIX = ".npz"


@lru_cache(maxsize=1)
def simulator_version() -> str:
    """The extension's version plus a hash of its binary (a rebuild changes it)."""
    from .. import _core

    digest = hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:16]
    return f"{_core.__version__}+{digest}"


def run_key(config: dict, version: str) -> str:
    canonical = json.dumps({"config": config, "simulator": version}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class RunCache:
    def __init__(self, root):
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}{SUFFIX}"

    def has(self, key: str) -> bool:
        return self.path(key).is_file()

    def entries(self) -> list[Path]:
        return sorted(self.root.glob(f"*/*{SUFFIX}"))

    def store(self, key: str, config: dict, summary: dict, tables: dict) -> Path:
        import numpy as np

        final = self.path(key)
        final.parent.mkdir(parents=True, exist_ok=True)
        arrays = {"summary": np.array(json.dumps(summary)), "config": np.array(json.dumps(config))}
        for table, columns in tables.items():
            for column, values in columns.items():
                arrays[f"{table}/{column}"] = np.asarray(values)
        tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
        return final

    def load(self, key: str):
        """The cached run as an mpcc.Result (without its Scenario object)."""
        import numpy as np

        from ..run import Result

        with np.load(self.path(key), allow_pickle=False) as npz:
            summary = json.loads(str(npz["summary"]))
            config = json.loads(str(npz["config"]))
            tables: dict = {}
            for name in npz.files:
                if "/" in name:
                    table, column = name.split("/", 1)
                    tables.setdefault(table, {})[column] = npz[name].tolist()
        return Result(None, config, summary, tables)

    def remove_stale_temporaries(self) -> None:
        """Temporary files left by a killed writer."""
        for tmp in self.root.glob("*/.*.tmp"):
            try:
                pid = int(tmp.name.rsplit(".", 2)[-2])
            except ValueError:
                continue
            if not _alive(pid):
                tmp.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
