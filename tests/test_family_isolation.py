"""No module of the simulator names a specific scheduler, queue discipline or
application outside its family's folder (issue 12): the simulator reaches every
member through its family's trait and dispatch enum, so adding one touches only the
family. Member names come from the registries (`_core.kinds()`)."""

import re
from pathlib import Path

import pytest

from mpcc import _core

SIM = Path(__file__).resolve().parents[1] / "crates" / "mpcc-sim" / "src"

# Where each family lives in mpcc-sim (schedulers and queues live in other crates).
HOME = {"scheduler": None, "queue": None, "app": "app/"}
# Words that are also ordinary identifiers: `std::fs::File`, a DropTail FIFO.
NOT_A_MEMBER = {("app", "file"): r"\bfs::File\b|\bFile::create\b|BufWriter<File>", ("queue", "droptail"): r".^"}


def pattern(family: str, name: str) -> str:
    """Schedulers and queues by their name in any case (`tsc`, `Tsc`); applications by
    their type or variant name (`Web`, `AppConfig::Onoff`), since `file` and `web` are
    also ordinary words in code."""
    if family == "app":
        return rf"\b{re.escape(name.capitalize())}\b"
    return rf"(?i)\b{re.escape(name)}\b"


def code_lines(path: Path):
    """Non-test code, comments dropped."""
    code = path.read_text().split("#[cfg(test)]")[0]
    for number, line in enumerate(code.splitlines(), 1):
        yield number, line.split("//")[0]


@pytest.mark.parametrize("family", sorted(HOME))
def test_no_simulator_module_names_a_member_outside_its_family(family):
    names = [entry["name"] for entry in _core.kinds()[family]]
    assert names
    found = []
    for path in sorted(SIM.rglob("*.rs")):
        rel = path.relative_to(SIM).as_posix()
        if HOME[family] and rel.startswith(HOME[family]):
            continue
        for number, line in code_lines(path):
            for name in names:
                ignore = NOT_A_MEMBER.get((family, name))
                if ignore:
                    line = re.sub(ignore, "", line)
                if re.search(pattern(family, name), line):
                    found.append(f"{rel}:{number}: {name}: {line.strip()}")
    assert not found, "\n".join(found)
