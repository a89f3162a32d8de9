"""docs/scenarios.md documents every field the scenario schema accepts."""

import re
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

from mpcc import scenario

DOC = (Path(__file__).resolve().parents[1] / "docs" / "scenarios.md").read_text()


def _models(annotation, seen):
    """Every pydantic model reachable from a field annotation (unions, lists, dicts)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation not in seen:
            seen.add(annotation)
            for f in annotation.model_fields.values():
                _models(f.annotation, seen)
        return
    for arg in typing.get_args(annotation):
        _models(arg, seen)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        _models(typing.get_args(annotation)[0], seen)


def test_every_schema_field_is_in_docs_scenarios_md():
    models = set()
    _models(scenario.Scenario, models)
    documented = set(re.findall(r"`([a-z_][a-z0-9_]*)", DOC))
    missing = sorted({(m.__name__, name) for m in models for name in m.model_fields if name not in documented})
    assert len(models) > 5  # queues, loss, capacity models and applications come from the registry (below)
    assert missing == [], f"fields not in docs/scenarios.md: {missing}"


@pytest.mark.parametrize("page, families", [("links.md", ("queue", "loss", "capacity")),
                                            ("applications.md", ("app", "distribution"))])
def test_every_registered_field_is_in_its_docs_page(page, families):
    """Queue, loss, capacity, application and distribution fields come from the
    simulator's registry, not from schema classes: the doc page names every field
    (by the scenario's name or the canonical one, `target` or `target_ns`)."""
    from mpcc import kinds
    from mpcc.units import user_name

    text = (Path(__file__).resolve().parents[1] / "docs" / page).read_text()
    documented = set(re.findall(r"`([a-z_][a-z0-9_]*)`", text))
    missing = sorted((q["name"], user_name(p)) for family in families for q in kinds()[family]
                     for p in q["params"]
                     if user_name(p) not in documented and p["name"] not in documented)
    assert missing == [], f"fields not in docs/{page}: {missing}"
