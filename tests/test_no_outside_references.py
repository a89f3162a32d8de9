"""Nothing in the repository points at documents outside it: the papers are cited through
docs/references.md, the Linux sources by name, the benchmark dumbbell in place."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SELF = Path(__file__).resolve().relative_to(ROOT).as_posix()
AREAS = ["crates", "python", "docs", "tests", "bench", "README.md"]
PATTERNS = ["seeds.md", "shared/seeds", "shared/docs", "../shared", "kernel-cc-reference", "seeds/00"]


def _tracked_files() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--", *AREAS], cwd=ROOT, capture_output=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [p for p in out.decode().split("\0") if p and p != SELF]


def test_no_references_to_documents_outside_the_repository():
    hits = []
    for path in _tracked_files():
        try:
            data = (ROOT / path).read_bytes()
        except OSError:  # listed but absent (deleted in the working tree)
            continue
        if b"\0" in data[:8192]:
            continue  # binary
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            found = [p for p in PATTERNS if p in line]
            if found:
                hits.append(f"{path}:{number}: {', '.join(found)}: {line.strip()[:120]}")
    assert not hits, "references to documents outside the repository (cite docs/references.md):\n" + "\n".join(hits)
