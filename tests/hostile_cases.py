"""Broken and hostile inputs for `mpcc run`, and a runner that feeds them to
`mpcc.cli.main` in one process (tests/test_hostile.py).

Each case is a folder of files (the scenario `s.toml`, traces, ...) and a command
line; every one must end with exit code 2 and exactly one stderr line
`mpcc: error: ...` holding `field` (the user's name of what is wrong), no
traceback, quickly and in bounded memory.

    python tests/hostile_cases.py ROOT RESULTS.jsonl   # runs every case under ROOT
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field as dataclass_field

BASE = """duration = "2s"
[links.b]
rate = "10Mbps"
delay = "10ms"
[[flows]]
name = "a"
cc = "reno"
path = ["b"]
"""
SCENARIO = "s.toml"
RUN = ("run", "{dir}/s.toml", "--out", "{dir}/out", "--no-plots")


@dataclass
class Case:
    id: str
    group: str
    field: str  # must appear in the error line
    files: dict = dataclass_field(default_factory=dict)  # name -> str | bytes | ("fifo",) | ("symlink", target) | ...
    argv: tuple = RUN
    problems: int = 1  # error lines expected: one per problem of the scenario


def replace(old: str, new: str) -> str:
    assert old in BASE, old
    return BASE.replace(old, new, 1)


def top(lines: str) -> str:
    """BASE with top-level lines added after `duration`."""
    return replace('duration = "2s"\n', f'duration = "2s"\n{lines}\n')


def link(lines: str) -> str:
    return replace('delay = "10ms"\n', f'delay = "10ms"\n{lines}\n')


def flow(lines: str) -> str:
    return BASE + lines + "\n"


def scenario(case_id: str, group: str, text, field: str, **files) -> Case:
    return Case(case_id, group, field, {SCENARIO: text, **files})


# ---- TOML syntax ----------------------------------------------------------------------


def syntax_cases() -> list[Case]:
    g, f = "syntax", "s.toml"
    texts = {
        "missing-equals": BASE.replace('duration = "2s"', 'duration "2s"'),
        "unterminated-string": BASE.replace('"10ms"', '"10ms'),
        "unterminated-array": BASE.replace('path = ["b"]', 'path = ["b"'),
        "unterminated-inline-table": link('queue = { kind = "droptail", packets = 10'),
        "duplicate-key": top('duration = "3s"'),
        "duplicate-table": BASE + '[links.b]\nrate = "1Mbps"\n',
        "table-then-array": BASE + "[flows]\nname = 1\n",
        "nul-byte": BASE.replace("reno", "re\0no"),
        "invalid-escape": BASE.replace('"reno"', '"re\\qno"'),
        "key-with-space": top("my key = 1"),
        "trailing-comma-inline": link('loss = { kind = "none", }'),
        "newline-in-inline-table": link('loss = { kind = "none",\n }'),
        "bare-unit": BASE.replace('"2s"', "2s"),
        "equals-only": "=\n",
        "json-text": json.dumps({"duration": "2s", "links": {}}),
        "yaml-text": "duration: 2s\nlinks:\n  b:\n    rate: 10Mbps\n",
        "deep-arrays": "x = " + "[" * 100_000 + "]" * 100_000 + "\n",
        "deep-inline-tables": "x = " + "{a=" * 5000 + "1" + "}" * 5000 + "\n",
        "nesting-65": "x = " + "[" * 65 + "]" * 65 + "\n",
        "lone-bracket": "[\n",
        "array-of-tables-broken": "[[flows]\n",
        "binary-junk": bytes(range(256)) * 4,
        "bad-utf8": BASE.encode() + b"\n# \xff\xfe\n",
        "utf16": BASE.encode("utf-16"),
        "date-as-key-value": top("1979-05-27 = 1"),
    }
    cases = [scenario(f"syntax-{k}", g, v, "1979-05-27" if k == "date-as-key-value" else f) for k, v in texts.items()]
    # Nothing at all: duration, links and flows are each missing, one line each.
    cases += [Case("syntax-empty-file", g, "duration", {SCENARIO: ""}, problems=3),
              Case("syntax-only-comments", g, "duration", {SCENARIO: "# nothing\n# here\n"}, problems=3),
              scenario("syntax-date-duration", g, BASE.replace('"2s"', "1979-05-27"), "duration")]
    return cases


# ---- wrong types ----------------------------------------------------------------------


def type_cases() -> list[Case]:
    g = "types"
    items = [
        (BASE.replace('"2s"', "true"), "duration"), (BASE.replace('"2s"', "[2]"), "duration"),
        (top('seed = "1"'), "seed"), (top("seed = 1.5"), "seed"), (top("seed = true"), "seed"),
        (top("warmup = {}"), "warmup"), (top("sample_interval = false"), "sample_interval"),
        (top("description = 5"), "description"), (top("tcp = 5"), "tcp"),
        (BASE.replace('rate = "10Mbps"', "rate = true"), "links.b.rate"),
        (BASE.replace('delay = "10ms"', "delay = []"), "links.b.delay"),
        (link('queue = "droptail"'), "links.b.queue"), (link("loss = 0.1"), "links.b.loss"),
        (BASE.replace('name = "a"', "name = 5"), "flows[0].name"), (BASE.replace('cc = "reno"', "cc = 5"), "flows[0].cc"),
        (flow("cc_params = 5"), "flows[0].cc_params"), (flow('cc_params = { beta = "0.5" }'), "flows[0].cc_params.beta"),
        (BASE.replace('path = ["b"]', 'path = "b"'), "flows[0].path"),
        (BASE.replace('path = ["b"]', "path = [1]"), "flows[0].path[0]"),
        (flow('count = "2"'), "flows[0].count"), (flow("count = 2.0"), "flows[0].count"),
        (flow("count = true"), "flows[0].count"), (flow("start = true"), "flows[0].start"),
        (flow("stop = []"), "flows[0].stop"), (flow('app = "bulk"'), "flows[0].app"),
        (flow("tcp = { mss = true }"), "flows[0].tcp.mss"), (flow('tcp = { delayed_ack = "yes" }'), "flows[0].tcp.delayed_ack"),
        (flow("tcp = { delayed_ack = 1 }"), "flows[0].tcp.delayed_ack"),
        (flow('tcp = { cwnd_validation = "true" }'), "flows[0].tcp.cwnd_validation"),
        (flow('tcp = { dupthresh = "3" }'), "flows[0].tcp.dupthresh"), (flow("tcp = { dupthresh = 3.0 }"), "flows[0].tcp.dupthresh"),
        (link('queue = { kind = "droptail", packets = "100" }'), "links.b.queue.packets"),
        (link('queue = { kind = "droptail", packets = 1.5 }'), "links.b.queue.packets"),
        (link('queue = { kind = "red", min_th = 5, max_th = 15, max_p = 0.1, weight = 0.002, limit = 50, gentle = "yes" }'),
         "links.b.queue.gentle"),
        (link('loss = { kind = "bernoulli", p = "0.1" }'), "links.b.loss.p"),
        (link('loss = { kind = "periodic", every = "10" }'), "links.b.loss.every"),
        (flow("scheduler = 1"), "flows[0].scheduler"), (flow("receiver = true"), "flows[0].receiver"),
        (BASE.replace('path = ["b"]', 'paths = "b"'), "flows[0].paths"),
        (BASE.replace('path = ["b"]', 'subflows = ["b"]'), "flows[0].subflows[0]"),
        (BASE.replace('path = ["b"]', 'subflows = [{ path = ["b"], cost_per_mbit = "1" }]'),
         "flows[0].subflows[0].cost_per_mbit"),
        (flow('app = { kind = "vbr", fps = "30", rate = "1Mbps" }'), "flows[0].app.fps"),
        (flow('app = { kind = "vbr", fps = 30, trace = "f", loop_trace = "no" }'), "flows[0].app.loop_trace"),
        (flow('app = { kind = "web", objects = [1000], pages = "10" }'), "flows[0].app.pages"),
        (flow('app = { kind = "web", objects = "1KB" }'), "flows[0].app.objects"),
        (flow('app = { kind = "onoff", on = { kind = "fixed", value = 1 }, off = { kind = "fixed", value = 1 }, '
              "start_on = 1 }"), "flows[0].app.start_on"),
        (flow('app = { kind = "file", size = true }'), "flows[0].app.size"),
        (BASE.replace("[links.b]", "links = 5\n[nothing]"), "links"),
        ('duration = "2s"\nlinks = []\n[[flows]]\nname = "a"\ncc = "reno"\npath = ["b"]\n', "links"),
        (BASE.replace("[[flows]]", "[flows]"), "flows"),
    ]
    return [scenario(f"types-{i:02d}-{field}", g, text, field) for i, (text, field) in enumerate(items)]


# ---- unknown fields and names ---------------------------------------------------------------


def unknown_cases() -> list[Case]:
    fields = [
        (BASE.replace("delay =", "dealy ="), "links.b.dealy"), (BASE.replace("rate =", "rat ="), "links.b.rat"),
        (flow('tcp = { mms = "1000B" }'), "flows[0].tcp.mms"), (flow("priority = 3"), "flows[0].priority"),
        (link('queue = { kind = "droptail", pakets = 10 }'), "links.b.queue.pakets"),
        (link('loss = { kind = "bernoulli", pp = 0.1 }'), "links.b.loss.pp"),
        (BASE.replace('rate = "10Mbps"', 'capacity = { kind = "constant", rat = "1Mbps" }'), "links.b.capacity.rat"),
        (flow('app = { kind = "file", sizee = "1MB" }'), "flows[0].app.sizee"), (top('durations = "1s"'), "durations"),
        (flow('tcp = { rto = "1s" }'), "flows[0].tcp.rto"),
        (BASE.replace('path = ["b"]', 'subflows = [{ path = ["b"], dealy = 1 }]'), "flows[0].subflows[0].dealy"),
        (flow('app = { kind = "onoff", on = { kind = "fixed", val = 1 }, off = { kind = "fixed", value = 1 } }'),
         "flows[0].app.on.val"),
        (link('bandwidth = "1Mbps"'), "links.b.bandwidth"), (top('tcp = { mss = 1000, nagle = true }'), "tcp.nagle"),
    ]
    names = [
        (BASE.replace('"reno"', '"tahoe"'), "flows[0].cc"), (flow('scheduler = "fastest"'), "flows[0].scheduler"),
        (link('queue = { kind = "fifo" }'), "links.b.queue"), (link('loss = { kind = "gaussian" }'), "links.b.loss"),
        (BASE.replace('rate = "10Mbps"', 'capacity = { kind = "linear" }'), "links.b.capacity"),
        (flow('app = { kind = "stream" }'), "flows[0].app"), (flow('receiver = "magic"'), "flows[0].receiver"),
        (flow('app = { kind = "onoff", on = { kind = "gauss", mean = 1 }, off = { kind = "fixed", value = 1 } }'),
         "flows[0].app.on"),
        (BASE.replace('path = ["b"]', 'path = ["ghost"]'), "flows[0].path[0]"),
        (flow('reverse_path = ["ghost"]'), "flows[0].reverse_path[0]"),
        (BASE.replace('path = ["b"]', 'paths = [["b"], ["ghost"]]'), "flows[0].paths[1][0]"),
        (BASE.replace('path = ["b"]', 'subflows = [{ path = ["b"] }, { path = ["b", "ghost"] }]'),
         "flows[0].subflows[1].path[1]"),
        (flow("cc_params = { gamma = 1 }"), "flows[0].cc_params"),
        (BASE.replace('path = ["b"]', 'paths = [["b"]]\nscheduler = "ecf"\nscheduler_params = { gamma = 1 }'),
         "flows[0].scheduler_params.gamma"),
        (flow('receiver = "popctl"\nreceiver_params = { x = 1 }'), "flows[0].receiver_params.x"),
        (flow("scheduler_params = { beta = 0.5 }"), "flows[0].scheduler_params.beta"),
        (flow("receiver_params = { min_on = 2 }"), "flows[0].receiver_params.min_on"),
    ]
    return ([scenario(f"unknown-field-{i:02d}", "unknown fields", t, f) for i, (t, f) in enumerate(fields)]
            + [scenario(f"unknown-name-{i:02d}", "unknown names", t, f) for i, (t, f) in enumerate(names)])


# ---- numeric ranges -----------------------------------------------------------------------


def range_cases() -> list[Case]:
    rate = lambda v: BASE.replace('rate = "10Mbps"', f"rate = {v}")  # noqa: E731
    delay = lambda v: BASE.replace('delay = "10ms"', f"delay = {v}")  # noqa: E731
    duration = lambda v: BASE.replace('duration = "2s"', f"duration = {v}")  # noqa: E731
    walk = 'capacity = {{ kind = "random_walk", initial = {i}, min = {lo}, max = {hi}, step = {st}, sigma = {sg} }}'
    red = ('queue = {{ kind = "red", min_th = {a}, max_th = {b}, max_p = {p}, weight = {w}, limit = {lim}, '
           "mean_pktsize = {m} }}")
    sched = 'capacity = {{ kind = "schedule", steps = [{steps}]{period} }}'
    items = []
    for v in ('"-5Mbps"', '"0Mbps"', "nan", "inf", "-inf", '"1e400Mbps"', '"1e-30bps"', '"11Tbps"', "0", "-1", "0.5",
              '"1e9999999bps"'):
        items.append((rate(v), "links.b.rate"))
    for v in ('"-1ms"', '"1e30s"', "9223372036854775807", '"18446744073.5s"', "nan", "inf", '"1e7s"', "-0.001"):
        items.append((delay(v), "links.b.delay"))
    for v in ('"0s"', '"-1s"', '"1e12s"', "nan", "inf", "0", '"0.1ns"', '"2000000s"'):
        items.append((duration(v), "duration"))
    items += [
        (top('warmup = "2s"'), "warmup"), (top('warmup = "5s"'), "warmup"), (top('sample_interval = "-1s"'), "sample_interval"),
        (top("seed = -1"), "seed"), (top("seed = 18446744073709551616"), "seed"),
        (flow('start = "2s"'), "flows[0].start"), (flow('start = "1s"\nstop = "0.5s"'), "flows[0].stop"),
        (flow('stop = "0s"'), "flows[0].stop"), (flow('start = "-1s"'), "flows[0].start"),
        (link('queue = { kind = "droptail", packets = 0 }'), "links.b.queue.packets"),
        (link('queue = { kind = "droptail", packets = -1 }'), "links.b.queue.packets"),
        (link('queue = { kind = "droptail", packets = 1152921504606846976 }'), "links.b.queue.packets"),
        (link('queue = { kind = "droptail", bytes = "0B" }'), "links.b.queue.bytes"),
        (link('queue = { kind = "droptail", bytes = "1e21B" }'), "links.b.queue.bytes"),
        (link('queue = { kind = "droptail", packets = 10, bytes = "10KB" }'), "links.b.queue"),
        (link('loss = { kind = "bernoulli", p = -0.1 }'), "links.b.loss.p"),
        (link('loss = { kind = "bernoulli", p = 1.5 }'), "links.b.loss.p"),
        (link('loss = { kind = "bernoulli", p = nan }'), "links.b.loss.p"),
        (link('loss = { kind = "gilbert_elliott", p_gb = 2, p_bg = 0.1 }'), "links.b.loss.p_gb"),
        (link('loss = { kind = "gilbert_elliott", p_gb = 0.1, p_bg = 0.1, loss_bad = inf }'), "links.b.loss.loss_bad"),
        (link('loss = { kind = "periodic", every = 0 }'), "links.b.loss.every"),
        (link('loss = { kind = "periodic", every = 18446744073709551616 }'), "links.b.loss.every"),
        (link(red.format(a=5, b=15, p=0, w=0.002, lim=50, m=1500)), "links.b.queue.max_p"),
        (link(red.format(a=5, b=15, p=2, w=0.002, lim=50, m=1500)), "links.b.queue.max_p"),
        (link(red.format(a=5, b=15, p=0.1, w=0, lim=50, m=1500)), "links.b.queue.weight"),
        (link(red.format(a=15, b=5, p=0.1, w=0.002, lim=50, m=1500)), "links.b.queue.min_th"),
        (link(red.format(a=5, b=15, p=0.1, w=0.002, lim=0, m=1500)), "links.b.queue.limit"),
        (link(red.format(a=5, b="inf", p=0.1, w=0.002, lim=50, m=1500)), "links.b.queue.max_th"),
        (link(red.format(a="nan", b=15, p=0.1, w=0.002, lim=50, m=1500)), "links.b.queue.min_th"),
        (link(red.format(a=5, b=15, p=0.1, w=0.002, lim=50, m=0)), "links.b.queue.mean_pktsize"),
        (link(red.format(a=5, b=15, p=0.1, w=0.002, lim=50, m='"5GB"')), "links.b.queue.mean_pktsize"),
        (link('queue = { kind = "codel", target = "0ms" }'), "links.b.queue.target"),
        (link('queue = { kind = "codel", interval = "0s" }'), "links.b.queue.interval"),
        (link('queue = { kind = "codel", limit = 0 }'), "links.b.queue.limit"),
        (link('queue = { kind = "codel", mtu = 0 }'), "links.b.queue.mtu"),
        (link('queue = { kind = "codel", mtu = "5GB" }'), "links.b.queue.mtu"),
        (BASE.replace('rate = "10Mbps"', sched.format(steps='{ at = "1s", rate = "1Mbps" }', period="")),
         "links.b.capacity.steps"),
        (BASE.replace('rate = "10Mbps"', sched.format(steps='{ at = "0s", rate = "1Mbps" }, { at = "0s", rate = "2Mbps" }',
                                                      period="")), "links.b.capacity.steps"),
        (BASE.replace('rate = "10Mbps"', sched.format(steps='{ at = "0s", rate = "1Mbps" }, { at = "2s", rate = "2Mbps" }',
                                                      period=', period = "1s"')), "links.b.capacity.period"),
        (BASE.replace('rate = "10Mbps"', sched.format(steps='{ at = "0s", rate = 0 }', period="")), "links.b.capacity.steps"),
        (BASE.replace('rate = "10Mbps"', sched.format(steps='{ at = "0s", rate = "1Mbps" }, { at = "1s", rate = 0 }',
                                                      period="")), "links.b.capacity.steps"),
        (BASE.replace('rate = "10Mbps"', sched.format(steps='{ at = "0s", rate = "-1Mbps" }', period="")),
         "links.b.capacity.steps[0].rate"),
        (BASE.replace('rate = "10Mbps"', "capacity = { kind = \"schedule\", steps = [] }"), "links.b.capacity.steps"),
        (BASE.replace('rate = "10Mbps"', walk.format(i='"5Mbps"', lo='"10Mbps"', hi='"1Mbps"', st='"1s"', sg=0.1)),
         "links.b.capacity.initial"),
        (BASE.replace('rate = "10Mbps"', walk.format(i='"5Mbps"', lo='"1Mbps"', hi='"10Mbps"', st='"0s"', sg=0.1)),
         "links.b.capacity.step"),
        (BASE.replace('rate = "10Mbps"', walk.format(i='"5Mbps"', lo='"1Mbps"', hi='"10Mbps"', st='"1s"', sg=-1)),
         "links.b.capacity.sigma"),
        (BASE.replace('rate = "10Mbps"', walk.format(i='"5Mbps"', lo='"1Mbps"', hi='"10Mbps"', st='"1s"', sg="inf")),
         "links.b.capacity.sigma"),
        (BASE.replace('rate = "10Mbps"', walk.format(i='"20Mbps"', lo='"1Mbps"', hi='"10Mbps"', st='"1s"', sg=0.1)),
         "links.b.capacity.initial"),
        (BASE.replace('rate = "10Mbps"', walk.format(i='"5Mbps"', lo='"1Mbps"', hi='"1e400Mbps"', st='"1s"', sg=0.1)),
         "links.b.capacity.max"),
        (flow("tcp = { mss = 0 }"), "flows[0].tcp.mss"), (flow("tcp = { mss = 70000 }"), "flows[0].tcp.mss"),
        (flow('tcp = { header_bytes = "5GB" }'), "flows[0].tcp.header_bytes"),
        (flow('tcp = { header_bytes = "4294967000B" }'), "flows[0].tcp.header_bytes"),
        (flow('tcp = { min_rto = "0s" }'), "flows[0].tcp.min_rto"),
        (flow('tcp = { initial_rto = "0ms" }'), "flows[0].tcp"),
        (flow('tcp = { max_rto = "100ms" }'), "flows[0].tcp.min_rto"),
        (flow('tcp = { max_rto = "1e12s" }'), "flows[0].tcp.max_rto"),
        (flow("tcp = { dupthresh = 0 }"), "flows[0].tcp.dupthresh"), (flow("tcp = { dupthresh = 17 }"), "flows[0].tcp.dupthresh"),
        (flow('tcp = { init_ssthresh = "1000B" }'), "flows[0].tcp.init_ssthresh"),
        (flow('tcp = { rcv_buf = "0B" }'), "flows[0].tcp.rcv_buf"),
        (flow('app = { kind = "cbr", rate = "1Mbps" }\ntcp = { send_buf = "0B" }'), "flows[0].tcp.send_buf"),
        (flow('tcp = { send_buf = "1MB" }'), "flows[0].tcp.send_buf"),
        (flow('tcp = { delack_timeout = "1e12s" }'), "flows[0].tcp.delack_timeout"),
        (top('tcp = { mss = 0 }'), "tcp.mss"),
        (flow("count = 0"), "flows[0].count"), (flow("count = -1"), "flows[0].count"),
        (flow("count = 18446744073709551616"), "flows[0].count"),
        (flow('app = { kind = "file", size = "0B" }'), "flows[0].app.size"),
        (flow('app = { kind = "file", size = "1e21B" }'), "flows[0].app.size"),
        (flow('app = { kind = "file", size = "1.5B" }'), "flows[0].app.size"),
        (flow('app = { kind = "cbr", rate = "0bps" }'), "flows[0].app.rate"),
        (flow('app = { kind = "cbr", rate = "1Mbps", chunk = 0 }'), "flows[0].app.chunk"),
        (flow('app = { kind = "cbr", rate = "1Mbps", chunk = "5GB" }'), "flows[0].app.chunk"),
        (flow('app = { kind = "cbr", rate = "1Tbps", chunk = "1B" }'), "flows[0].app.rate"),
        (flow('app = { kind = "cbr", rate = "1Mbps", startup = "-1s" }'), "flows[0].app.startup"),
        (flow('app = { kind = "vbr", fps = 0, rate = "1Mbps" }'), "flows[0].app.fps"),
        (flow('app = { kind = "vbr", fps = 20000, rate = "1Mbps" }'), "flows[0].app.fps"),
        (flow('app = { kind = "vbr", fps = nan, rate = "1Mbps" }'), "flows[0].app.fps"),
        (flow('app = { kind = "vbr", fps = 30, rate = "1Mbps", cv = 11 }'), "flows[0].app.cv"),
        (flow('app = { kind = "web", objects = [1000], pages = 0 }'), "flows[0].app.pages"),
        (flow('app = { kind = "web", objects = ["1KB", 0] }'), "flows[0].app.objects[1]"),
        (flow('app = { kind = "web", objects = [] }'), "flows[0].app.objects"),
        (flow('app = { kind = "onoff", on = { kind = "fixed", value = "0s" }, off = { kind = "fixed", value = 1 } }'),
         "flows[0].app.on.value"),
        (flow('app = { kind = "onoff", on = { kind = "uniform", min = "2s", max = "1s" }, off = { kind = "fixed", '
              'value = 1 } }'), "flows[0].app.on.max"),
        (flow('app = { kind = "onoff", on = { kind = "pareto", mean = "1s", shape = 1 }, off = { kind = "fixed", '
              'value = 1 } }'), "flows[0].app.on.shape"),
        (flow('app = { kind = "onoff", on = { kind = "lognormal", mean = "1s", cv = -1 }, off = { kind = "fixed", '
              'value = 1 } }'), "flows[0].app.on.cv"),
        (flow('app = { kind = "onoff", on = { kind = "exponential", mean = "1e30s" }, off = { kind = "fixed", '
              'value = 1 } }'), "flows[0].app.on.mean"),
        (flow('app = { kind = "web", object_count = { kind = "fixed", value = inf }, object_bytes = { kind = "fixed", '
              "value = 1 } }"), "flows[0].app.object_count.value"),
        (BASE.replace('path = ["b"]', 'subflows = [{ path = ["b"], start = "1s" }]\nstart = "1.5s"'),
         "flows[0].subflows[0].start"),
        (BASE.replace('path = ["b"]', 'subflows = [{ path = ["b"], start = "1s", stop = "0.5s" }]'),
         "flows[0].subflows[0].stop"),
        (BASE.replace('path = ["b"]', 'subflows = [{ path = ["b"], cost_per_mbit = -1 }]'),
         "flows[0].subflows[0].cost_per_mbit"),
        (BASE.replace('path = ["b"]', 'subflows = [{ path = ["b"], cost_per_mbit = nan }]'),
         "flows[0].subflows[0].cost_per_mbit"),
        (BASE.replace('rate = "10Mbps"', 'capacity = { kind = "trace", path = "t", bytes_per_opportunity = 0 }'),
         "links.b.capacity.bytes_per_opportunity"),
        (BASE.replace('rate = "10Mbps"', 'capacity = { kind = "trace", path = "t", bytes_per_opportunity = "5GB" }'),
         "links.b.capacity.bytes_per_opportunity"),
    ]
    trace = {"t": "0\n1\n2\n"}
    return [scenario(f"range-{i:03d}-{field}", "numeric ranges", text, field, **trace) for i, (text, field) in
            enumerate(items)]


# ---- controller, scheduler and receiver parameters -------------------------------------------


def params_cases() -> list[Case]:
    multi = lambda extra: BASE.replace('path = ["b"]', f'paths = [["b"]]\n{extra}')  # noqa: E731
    items = [
        (flow("cc_params = { beta = 2 }"), "flows[0].cc_params"), (flow("cc_params = { beta = -1 }"), "flows[0].cc_params"),
        (flow("cc_params = { beta = nan }"), "flows[0].cc_params.beta"),
        (flow("cc_params = { beta = inf }"), "flows[0].cc_params.beta"),
        (flow("cc_params = { beta = 1e400 }"), "flows[0].cc_params.beta"),
        (BASE.replace('"reno"', '"cubic"') + "cc_params = { c = -1 }\n", "flows[0].cc_params"),
        (multi('scheduler = "ecf"\nscheduler_params = { beta = 1e9 }'), "flows[0].scheduler_params.beta"),
        (multi('scheduler = "ecf"\nscheduler_params = { beta = nan }'), "flows[0].scheduler_params.beta"),
        (multi('scheduler = "blest"\nscheduler_params = { lambda = -1 }'), "flows[0].scheduler_params.lambda"),
        (multi('scheduler = "blest"\nscheduler_params = { lambda = inf }'), "flows[0].scheduler_params.lambda"),
        (multi('scheduler = "minrtt"\nscheduler_params = { beta = 1 }'), "flows[0].scheduler_params.beta"),
        (multi('scheduler = "ecf"\nscheduler_params = { beta = "1" }'), "flows[0].scheduler_params.beta"),
        (flow('receiver = "popctl"\nreceiver_params = { interval_s = 0 }'), "flows[0].receiver_params.interval_s"),
        (flow('receiver = "popctl"\nreceiver_params = { min_on = 2000 }'), "flows[0].receiver_params.min_on"),
        (flow('receiver = "popctl"\nreceiver_params = { min_on = nan }'), "flows[0].receiver_params.min_on"),
        (flow('receiver = "popctl"\nreceiver_params = { interval_s = -inf }'), "flows[0].receiver_params.interval_s"),
        (flow('receiver = "rtsc"\nreceiver_params = { nothing = 1 }'), "flows[0].receiver_params.nothing"),
        (flow('receiver = "none"\nreceiver_params = { min_on = 1 }'), "flows[0].receiver_params.min_on"),
        (flow("cc_params = { beta = true }"), "flows[0].cc_params.beta"),
        (flow("scheduler_params = [1]"), "flows[0].scheduler_params"),
        # A rule across parameters: with l = 1 the decrease beta * w must leave a window.
        (BASE.replace('"reno"', '"binomial"') + "cc_params = { l = 1, beta = 1.0 }\n", "flows[0].cc_params"),
    ]
    return [scenario(f"params-{i:02d}", "parameters", t, f) for i, (t, f) in enumerate(items)]


# ---- units ----------------------------------------------------------------------------------


def unit_cases() -> list[Case]:
    rates = ['"10 furlongs"', '"10mbit"', '"10MBps"', '"10 M bps"', '"fast"', '""', '" "', '"１０Mbps"', '"10Kbit"',
             '"0x10Mbps"', '"1_000bps"', '"1.5.5Mbps"', '"Mbps"', '"nan Mbps"']
    durations = ['"1h"', '"２s"', '"²ms"', '"5 parsecs"', '"1.5.5s"', '"s"', '"1e9999999s"', '"1d"', '"10 sec"',
                 '"1:00"']
    sizes = ['"1.5B"', '"1KiBB"', '"-1KB"', '"1e21B"', '"10 bytes"', '"1TB"', '"1e-3B"']
    cases = [scenario(f"unit-rate-{i:02d}", "units", BASE.replace('rate = "10Mbps"', f"rate = {v}"), "links.b.rate")
             for i, v in enumerate(rates)]
    cases += [scenario(f"unit-duration-{i:02d}", "units", BASE.replace('delay = "10ms"', f"delay = {v}"), "links.b.delay")
              for i, v in enumerate(durations)]
    cases += [scenario(f"unit-size-{i:02d}", "units", flow(f'app = {{ kind = "file", size = {v} }}'), "flows[0].app.size")
              for i, v in enumerate(sizes)]
    return cases


# ---- topology ---------------------------------------------------------------------------


def topology_cases() -> list[Case]:
    no_flows = BASE.split("[[flows]]")[0]
    items = [
        ('duration = "2s"\nlinks = {}\n[[flows]]\nname = "a"\ncc = "reno"\npath = ["b"]\n', "links"),
        ('duration = "2s"\nflows = []\n' + no_flows.split("\n", 1)[1], "flows"), (no_flows, "flows"),
        (BASE.replace('path = ["b"]', "path = []"), "flows[0].path"),
        (BASE.replace('path = ["b"]', ""), "flows[0].path"),
        (BASE.replace('path = ["b"]', "paths = []"), "flows[0].paths"),
        (BASE.replace('path = ["b"]', "paths = [[]]"), "flows[0].paths[0]"),
        (BASE.replace('path = ["b"]', "subflows = []"), "flows[0].subflows"),
        (BASE.replace('path = ["b"]', "subflows = [{}]"), "flows[0].subflows[0].path"),
        (flow('paths = [["b"]]'), "flows[0].paths"),
        (BASE.replace('path = ["b"]', 'paths = [["b"]]\nreverse_path = ["b"]'), "flows[0].reverse_path"),
        (BASE.replace('path = ["b"]', "path = [" + ", ".join(['"b"'] * 70_000) + "]"), "flows[0].path"),
        (BASE.replace('path = ["b"]', "paths = [" + ", ".join(['["b"]'] * 1025) + "]"), "flows[0].paths"),
        (BASE + '[[flows]]\nname = "a"\ncc = "reno"\npath = ["b"]\n', "flows[1].name"),
        (BASE.replace('name = "a"', 'name = "x.1"') + '[[flows]]\nname = "x"\ncc = "reno"\npath = ["b"]\ncount = 2\n',
         "flows[1].name"),
        (BASE.replace('name = "a"', 'name = ""'), "flows[0].name"),
        (BASE.replace('name = "a"\n', ""), "flows[0].name"), (BASE.replace('cc = "reno"\n', ""), "flows[0].cc"),
        (BASE.replace('rate = "10Mbps"\n', ""), "links.b.rate"),
        (BASE.replace('rate = "10Mbps"', 'rate = "10Mbps"\ncapacity = { kind = "constant", rate = "1Mbps" }'),
         "links.b.rate"),
        (BASE.replace('path = ["b"]', 'path = [""]'), "flows[0].path[0]"),
        (BASE.replace('path = ["b"]', 'subflows = [{ path = ["b"], reverse_path = [] }]'),
         "flows[0].subflows[0].reverse_path"),
    ]
    return [scenario(f"topology-{i:02d}", "topology", t, f) for i, (t, f) in enumerate(items)]


# ---- trace files ------------------------------------------------------------------------


def trace_cases() -> list[Case]:
    cap = lambda path: BASE.replace('rate = "10Mbps"', f'capacity = {{ kind = "trace", path = "{path}" }}')  # noqa: E731
    vbr = lambda path: flow(f'app = {{ kind = "vbr", fps = 25, trace = "{path}" }}')  # noqa: E731
    capf, vbrf = "links.b.capacity.path", "flows[0].app.trace"
    contents = {
        "empty": "", "blank": "\n\n", "word": "0\nabc\n", "negative": "0\n-1\n", "decreasing": "0\n5\n4\n",
        "all-zero": "0\n0\n", "superscript": "0\n²\n", "fullwidth": "0\n１\n", "thirty-digits": "0\n" + "9" * 30 + "\n",
        "float": "0\n1.5\n", "binary": bytes(range(256)), "bad-utf8": b"0\n\xff\n", "passwd-like": "root:x:0:0:root:/root\n",
        "huge-ms": "0\n" + str(10**12) + "\n",
    }
    cases = [scenario(f"trace-{k}", "trace files", cap("t"), capf, t=v) for k, v in contents.items()]
    frames = {
        "empty": "", "comment-only": "# x\n", "word": "1000\n12k\n", "negative": "-5\n", "all-zero": "0\n0\n",
        "thirty-digits": "9" * 30 + "\n", "superscript": "²\n", "float": "1000.5\n", "binary": bytes(range(256)),
        "passwd-like": "root:x:0:0:root:/root\n",
    }
    cases += [scenario(f"frames-{k}", "trace files", vbr("f"), vbrf, f=v) for k, v in frames.items()]
    special = {
        "missing": ({}, "nope"), "directory": ({"d": ("dir",)}, "d"), "fifo": ({"p": ("fifo",)}, "p"),
        "dev-zero": ({}, "/dev/zero"), "traversal": ({}, "../../../../../../../../etc/passwd"),
        "symlink-loop": ({"loop": ("symlink", "loop")}, "loop"), "too-big": ({"big": ("sparse", 300 * 2**20)}, "big"),
        "nul-in-path": ({}, "a\\u0000b"),
    }
    for k, (files, path) in special.items():
        cases.append(scenario(f"trace-{k}", "trace files", cap(path), capf, **files))
        cases.append(scenario(f"frames-{k}", "trace files", vbr(path), vbrf, **files))
    return cases


# ---- strings ----------------------------------------------------------------------------


def string_cases() -> list[Case]:
    items = [
        (BASE.replace('cc = "reno"', 'cc = ""'), "flows[0].cc"), (BASE.replace('cc = "reno"', 'cc = "reno\\n"'), "flows[0].cc"),
        (BASE.replace('cc = "reno"', 'cc = "\\u001b[31mreno"'), "flows[0].cc"),
        (BASE.replace('cc = "reno"', 'cc = "' + "x" * 100_000 + '"'), "flows[0].cc"),
        (flow('scheduler = ""'), "flows[0].scheduler"), (flow('receiver = "POPCTL"'), "flows[0].receiver"),
        (top('description = """' + "d" * 1_000_000 + '"""\nmystery = 1'), "mystery"),
        (BASE.replace('path = ["b"]', 'path = ["' + "b" * 10_000 + '"]'), "flows[0].path[0]"),
        (BASE.replace('"reno"', '"Reno"'), "flows[0].cc"),
        (link('queue = { kind = "DropTail", packets = 10 }'), "links.b.queue"),
    ]
    return [scenario(f"string-{i:02d}", "strings", t, f) for i, (t, f) in enumerate(items)]


# ---- files and command-line arguments -----------------------------------------------------------


def file_and_cli_cases() -> list[Case]:
    g = "files and CLI"
    run_of = lambda path: ("run", path, "--out", "{dir}/out", "--no-plots")  # noqa: E731
    return [
        Case("cli-missing-scenario", g, "nope.toml", {}, run_of("{dir}/nope.toml")),
        Case("cli-scenario-directory", g, "is a directory", {"d": ("dir",)}, run_of("{dir}/d")),
        Case("cli-scenario-fifo", g, "not a regular file", {"p": ("fifo",)}, run_of("{dir}/p")),
        Case("cli-scenario-dev-zero", g, "/dev/zero", {}, run_of("/dev/zero")),
        Case("cli-scenario-dev-null", g, "/dev/null", {}, run_of("/dev/null")),
        Case("cli-scenario-symlink-loop", g, "loop.toml", {"loop.toml": ("symlink", "loop.toml")}, run_of("{dir}/loop.toml")),
        Case("cli-scenario-too-big", g, "16 MiB", {"big.toml": ("sparse", 17 * 2**20)}, run_of("{dir}/big.toml")),
        Case("cli-scenario-empty-name", g, "scenario file", {}, run_of("")),
        Case("cli-scenario-nul", g, "scenario file", {}, run_of("{dir}/a\0b.toml")),
        Case("cli-seed-negative", g, "--seed", {SCENARIO: BASE}, RUN + ("--seed", "-1")),
        Case("cli-seed-huge", g, "--seed", {SCENARIO: BASE}, RUN + ("--seed", str(2**64))),
        Case("cli-seed-word", g, "--seed", {SCENARIO: BASE}, RUN + ("--seed", "abc")),
        Case("cli-seed-float", g, "--seed", {SCENARIO: BASE}, RUN + ("--seed", "1.5")),
        Case("cli-unknown-option", g, "--frobnicate", {SCENARIO: BASE}, RUN + ("--frobnicate",)),
        Case("cli-unknown-command", g, "walk", {}, ("walk",)),
        Case("cli-run-without-scenario", g, "scenario", {}, ("run",)),
        Case("cli-no-command", g, "COMMAND", {}, ()),
        Case("cli-reproduce-unknown-paper", g, "nosuchpaper", {}, ("reproduce", "nosuchpaper", "--out", "{dir}/rep")),
        Case("cli-reproduce-jobs-zero", g, "--jobs", {}, ("reproduce", "tcp", "--jobs", "0", "--out", "{dir}/rep")),
        Case("cli-plot-missing", g, "nothere", {}, ("plot", "{dir}/nothere")),
        Case("cli-plot-not-results", g, "summary.json", {"d": ("dir",)}, ("plot", "{dir}/d")),
        Case("cli-out-is-a-file", g, "outfile", {SCENARIO: BASE, "outfile": "x"},
             ("run", "{dir}/s.toml", "--out", "{dir}/outfile", "--no-plots")),
    ]


# ---- resource bombs ----------------------------------------------------------------------------


def bomb_cases() -> list[Case]:
    g = "resource bombs"
    onoff = 'app = {{ kind = "onoff", on = {{ kind = "fixed", value = "{v}" }}, off = {{ kind = "fixed", value = "{v}" }} }}'
    items = [
        ("1tbps-1000s", BASE.replace('"2s"', '"1000s"').replace('"10Mbps"', '"1Tbps"'), "links.b.rate x duration"),
        ("1mbps-1e6s", BASE.replace('"2s"', '"1e6s"').replace('"10Mbps"', '"1Mbps"'), "sample_interval x duration"),
        ("1ns-samples", BASE.replace('"2s"', '"10s"\nsample_interval = "1ns"'), "sample_interval x duration"),
        ("million-flows", flow("count = 1000000").replace('"2s"', '"1s"'), "flows[0].count"),
        ("100k-flows", flow("count = 100000").replace('"2s"', '"1s"'), "flows[0].count"),
        ("billion-packet-queue", link('queue = { kind = "droptail", packets = 1000000000 }')
         .replace('"10Mbps"', '"10Gbps"').replace('"2s"', '"60s"').replace('"reno"', '"cubic"'), "links.b.queue.packets"),
        ("petabyte-web-object", flow('app = { kind = "web", objects = ["1000000GB"] }'), "flows[0].app.objects"),
        ("cbr-100gbps-100s", flow('app = { kind = "cbr", rate = "100Gbps" }').replace('"2s"', '"100s"'), "flows[0].app.rate"),
        ("cbr-7gbps-1B-chunks", flow('app = { kind = "cbr", rate = "7Gbps", chunk = "1B" }'), "flows[0].app.rate"),
        ("onoff-1ns", flow(onoff.format(v="1ns")).replace('"2s"', '"10s"'), "flows[0].app.on"),
        ("random-walk-1ns", BASE.replace('"2s"', '"10s"').replace(
            'rate = "10Mbps"', 'capacity = { kind = "random_walk", initial = "10Mbps", min = "1Mbps", max = "20Mbps", '
                               'step = "1ns", sigma = 0.1 }'), "links.b.capacity.step"),
        ("web-distribution-1pb", flow('app = { kind = "web", object_count = { kind = "fixed", value = 10 }, '
                                      'object_bytes = { kind = "fixed", value = "100000GB" } }'), "flows[0].app.object_bytes"),
    ]
    cases = [scenario(f"bomb-{k}", g, t, f) for k, t, f in items]
    cases.append(scenario("bomb-vbr-terabyte-frame", g, flow('app = { kind = "vbr", fps = 25, trace = "f" }'),
                          "flows[0].app.trace", f="1000000000000\n"))
    return cases


def all_cases() -> list[Case]:
    cases = (syntax_cases() + type_cases() + unknown_cases() + range_cases() + params_cases() + unit_cases()
             + topology_cases() + trace_cases() + string_cases() + file_and_cli_cases() + bomb_cases())
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    return cases


# ---- the runner ---------------------------------------------------------------------------------


def materialise(case: Case, folder: str) -> list[str]:
    """Writes the case's files into `folder`; returns its command line."""
    os.makedirs(folder, exist_ok=True)
    for name, content in case.files.items():
        path = os.path.join(folder, name)
        if isinstance(content, tuple):
            kind = content[0]
            if kind == "dir":
                os.makedirs(path, exist_ok=True)
            elif kind == "fifo":
                os.mkfifo(path)
            elif kind == "symlink":
                os.symlink(content[1], path)
            elif kind == "sparse":
                with open(path, "wb") as f:
                    f.truncate(content[1])
        else:
            with open(path, "wb") as f:
                f.write(content.encode() if isinstance(content, str) else content)
    return [arg.replace("{dir}", folder) for arg in case.argv]


# A case still running after this long is recorded as hung, and the campaign goes on.
HANG_SECONDS = 30


class Hung(Exception):
    pass


def _hung(signum, frame):
    raise Hung(f"still running after {HANG_SECONDS} s")


def run_case(case: Case, folder: str) -> dict:
    import contextlib
    import io
    import signal
    import time
    import traceback

    from mpcc.cli import main

    argv = materialise(case, folder)
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    crashed = ""
    previous = signal.signal(signal.SIGALRM, _hung)
    signal.alarm(HANG_SECONDS)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except SystemExit as e:
        code = e.code
    except BaseException:  # noqa: BLE001 - recorded, the test fails on it
        code, crashed = None, traceback.format_exc()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return {"id": case.id, "code": code, "stdout": out.getvalue(), "stderr": err.getvalue(), "crashed": crashed,
            "seconds": time.perf_counter() - started}


def main(root: str, results: str) -> None:
    import resource

    with open(results, "w") as f:
        for i, case in enumerate(all_cases()):
            record = run_case(case, os.path.join(root, f"{i:03d}"))
            record["max_rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            f.write(json.dumps(record) + "\n")
            f.flush()


if __name__ == "__main__":
    main(*sys.argv[1:3])
