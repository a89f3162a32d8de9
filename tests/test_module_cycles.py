"""No import cycle between the modules of a crate (the architecture review found four):
each top-level module's non-test code may name `crate::other` only along a DAG."""

import re
from pathlib import Path

import pytest

CRATES = Path(__file__).resolve().parents[1] / "crates"


def module_graph(src: Path) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for f in src.rglob("*.rs"):
        module = f.relative_to(src).parts[0].removesuffix(".rs")
        if module in ("lib", "bin"):
            continue
        code = f.read_text().split("#[cfg(test)]")[0]  # unit tests may use anything
        graph.setdefault(module, set()).update(m for m in re.findall(r"crate::([a-z_]+)", code) if m != module)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 on the path, 2 done

    def visit(node, path):
        state[node] = 1
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return path[path.index(dep):] + [dep]
            if dep in graph and dep not in state:
                found = visit(dep, path + [dep])
                if found:
                    return found
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


@pytest.mark.parametrize("crate", ["mpcc-core", "mpcc-algo", "mpcc-net", "mpcc-sim"])
def test_no_import_cycle_between_modules(crate):
    cycle = find_cycle(module_graph(CRATES / crate / "src"))
    assert cycle is None, " -> ".join(cycle)


def test_the_check_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
