"""A report shows each claim's quoted sentence, its location and rule, any change to
the rule made after results were seen, and the loss rates beside the paper's."""

import html as htmllib

from mpcc.papers import load
from mpcc.reproduce.report import ClaimResult, _html, _markdown, environment_rows

META = {"mpcc": "0", "commit": "abc", "simulator": "0", "mode": "quick"}


def _claims(paper):
    """The claims as the pipeline passes them to the report, with a placeholder verdict."""
    return [ClaimResult(c.id, c.text, c.figure, "not tested here", "r", c.source, c.quote, c.rule,
                        c.history_text())
            for c in paper.claims]


def test_every_claim_shows_its_quote_rule_and_rule_changes():
    paper = load("park")
    data = {}
    claims = _claims(paper)
    meta = {**META, "environment": environment_rows(paper, data)}
    md = _markdown(paper, claims, [], [], [], meta)
    page = htmllib.unescape(_html(paper, claims, [], [], [], meta))
    for c in paper.claims:
        for text in (c.quote, c.source, c.rule):
            assert text in md and text in page, (c.id, text[:40])
    rtsc = next(c for c in paper.claims if c.id == "rtsc")
    assert [h.date for h in rtsc.rule_history] == ["2026-11-22", "2026-11-25"]
    assert "Rule changed after results were seen" in md and "2026-11-22" in page
    assert "not tested here" in md


def test_loss_rates_beside_the_papers_are_flagged_beyond_a_factor_two():
    import pandas as pd

    paper = load("mpveno")
    df = pd.DataFrame({"cc": ["MPTCPW", "wMPTCPW"], "loss_rate_link1": [0.012, 0.0031],
                       "loss_rate_link2": [0.0011, 0.0008]})
    rows = environment_rows(paper, {"congestion_balance": df})
    assert len(rows) == 4
    flagged = [r for r in rows if "DIFFERS" in r[3]]
    assert [r[0] for r in flagged] == ["congestion balance, MPTCPW: link 1"]
    assert flagged[0][1:3] == ("0.012", "0.0029")
