"""Reproductions of papers: experiments (scenario variants x replications) run in
parallel with an on-disk cache, claims judged from the measured data, and a report
(HTML, Markdown, figures, data). `mpcc reproduce PAPER` is the command;
docs/reproductions.md explains the reports and how to add a paper.

Importing this package is light (no pandas, matplotlib or pydantic)."""

from .model import VERDICTS, Claim, Experiment, Figure, Measurements, Paper, RuleChange, TcpSetting, Variant

__all__ = ["VERDICTS", "Claim", "Experiment", "Figure", "Measurements", "Paper", "RuleChange", "TcpSetting", "Variant", "reproduce"]


def reproduce(*args, **kwargs):
    """See mpcc.reproduce.pipeline.reproduce."""
    from .pipeline import reproduce as run

    return run(*args, **kwargs)
