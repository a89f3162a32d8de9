"""The scenario schema: TOML files as the user writes them, validated by pydantic
and converted to the canonical JSON configuration of the simulator
(crates/mpcc-sim/src/config.rs). docs/scenarios.md documents every field.

Every problem is raised as a `ScenarioError` whose message is one line naming the
field, e.g. `links.bottleneck.rate: "-5Mbps" is negative; expected a positive rate
like "10Mbps"`.

Types are strict (`count = "2"` is not a count, `delayed_ack = "yes"` not a boolean),
every number has a ceiling (see `units`), and files are read only if they are regular
files of bounded size, so that no input reaches the simulator in a form it would
reject with its own, internal wording.
"""

import json
import math
import os
import random
import re
import stat
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Optional

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator,
                      model_validator)
from pydantic_core import PydanticCustomError

from . import units


class ScenarioError(ValueError):
    """An invalid scenario; `str(err)` is one line: `field: what is wrong and what is allowed`.

    A scenario with several problems found at once keeps all of them in `problems`
    (one such line each; the CLI prints every one), and `str(err)` is the first,
    followed by how many more there are."""

    def __init__(self, field: str, message: str, more: tuple[str, ...] = ()):
        self.field = field
        self.message = message
        first = f"{field}: {message}" if field else message
        self.problems = [first, *more]
        extra = f" (and {len(more)} more problem{'s' if len(more) > 1 else ''})" if more else ""
        super().__init__(first + extra)


def _unit(parse):
    """A pydantic before-validator applying a `units` parser with our error wording."""

    def validate(value):
        try:
            return parse(value)
        except units.UnitError as e:
            raise PydanticCustomError("unit", "{msg}", {"msg": str(e)}) from None

    return BeforeValidator(validate)


Duration = Annotated[int, _unit(units.duration_ns)]
Rate = Annotated[float, _unit(units.rate_bps)]
Size = Annotated[int, _unit(units.size_bytes)]
# Sizes the simulator holds in 32 bits (segment, header, MTU): small enough that
# mss + header_bytes cannot wrap.
MAX_WIRE_FIELD_BYTES = 65_000
# Copies of one flow (`count`): validation stays fast; the resource check
# (mpcc.limits) decides what fits in memory.
MAX_FLOWS = 100_000
# Nesting of arrays and inline tables in a scenario file.
MAX_NESTING = 64
# Largest scenario file and trace file read.
MAX_SCENARIO_BYTES = 16 * 2**20
MAX_TRACE_BYTES = 256 * 2**20


def _bounded_size(low: int, high: int, what: str):
    """A size between `low` and `high` bytes (after the unit ceiling)."""

    def check(v):
        if v is not None and v < low:
            raise PydanticCustomError("range", "{msg}", {"msg": f"{v} bytes; allowed: at least {low} byte"
                                                                f"{'s' * (low > 1)}"})
        if v is not None and v > high:
            raise PydanticCustomError("range", "{msg}", {"msg": f"{v} bytes; allowed: {low} to {high} bytes{what}"})
        return v

    return AfterValidator(check)


class Strict(BaseModel):
    """A table that rejects unknown keys, naming the allowed ones."""

    # strict: no string-to-number or string-to-boolean coercion; no NaN or infinity.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False, defer_build=True)

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data):
        if isinstance(data, dict):
            for key in data:
                if key not in cls.model_fields:
                    allowed = ", ".join(cls.model_fields)
                    raise PydanticCustomError(
                        "unknown_field", "{msg}", {"msg": f"unknown field; allowed: {allowed}", "field": key}
                    )
        return data


# --- registered members given as { kind = "NAME", ...params } ---------------------
#
# Rust owns each member's entry (`_core.kinds()`): its parameters, their defaults,
# ranges and units, and its own checks (`_core.check`, `_core.check_table`). This
# side takes the user's names and units and writes the canonical configuration.
# Capacity models and applications have structured parameters (files, choices,
# distributions, lists, a schedule's steps), parsed here by their unit.

def _shown(v, unit: str) -> str:
    if unit == "duration":
        return f"{v / 1e9:g}s"
    if unit == "size":
        return f"{int(v)} byte{'s' * (int(v) != 1)}"
    if unit == "rate":
        return f"{v:g} bit/s"
    return str(int(v)) if unit == "whole" else f"{v:g}"


def _range(low, high, unit: str, open_min: bool = False) -> str:
    """`low to high` in the unit's words ("1 to 1000000 bytes"); "above low, at most
    high" where `low` itself is not allowed."""
    if unit == "size":
        low, high = f"{int(low)}", f"{int(high)} bytes"
    else:
        low, high = _shown(low, unit), _shown(high, unit)
    return f"above {low}, at most {high}" if open_min else f"{low} to {high}"


def _unit_error(msg: str, field: str | None = None):
    return PydanticCustomError("unit", "{msg}", {"msg": msg} | ({"field": field} if field else {}))


def _located(err: PydanticCustomError, field: str) -> PydanticCustomError:
    """`err` at `field` (before the field it names inside, if any: `think` + `.shape`),
    and so the problems it carries in `more`."""
    ctx = _located_ctx(err.context or {}, field)
    if "more" in ctx:
        ctx["more"] = [(kind, _located_ctx(c, field)) for kind, c in ctx["more"]]
    return PydanticCustomError(err.type, "{msg}", ctx)


def _located_ctx(ctx: dict, field: str) -> dict:
    inner = ctx.get("field")
    at = field if inner is None else f"{field}{'' if inner.startswith('[') else '.'}{inner}"
    return {**ctx, "field": at}


def _all(errors: list[PydanticCustomError]) -> PydanticCustomError:
    """One error standing for several (a validator raises one): the first, with the
    others in its context's `more`, which `_to_scenario_error` lists line by line."""
    first, rest = errors[0], errors[1:]
    if not rest:
        return first
    return PydanticCustomError(first.type, "{msg}", {**(first.context or {}),
                                                     "more": [(e.type, dict(e.context or {})) for e in rest]})


def _scalar(raw, unit: str):
    """The canonical value of a number-like parameter as the user gave it."""
    try:
        if unit == "duration":
            return units.duration_ns(raw)
        if unit == "size":
            return units.size_bytes(raw)
        if unit == "rate":
            return units.rate_bps(raw)
    except units.UnitError as e:
        raise _unit_error(str(e)) from None
    if unit == "flag":
        if not isinstance(raw, bool):
            raise _unit_error(f"got {_show(raw)}; expected true or false")
        return raw
    if unit == "whole":
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise _unit_error(f"got {_show(raw)}; expected a whole number")
        return raw
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise _unit_error(f"{_show(raw)} is not a number; expected e.g. 3 or 0.5")
    if not math.isfinite(raw):
        raise _unit_error(f"got {raw!r}; input should be a finite number")
    return float(raw)


def _in_range(value, p: dict, unit: str | None = None) -> None:
    low, high, unit = p["min"], p["max"], unit or p["unit"]
    open_min = p.get("open_min", False)
    if value < low or (open_min and value == low):
        if value <= 0 < low:
            # A duration's least value (1 ns) says less than "positive".
            least = "a positive duration" if unit == "duration" else f"at least {_shown(low, unit)}"
            msg = f"{_shown(value, unit)} must be positive; allowed: {least}"
        else:
            msg = f"{_shown(value, unit)} is too small; allowed: {_range(low, high, unit, open_min)}"
        raise PydanticCustomError("range", "{msg}", {"msg": msg})
    if value > high:
        raise PydanticCustomError("range", "{msg}", {
            "msg": f"{_shown(value, unit)} is too large; allowed: {_range(low, high, unit, open_min)}"})


def _value(raw, p: dict):
    """The canonical value of one parameter as the user gave it (type, unit, range)."""
    unit = p["unit"]
    if unit == "file":
        if not isinstance(raw, str) or not raw:
            raise _unit_error(f"got {_show(raw)}; expected a file name")
        return raw  # resolved against the scenario's folder by to_config
    if unit == "choice":
        if raw not in p["choices"]:
            raise _unit_error(f"got {_show(raw)}; allowed: {', '.join(p['choices'])}")
        return raw
    if unit == "distribution":
        return _distribution(raw, p["of"])
    if unit == "list":
        if not isinstance(raw, list) or not raw:
            raise _unit_error(f"got {_show(raw)}; expected a non-empty array")
        return [_item(v, p, p["of"], f"[{i}]") for i, v in enumerate(raw)]
    if unit == "steps":
        return _steps(raw)
    value = _scalar(raw, unit)
    _in_range(value, p)
    return value


def _item(raw, p: dict, unit: str, field: str):
    try:
        value = _scalar(raw, unit)
        _in_range(value, p, unit)
        return value
    except PydanticCustomError as e:
        raise _located(e, field) from None


def _steps(raw) -> list:
    """A schedule's steps, [[at_ns, bps], ...]; their order is Rust's to check."""
    if not isinstance(raw, list) or not raw:
        raise _unit_error(f"got {_show(raw)}; expected a non-empty array of {{ at = ..., rate = ... }}")
    out = []
    for i, step in enumerate(raw):
        if not isinstance(step, dict):
            raise _unit_error(f'got {_show(step)}; expected {{ at = "1s", rate = "10Mbps" }} (rate 0: an outage)', f"[{i}]")
        for key in step:
            if key not in ("at", "rate"):
                raise PydanticCustomError("unknown_field", "{msg}", {"msg": "unknown field; allowed: at, rate",
                                                                     "field": f"[{i}].{key}"})
        for key in ("at", "rate"):
            if key not in step:
                raise _unit_error("required field is missing", f"[{i}].{key}")
        try:
            out.append([units.duration_ns(step["at"]), units.rate_bps(step["rate"], allow_zero=True)])
        except units.UnitError as e:
            bad = "at" if _parses(units.duration_ns, step["at"]) is None else "rate"
            raise _unit_error(str(e), f"[{i}].{bad}") from None
    return out


def _parses(parse, v):
    try:
        return parse(v)
    except units.UnitError:
        return None


def _distribution(raw, unit: str) -> dict:
    """`{ kind, ... }` of the distributions' registry, its location parameters in
    `unit` (the field's)."""
    kind, values = _table("distribution", raw, of=unit)
    return {"kind": kind, **{k: float(v) for k, v in values.items()}}


def _user_names(entry: dict) -> dict:
    return {units.user_name(p): p for p in entry["params"]}


def _table(family: str, data, of: str | None = None) -> tuple[str, dict]:
    """(kind, canonical values of the parameters given) of `{ kind = ..., ... }`,
    checked by Rust; a distribution's parameters in the unit `of`."""
    entries = {e["name"]: e for e in kinds()[family]}
    allowed = ", ".join(entries)
    if not isinstance(data, dict):
        raise _unit_error(f'got {_show(data)}; expected a table like {{ kind = "{next(iter(entries))}", ... }}')
    if "kind" not in data:
        raise PydanticCustomError("kind", "{msg}", {"msg": f"missing `kind`; allowed: {allowed}"})
    kind = data["kind"]
    if not isinstance(kind, str) or kind not in entries:
        raise PydanticCustomError("kind", "{msg}", {"msg": f"unknown kind {_show(kind)}; allowed: {allowed}"})
    params = _user_names(entries[kind])
    # Every unknown field and every bad value, each on its own line.
    problems = [PydanticCustomError("unknown_field", "{msg}", {
                    "msg": f"unknown field; allowed: {', '.join(['kind', *params])}", "field": key})
                for key in data if key != "kind" and key not in params]
    values = {}
    for user, p in params.items():
        if user in data:
            if p["unit"] == "of_field":
                p = {**p, "unit": of}
            try:
                values[p["name"]] = _value(data[user], p)
            except PydanticCustomError as e:
                problems.append(_located(e, user))
    if problems:
        raise _all(problems)
    names = {p["name"]: user for user, p in params.items()}
    if family in ("capacity", "app"):
        _checked_by_rust(family, kind, values, names, table=True)
    elif family == "distribution":
        # A distribution's problem follows the value as the user wrote it.
        _checked_by_rust(family, kind, values, names, shown={k: _show(v) for k, v in data.items()})
    else:
        _checked_by_rust(family, kind, {k: float(v) for k, v in values.items()}, names)
    return kind, values


def _default(p: dict):
    d = p["default"]
    if d is None:
        return None
    if p["unit"] == "distribution":
        return {"kind": "fixed", "value": float(d)}
    if p["unit"] == "choice":
        return p["choices"][int(d)]
    return d


def _typed(value, unit: str):
    if value is None or unit in ("file", "choice", "distribution", "steps"):
        return value
    if unit == "list":
        return list(value)
    if unit == "flag":
        return bool(value)
    return int(value) if unit in ("whole", "duration", "size") else float(value)


def member(family: str):
    """A pydantic type for `{ kind = "NAME", ... }` of a family whose members Rust
    registers: the value is the canonical table (every parameter, defaults filled,
    null where unset without a default; files as given, resolved by to_config)."""

    def validate(data):
        kind, values = _table(family, data)
        entry = next(e for e in kinds()[family] if e["name"] == kind)
        return {"kind": kind, **{p["name"]: _typed(values[p["name"]] if p["name"] in values else _default(p), p["unit"])
                                 for p in entry["params"]}}

    return BeforeValidator(validate)


def _checked_by_rust(family: str, name: str, params: dict, user_names: dict | None = None, field_prefix: str = "",
                     table: bool = False, shown: dict | None = None):
    """The member's own checks, run by the simulator's code (`_core.check`, or
    `_core.check_table` for structured members); a problem names the user's field."""
    from . import _core

    try:
        if table:
            _core.check_table(family, json.dumps({"kind": name, **params}))
        else:
            _core.check(family, name, params)
    except ValueError as e:
        param, msg = e.args if len(e.args) == 2 else (None, str(e))
        ctx = {"msg": msg}
        if param is not None:
            # `think_ns.shape`, `objects[1]`: the parameter, then the item inside it.
            head, rest = re.match(r"([^.\[]*)(.*)", param).groups()
            user = (user_names or {}).get(head, head)
            ctx["field"] = f"{field_prefix}{user}{rest}"
            if shown and head in params and user in shown:
                ctx["msg"] = f"{shown[user]} {msg}"
        elif field_prefix:
            ctx["field"] = field_prefix.rstrip(".")
        raise PydanticCustomError("params", "{msg}", ctx) from None


def resolve_files(table: dict, family: str, base_dir: Path, where: str) -> dict:
    """`table` (canonical) with its file parameters read, checked (the scenario's
    files are Python's: `FILE_CHECKS`) and made absolute."""
    entry = next(e for e in kinds()[family] if e["name"] == table["kind"])
    out = dict(table)
    for p in entry["params"]:
        if p["unit"] == "file" and out.get(p["name"]) is not None:
            user = units.user_name(p)
            given = out[p["name"]]
            out[p["name"]] = str(_checked(FILE_CHECKS[p["format"]], base_dir / given, f"{where}.{user}", given))
    return out


Capacity = Annotated[dict, member("capacity")]


Queue = Annotated[dict, member("queue")]
DEFAULT_QUEUE = {"kind": "droptail", "packets": 100, "bytes": None}




Loss = Annotated[dict, member("loss")]
NO_LOSS = {"kind": "none"}

# --- links, apps, TCP, flows ------------------------------------------------------


class Link(Strict):
    rate: Optional[Rate] = None
    capacity: Optional[Capacity] = None
    delay: Duration = 0
    queue: Queue = DEFAULT_QUEUE
    loss: Loss = NO_LOSS

    @model_validator(mode="after")
    def _one_capacity(self):
        if (self.rate is None) == (self.capacity is None):
            raise PydanticCustomError(
                "capacity",
                "{msg}",
                {"msg": 'give exactly one of rate = "10Mbps" or capacity = { kind = ... }', "field": "rate"},
            )
        return self


# --- applications (docs/applications.md) ----------------------------------------------

# `{ kind = "cbr", ... }`: every parameter, default and check is the application's
# entry in Rust (crates/mpcc-sim/src/app/).
App = Annotated[dict, member("app")]
BULK = {"kind": "bulk"}
# Applications that write into the send buffer (and so may set tcp.send_buf).
WRITING_APPS = ("cbr", "vbr", "web")


def _tcp_default(name: str):
    """A TCP setting's default as the simulator owns it (`TcpConfig::default()`,
    crates/mpcc-sim/src/config.rs): the schema keeps no copy (docs/architecture.md)."""
    from . import _core

    return _core.tcp_defaults()[name]


class Tcp(Strict):
    # Which stack the sender behaves like: the default of every switch left unset
    # below (None). The simulator owns the table and the default (`mpcc list`,
    # docs/tcp.md); None: its default.
    profile: Optional[str] = None
    mss: Size = _tcp_default("mss")
    header_bytes: Annotated[Size, _bounded_size(0, MAX_WIRE_FIELD_BYTES, "")] = _tcp_default("header_bytes")
    min_rto: Optional[Duration] = None  # the profile's: 200 ms (rfc, linux), 1 s (ns3)
    initial_rto: Duration = _tcp_default("initial_rto_ns")
    max_rto: Duration = _tcp_default("max_rto_ns")
    delayed_ack: Optional[bool] = None
    delack_timeout: Optional[Duration] = None
    rcv_buf: Optional[Size] = None
    send_buf: Optional[Size] = None  # cbr, vbr and web only
    dupthresh: int = Field(default=_tcp_default("dupthresh"), ge=1, le=16)
    init_ssthresh: Optional[Size] = None  # unlimited, as Linux; ns-3 before 3.26: 65535 bytes
    cwnd_validation: Optional[bool] = None  # Linux's tcp_is_cwnd_limited; None: the profile's (on in linux)
    linux_pacing: Optional[bool] = None  # Linux's paced departures: TSO bursts, late credit; on in linux
    sack_compress: Optional[bool] = None  # Linux's receiver compresses SACKs while data waits out of order
    push_ack: Optional[bool] = None  # Linux's receiver acknowledges the end of a write (PSH) at once; on in linux
    # Mechanism switches (docs/tcp.md); None: the profile's.
    rack: Optional[bool] = None
    tlp: Optional[bool] = None
    tlp_dsack: Optional[bool] = None  # a DSACK of the probe spares its reduction (RFC 8985 7.4; Linux)
    frto: Optional[bool] = None
    undo: Optional[bool] = None
    prr: Optional[bool] = None
    quickack: Optional[bool] = None
    pacing: Optional[bool] = None
    pacing_ss_ratio: int = Field(default=_tcp_default("pacing_ss_ratio"), ge=1, le=10_000)  # percent, Linux's tcp_pacing_ss_ratio
    pacing_ca_ratio: int = Field(default=_tcp_default("pacing_ca_ratio"), ge=1, le=10_000)  # percent, Linux's tcp_pacing_ca_ratio
    nic_rate: Optional[Rate] = None  # the host's line rate; None: the first link's rate
    nic_backpressure: Optional[bool] = None
    hystart: Optional[bool] = None  # CUBIC's HyStart (its cc_params.hystart wins)
    host_jitter: Optional[Duration] = None  # each packet's host delay, uniform in [0, host_jitter)
    sack_blocks: Optional[int] = Field(default=None, ge=1, le=3)  # SACK blocks per ACK (RFC 2018)
    dsack: Optional[bool] = None  # report duplicates (RFC 2883); undo and RACK use them
    # MPTCP's connection-level retransmission timer and stale subflows (upstream Linux)
    data_rtx: Optional[bool] = None
    stale_loss_cnt: Optional[int] = Field(default=None, ge=0, le=255)  # net.mptcp.stale_loss_cnt
    sack_growth: Optional[bool] = None  # SACKed segments grow the window (off in ns3: ProcessAck's rules)
    ack_counting: Optional[bool] = None  # one growth step per ACK (ns-3's TcpNewReno)
    ssthresh_from_flight: Optional[bool] = None  # reno halves FlightSize, not cwnd (ns-3's GetSsThresh)
    rto_on_retransmit: Optional[bool] = None  # retransmitting the oldest segment restarts the RTO (Linux)
    rto_impatient: Optional[bool] = None  # only the first partial ACK of a recovery restarts the RTO (ns-3)
    prr_ns3: Optional[bool] = None  # PRR's accounting as ns-3's TcpPrrRecovery and TcpSocketBase do it
    delack_cancel: Optional[bool] = None  # every ACK sent cancels the delayed-ACK timer (Linux, ns-3)
    rto_linux: Optional[bool] = None  # RTO = srtt + max(min_rto, 4 x deviation), as Linux
    sack_rule3: Optional[bool] = None  # RFC 6675 NextSeg rule 3: resend unSACKed segments below the highest SACKed
    rule3_ns3: Optional[bool] = None  # rule 3 as ns-3's NextSeg: any segment neither SACKed nor resent
    rescue: Optional[bool] = None  # RFC 6675 NextSeg rule 4: one rescue retransmission per recovery
    hystart_ns3: Optional[bool] = None  # HyStart with ns-3's thresholds (TcpCubic::HystartUpdate)
    first_data_ack: Optional[bool] = None  # the first data segment acknowledged at once (ns-3)
    sacked_retx_in_pipe: Optional[bool] = None  # a SACKed retransmission stays in pipe (ns-3 3.44)
    handshake: Optional[bool] = None  # a three-way handshake before data; MP_JOINs once fully established
    syn_rto: Optional[Duration] = None  # the first SYN's timeout: 1 s (Linux), 3 s (ns-3's ConnTimeout)
    rtt_ns3: Optional[bool] = None  # RTT samples only from ACKs past ns-3's RTT history (none after a timeout)

    def resolved_profile(self) -> str:
        return self.profile if self.profile is not None else default_tcp_profile()

    def resolved_min_rto(self) -> int:
        return self.min_rto if self.min_rto is not None else tcp_profile(self.resolved_profile())["min_rto_ns"]

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, name):
        names = [p["name"] for p in _tcp_profiles()]
        if name is not None and name not in names:
            raise PydanticCustomError("profile", "{msg}",
                                      {"msg": f'unknown TCP profile {_show(name)}; allowed: {", ".join(names)}'})
        return name

    @field_validator("mss", "min_rto", "initial_rto", "max_rto", "delack_timeout", "rcv_buf", "send_buf", "syn_rto")
    @classmethod
    def _positive(cls, v):
        if v is not None and v <= 0:
            raise PydanticCustomError("range", "{msg}", {"msg": "must be positive"})
        return v

    @field_validator("host_jitter")
    @classmethod
    def _jitter_range(cls, v):
        if v is not None and v > 1_000_000_000:
            raise PydanticCustomError("range", "{msg}", {"msg": f"{v / 1e9:g} s is too long; allowed: 0 to 1s"})
        return v

    @field_validator("mss")
    @classmethod
    def _mss_range(cls, v):
        if v > 65000:
            raise PydanticCustomError("range", "{msg}", {"msg": f"{v} bytes is too large; allowed: 1 to 65000 bytes"})
        return v

    @model_validator(mode="after")
    def _ssthresh_range(self):
        if self.init_ssthresh is not None and self.init_ssthresh < 2 * self.mss:
            raise PydanticCustomError("range", "{msg}", {
                "msg": f"{self.init_ssthresh} bytes; allowed: at least 2 segments ({2 * self.mss} bytes)",
                "field": "init_ssthresh"})
        return self

    @model_validator(mode="after")
    def _rto_order(self):
        if not self.resolved_min_rto() <= self.initial_rto <= self.max_rto:
            raise PydanticCustomError(
                "range", "{msg}", {"msg": "expected min_rto <= initial_rto <= max_rto", "field": "min_rto"}
            )
        return self


def tcp_setting_problem(name: str, value) -> Optional[str]:
    """What is wrong with `value` for the `tcp` field `name`, in the words a scenario's
    `tcp.<name>` would get (one line), or None: for settings stated outside a scenario
    (a paper's `tcp_settings`)."""
    try:
        Tcp.model_validate({name: value})
    except ValidationError as err:
        return _to_scenario_error(err, {name: value}).message
    return None


@lru_cache(maxsize=None)
def kinds() -> dict[str, list[dict]]:
    """Every pluggable family's registry as the simulator owns it (`_core.kinds()`):
    fixed at build time, so asked once (not once per flow of a 100 000-flow scenario)."""
    from . import _core

    return _core.kinds()


@lru_cache(maxsize=None)
def _tcp_profiles() -> tuple[dict, ...]:
    from . import _core

    return tuple(_core.tcp_profiles())


def kind_names(family: str) -> list[str]:
    """The registered names of `family` (a key of `kinds()`); the first is the default."""
    return [e["name"] for e in kinds()[family]]


def default_tcp_profile() -> str:
    """The simulator's default TCP profile (docs/tcp.md#profiles)."""
    return next(p["name"] for p in _tcp_profiles() if p["default"])


def _profile(name: str) -> dict:
    """TCP profile `name` as the simulator lists it."""
    for p in _tcp_profiles():
        if p["name"] == name:
            return p
    raise KeyError(name)


def mptcp_dss_bytes(profile: str) -> int:
    """The payload bytes profile `profile` gives to the DSS option of every MPTCP data
    segment when a scenario sets neither mss nor header_bytes (24 in linux)."""
    return _profile(profile)["mptcp_dss_bytes"]


def tcp_profile(name: str) -> dict:
    """The mechanism switches of TCP profile `name`, resolved by the simulator."""
    return {k: json.loads(v) for k, v in _profile(name)["mechanisms"].items()}


def _algorithm_names() -> list[str]:
    return kind_names("cc")


def scheduler_names() -> list[str]:
    """The simulator's MPTCP schedulers; the first is the default."""
    return kind_names("scheduler")


# Hops of a route and subflows of a connection: the simulator's limits (hop counts
# fit 16 bits; at most 1024 subflows), far above any network studied.
MAX_HOPS = 1000
MAX_SUBFLOWS = 1024
Route = Annotated[list[str], Field(min_length=1, max_length=MAX_HOPS)]


class Subflow(Strict):
    """One subflow of a multipath flow; times are absolute, like the flow's."""

    path: Route
    reverse_path: Optional[Route] = None
    start: Optional[Duration] = None
    stop: Optional[Duration] = None
    # Cost per Mbit sent (`cost` in the summary; TSC's fill order); omitted when 0.
    cost_per_mbit: float = Field(default=0.0, ge=0.0, allow_inf_nan=False)


ROUTE_FIELDS = ("path", "paths", "subflows")


class Flow(Strict):
    name: str = Field(min_length=1)
    cc: str
    cc_params: dict[str, float] = {}
    path: Optional[Route] = None
    reverse_path: Optional[Route] = None
    paths: Optional[list[Route]] = Field(default=None, min_length=1, max_length=MAX_SUBFLOWS)
    subflows: Optional[list[Subflow]] = Field(default=None, min_length=1, max_length=MAX_SUBFLOWS)
    scheduler: Optional[str] = None
    # Checked by the simulator against the scheduler's registry entry.
    scheduler_params: dict[str, float] = {}
    # Receiver controller (docs/algorithms/popctl.md, rtsc.md); its parameters are
    # checked by the simulator against the controller's registry entry.
    receiver: Optional[str] = None
    receiver_params: dict[str, float] = {}
    start: Duration = 0
    stop: Optional[Duration] = None
    count: int = 1
    app: App = BULK
    tcp: Tcp = Tcp.model_construct()  # Tcp(), without building its validator at import

    @field_validator("count")
    @classmethod
    def _count_range(cls, count):
        if not 1 <= count <= MAX_FLOWS:
            raise PydanticCustomError("range", "{msg}",
                                      {"msg": f"{count}; allowed: 1 to {MAX_FLOWS} copies of the flow"})
        return count

    @field_validator("cc")
    @classmethod
    def _registered(cls, cc):
        names = _algorithm_names()
        if cc not in names:
            raise PydanticCustomError(
                "cc", "{msg}", {"msg": f'unknown congestion controller {_show(cc)}; allowed: {", ".join(names)}'}
            )
        return cc

    @field_validator("cc_params")
    @classmethod
    def _params_in_range(cls, params, info):
        if "cc" in info.data:
            _checked_by_rust("cc", info.data["cc"], params)
        return params

    @field_validator("scheduler")
    @classmethod
    def _known_scheduler(cls, name):
        names = scheduler_names()
        if name is not None and name not in names:
            raise PydanticCustomError(
                "scheduler", "{msg}", {"msg": f'unknown scheduler {_show(name)}; allowed: {", ".join(names)}'}
            )
        return name

    @field_validator("receiver")
    @classmethod
    def _known_receiver(cls, name):
        names = kind_names("receiver")
        if name is not None and name not in names:
            raise PydanticCustomError(
                "receiver", "{msg}",
                {"msg": f'unknown receiver controller {_show(name)}; allowed: {", ".join(names)}'}
            )
        return name

    @model_validator(mode="after")
    def _registered_params(self):
        """Scheduler and receiver parameters by the registries' names and ranges, so
        that the error names `flows[i]`, not the simulator's flow name."""
        checks = (("scheduler", self.scheduler or scheduler_names()[0], self.scheduler_params),
                  ("receiver", self.receiver or kind_names("receiver")[0], self.receiver_params))
        for family, name, params in checks:
            if name in kind_names(family):
                _checked_by_rust(family, name, params, field_prefix=f"{family}_params.")
        return self

    @model_validator(mode="after")
    def _one_route(self):
        given = [f for f in ROUTE_FIELDS if getattr(self, f) is not None]
        if not given:
            raise PydanticCustomError(
                "route", "{msg}", {"msg": "required field is missing; give one of path, paths or subflows",
                                   "field": "path"}
            )
        if len(given) > 1:
            raise PydanticCustomError(
                "route", "{msg}", {"msg": f"give exactly one of path, paths or subflows, not {given[0]} and "
                                          f"{given[1]}", "field": given[1]}
            )
        if self.reverse_path is not None and self.path is None:
            raise PydanticCustomError(
                "route", "{msg}", {"msg": "only with `path`; a multipath flow gives each subflow's in "
                                          "subflows = [{ path = [...], reverse_path = [...] }]", "field": "reverse_path"}
            )
        return self

    @property
    def multipath(self) -> bool:
        return self.path is None

    def subflow_list(self) -> list[tuple[str, str, Subflow]]:
        """(field of the subflow, field of its path, subflow) of a multipath flow;
        `paths` entries become subflows."""
        if self.subflows is not None:
            return [(f"subflows[{j}]", f"subflows[{j}].path", sf) for j, sf in enumerate(self.subflows)]
        return [(f"paths[{j}]", f"paths[{j}]", Subflow(path=p)) for j, p in enumerate(self.paths or [])]


class Pcap(Strict):
    links: list[str] = []  # link names: every packet that starts crossing the link
    flows: list[str] = []  # flow names: what the flow's sender sends and receives


class Scenario(Strict):
    description: str = ""
    duration: Duration
    seed: int = Field(default=1, ge=0, lt=2**64)
    warmup: Duration = 0
    sample_interval: Duration = 100_000_000
    event_log: bool = False  # the per-event log (events.parquet), docs/metrics.md
    metric_series: bool = False  # controllers' and schedulers' figures over time (metric_series.parquet)
    # Keep every delay sample for exact percentiles instead of the quantile sketch
    # (memory grows with the delivered packets), docs/metrics.md
    exact_percentiles: bool = False
    # Each flow starts up to this much later than its `start`, drawn from the seed, so
    # that replications of a scenario with no other random element differ.
    start_jitter: Duration = 0
    pcap: Optional[Pcap] = None  # packet captures, written as link-NAME.pcap / flow-NAME.pcap
    tcp: Tcp = Tcp.model_construct()  # Tcp(), without building its validator at import
    links: dict[str, Link] = Field(min_length=1)
    flows: list[Flow] = Field(min_length=1)

    # Folder that relative trace paths are resolved against (the scenario file's).
    _base_dir: Path = Path(".")
    # The TOML text the scenario was read from, if any (copied into results).
    _toml_text: Optional[str] = None
    # The dict the scenario was validated from (written back as TOML when there is no text).
    _source: Optional[dict] = None

    @field_validator("duration")
    @classmethod
    def _positive_duration(cls, v):
        if v <= 0:
            raise PydanticCustomError("range", "{msg}", {"msg": 'must be positive, e.g. "60s"'})
        return v

    # ---- loading -------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: dict, base_dir: Path | str = ".") -> "Scenario":
        try:
            scenario = cls.model_validate(data)
        except ValidationError as e:
            raise _to_scenario_error(e, data) from None
        except RecursionError:  # a dict nested thousands deep, from Python
            raise ScenarioError("scenario", f"tables nested deeper than {MAX_NESTING} levels") from None
        scenario._base_dir = Path(base_dir)
        scenario._source = data
        return scenario

    @classmethod
    def from_toml(cls, text: str, base_dir: Path | str = ".", source: str = "scenario") -> "Scenario":
        text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
        _check_nesting(text, source)
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError(source, f"malformed TOML: {e}") from None
        except RecursionError:  # the nesting check should have caught it
            raise ScenarioError(source, f"arrays or tables nested deeper than {MAX_NESTING} levels") from None
        scenario = cls.from_dict(data, base_dir)
        scenario._toml_text = text
        return scenario

    @classmethod
    def from_file(cls, path: Path | str) -> "Scenario":
        path = Path(path)
        data = read_regular_file(path, MAX_SCENARIO_BYTES, "", "scenario file", str(path))
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ScenarioError(str(path), f"not UTF-8 text (byte {e.start}); expected a TOML scenario") from None
        return cls.from_toml(text, path.parent, source=str(path))

    # ---- conversion ------------------------------------------------------------

    def flow_names(self) -> list[str]:
        """Names of the simulated flows in configuration order (`count` expanded)."""
        return [name for name, _ in self._expanded_flows()]

    def _expanded_flows(self):
        for flow in self.flows:
            for name in _simulated_names(flow):
                yield name, flow

    def to_config(self, seed: int | None = None) -> dict[str, Any]:
        """The canonical configuration (a JSON-ready dict); checks cross-references and trace files."""
        if self.warmup >= self.duration:
            raise ScenarioError("warmup", "must be shorter than duration")
        link_names = list(self.links)
        index = {name: i for i, name in enumerate(link_names)}

        links = []
        for name, link in self.links.items():
            links.append(
                {
                    "name": name,
                    "capacity": self._capacity(name, link),
                    "delay_ns": link.delay,
                    "queue": dict(link.queue),
                    "loss": dict(link.loss),
                }
            )

        run_seed = self.seed if seed is None else seed
        # A generator of its own, seeded by the run's seed: the same scenario and seed
        # always give the same offsets (Python's Mersenne Twister is stable across versions).
        jitter = random.Random(run_seed) if self.start_jitter else None
        flows, seen = [], {}
        for i, flow in enumerate(self.flows):
            where = f"flows[{i}]"
            if jitter and flow.start + self.start_jitter >= self.duration:
                raise ScenarioError("start_jitter", f"flows[{i}] could start after the end of the run; allowed: "
                                                    f"less than duration - start ({self.duration - flow.start} ns)")
            sim_names = _simulated_names(flow)
            for sim_name in sim_names:
                if sim_name in seen:
                    raise ScenarioError(f"{where}.name", f'"{sim_name}" is already used by flows[{seen[sim_name]}]')
                seen[sim_name] = i
            if flow.start >= self.duration:
                raise ScenarioError(f"{where}.start", "must be before the end of the run (duration)")
            if flow.stop is not None and flow.stop <= flow.start:
                raise ScenarioError(f"{where}.stop", "must be after start")
            route = self._route_config(flow, index, where)
            tcp = _tcp(self.tcp, flow, where)
            app = _app(flow.app, tcp["mss"], self._base_dir, f"{where}.app")
            for sim_name in sim_names:
                offset = jitter.randrange(self.start_jitter) if jitter else 0
                flows.append(
                    {
                        "name": sim_name,
                        "cc": flow.cc,
                        "cc_params": dict(flow.cc_params),
                        **route,
                        "start_ns": flow.start + offset,
                        "stop_ns": None if flow.stop is None else flow.stop + offset,
                        "app": app,
                        "tcp": tcp,
                        **_receiver(flow),
                    }
                )
        return {
            "duration_ns": self.duration,
            "seed": run_seed,
            "warmup_ns": self.warmup,
            "sample_interval_ns": self.sample_interval,
            "links": links,
            "flows": flows,
            **({"event_log": True} if self.event_log else {}),  # absent when off: configs stay as before
            **({"metric_series": True} if self.metric_series else {}),
            **({"exact_percentiles": True} if self.exact_percentiles else {}),
            **({"pcap": self._pcap_config(index, flows)} if self.pcap and (self.pcap.links or self.pcap.flows) else {}),
        }

    def _pcap_config(self, index: dict[str, int], flows: list[dict]) -> dict:
        """Link and simulated-flow indices of the captures (a flow with `count` has every copy captured)."""
        links = []
        for j, name in enumerate(self.pcap.links):
            if name not in index:
                raise ScenarioError(f"pcap.links[{j}]", f'unknown link "{name}"; allowed: {", ".join(index)}')
            links.append(index[name])
        wanted = []
        for j, name in enumerate(self.pcap.flows):
            matching = [i for i, f in enumerate(self.flows) if f.name == name]
            if not matching:
                raise ScenarioError(f"pcap.flows[{j}]", f'unknown flow "{name}"; allowed: '
                                                        f'{", ".join(f.name for f in self.flows)}')
            names = set(_simulated_names(self.flows[matching[0]]))
            wanted += [i for i, f in enumerate(flows) if f["name"] in names]
        return {"links": sorted(set(links)), "flows": sorted(set(wanted))}

    def _route_config(self, flow: Flow, index: dict[str, int], where: str) -> dict:
        """`path` and `reverse_path` of a single-path flow, or `subflows` and `scheduler`.

        A single-path flow's configuration has no `scheduler` unless one is given, so
        it stays what it was before multipath flows existed."""
        if not flow.multipath:
            reverse = None if flow.reverse_path is None else _route(flow.reverse_path, index, f"{where}.reverse_path")
            route = {"path": _route(flow.path, index, f"{where}.path"), "reverse_path": reverse}
            return route | ({"scheduler": flow.scheduler} if flow.scheduler else {}) | self._scheduler_params(flow)
        subflows = []
        for field, path_field, sf in flow.subflow_list():
            base = f"{where}.{field}"
            self._check_subflow_times(flow, sf, base)
            path = _route(sf.path, index, f"{where}.{path_field}")
            reverse = None if sf.reverse_path is None else _route(sf.reverse_path, index, f"{base}.reverse_path")
            subflows.append({"path": path, "reverse_path": reverse, "start_ns": sf.start, "stop_ns": sf.stop}
                            | ({"cost_per_mbit": sf.cost_per_mbit} if sf.cost_per_mbit else {}))
        return {"subflows": subflows, "scheduler": flow.scheduler or scheduler_names()[0]} | self._scheduler_params(flow)

    @staticmethod
    def _scheduler_params(flow: Flow) -> dict:
        """Only when given, so configurations (and run-cache keys) without them are unchanged."""
        return {"scheduler_params": dict(flow.scheduler_params)} if flow.scheduler_params else {}

    def _check_subflow_times(self, flow: Flow, sf: Subflow, base: str) -> None:
        if sf.start is not None:
            if sf.start < flow.start:
                raise ScenarioError(f"{base}.start", f"must not be before the flow's start ({flow.start / 1e9:g}s)")
            if sf.start >= self.duration:
                raise ScenarioError(f"{base}.start", "must be before the end of the run (duration)")
        begin = flow.start if sf.start is None else sf.start
        if sf.stop is not None and sf.stop <= begin:
            raise ScenarioError(f"{base}.stop", "must be after start" if sf.start is not None
                                else f"must be after the flow's start ({flow.start / 1e9:g}s)")

    def _capacity(self, name: str, link: Link) -> dict:
        if link.capacity is None:
            return {"kind": "constant", "bps": link.rate}
        return resolve_files(link.capacity, "capacity", self._base_dir, f"links.{name}.capacity")


def _simulated_names(flow: Flow) -> list[str]:
    """The simulator's names of a flow's copies: NAME, or NAME.0, NAME.1, ... with `count`."""
    return [flow.name] if flow.count == 1 else [f"{flow.name}.{i}" for i in range(flow.count)]


def _receiver(flow: Flow) -> dict:
    """Only when given, so configurations (and run-cache keys) without one are unchanged."""
    out = {"receiver": flow.receiver} if flow.receiver is not None else {}
    return out | ({"receiver_params": dict(flow.receiver_params)} if flow.receiver_params else {})


# Largest trace timestamp (ms): the ceiling of durations.
MAX_TRACE_MS = units.MAX_DURATION_S * 1000
_DIGITS = re.compile(rb"[0-9]{1,30}")


def _trace_lines(path: Path, field: str, what: str, shown: str, comments: bool):
    """(line number, bytes) of each non-blank line of a trace file; lines starting
    with `#` skipped if `comments`. Contents never appear in messages (a mistyped
    path may point at any file)."""
    data = read_regular_file(path, MAX_TRACE_BYTES, field, what, shown)
    for lineno, raw in enumerate(data.splitlines(), start=1):
        line = raw.strip()
        if not line or (comments and line.startswith(b"#")):
            continue
        yield lineno, line


# A mistyped number ("12k", "1.5e3") may be quoted back; any other line is only
# described, so that a trace path pointing at another file leaks nothing of it.
_NUMBER_LIKE = re.compile(rb"[0-9][0-9.,eE+-]{0,11}[A-Za-z]{0,3}")


def _described(line: bytes) -> str:
    return f' ("{line.decode()}")' if _NUMBER_LIKE.fullmatch(line) else ""


def _whole_number(line: bytes, ceiling: int) -> int | None:
    """The line's value if it is ASCII digits only and at most `ceiling`, else None."""
    if not _DIGITS.fullmatch(line):
        return None
    value = int(line)
    return value if value <= ceiling else None


def _trace_stats(path: Path, field: str, shown: str) -> tuple[int, int]:
    previous, count = -1, 0
    for lineno, line in _trace_lines(path, field, "trace file", shown, comments=False):
        ms = _whole_number(line, MAX_TRACE_MS)
        if ms is None:
            what = "above the largest time" if _DIGITS.fullmatch(line) else "not a whole number of milliseconds"
            raise ScenarioError(field, f'trace file "{shown}" line {lineno}{_described(line)} is {what}; allowed: '
                                       f"a whole number of milliseconds, at most {MAX_TRACE_MS}")
        if ms < previous:
            raise ScenarioError(field, f'trace file "{shown}" line {lineno}: {ms} is earlier than the line before')
        previous, count = ms, count + 1
    if count == 0 or previous == 0:
        raise ScenarioError(field, f'trace file "{shown}" has no delivery opportunity after 0 ms')
    return count, previous


def check_trace(path: Path, field: str, shown: str) -> tuple[int, int]:
    """Checks a mahimahi trace: one integer millisecond timestamp per line, non-decreasing;
    returns (opportunities, last timestamp in ms). Cached by the file's time and size,
    so that the resource check (mpcc.limits) does not read it again."""
    return _cached(_trace_stats, path, field, shown)


_STATS: dict[tuple, tuple] = {}


def _cached(stats, path: Path, field: str, shown: str) -> tuple:
    """`stats(path, field, shown)`, remembered per file (device, inode, time, size),
    so that a file reached by another path (resolved, or from mpcc.limits) is read once."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return stats(path, field, shown)  # raises, naming the problem
    if not stat.S_ISREG(st.st_mode):
        return stats(path, field, shown)
    key = (stats.__name__, st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)
    if key not in _STATS:
        if len(_STATS) > 64:
            _STATS.clear()
        _STATS[key] = stats(path, field, shown)
    return _STATS[key]


def _checked(check, path: Path, field: str, shown: str) -> Path:
    """The absolute path of a trace file that `check` accepts. Checked before it is
    resolved: resolving a symlink loop or a path holding NUL raises, and the
    message names the path as the user wrote it."""
    check(path, field, shown)
    return path.resolve()


def _route(names: list[str], index: dict[str, int], field: str) -> list[int]:
    route = []
    for j, name in enumerate(names):
        if name not in index:
            raise ScenarioError(f"{field}[{j}]", f'unknown link {_show(name)}; defined links: {", ".join(index)}')
        route.append(index[name])
    return route


def _app(app: dict, mss: int, base_dir: Path, where: str) -> dict:
    """The canonical application (crates/mpcc-sim/src/config.rs), every value
    explicit: files resolved, and the stream's unset `chunk` (one MSS) and
    `rebuffer` (the startup) as the entry's help says."""
    app = resolve_files(app, "app", base_dir, where)
    if app["kind"] == "cbr" and app["chunk_bytes"] is None:
        app["chunk_bytes"] = mss
        try:  # the entry's rule on rate and chunk, now that the chunk is known
            _checked_by_rust("app", "cbr", {"rate_bps": app["rate_bps"], "chunk_bytes": mss}, table=True)
        except PydanticCustomError as e:
            raise ScenarioError(f"{where}.rate", e.context["msg"]) from None
    if "rebuffer_ns" in app and app["rebuffer_ns"] is None:
        app["rebuffer_ns"] = app["startup_ns"]
    return app


def _frame_trace_stats(path: Path, field: str, shown: str) -> tuple[int, int, int]:
    frames = total = largest = 0
    for lineno, line in _trace_lines(path, field, "frame trace", shown, comments=True):
        size = _whole_number(line, units.MAX_SIZE_BYTES)
        if size is None:
            raise ScenarioError(field, f'frame trace "{shown}" line {lineno}{_described(line)} is not a frame size; '
                                       "allowed: a whole number of bytes, below 2^53")
        frames, total, largest = frames + 1, total + size, max(largest, size)
    if total == 0:
        raise ScenarioError(field, f'frame trace "{shown}" has no frame of 1 byte or more; '
                                   "allowed: one size in bytes per line")
    return frames, total, largest


def check_frame_trace(path: Path, field: str, shown: str) -> tuple[int, int, int]:
    """Checks a VBR frame-size trace: one whole number of bytes per line; blank lines
    and lines starting with `#` skipped; at least one size above 0. Returns
    (frames, total bytes, largest frame), cached like check_trace."""
    return _cached(_frame_trace_stats, path, field, shown)


# The readers of the files members take, by the format their entry names.
FILE_CHECKS = {"mahimahi": check_trace, "frames": check_frame_trace}


def _tcp(defaults: Tcp, flow: Flow, where: str) -> dict:
    """The flow's TCP settings: its own where given, else the scenario-wide ones.

    `send_buf_bytes` appears only for applications that write (cbr, vbr, web) and
    only when set, so other configurations stay what they were before it existed; a
    scenario-wide `send_buf` applies to those flows only."""
    own = flow.tcp
    merged = defaults.model_copy(update={k: getattr(own, k) for k in own.model_fields_set})
    mss, header = merged.mss, merged.header_bytes
    sized = {"mss", "header_bytes"} & (own.model_fields_set | defaults.model_fields_set)
    if flow.multipath and not sized:
        # Linux's MPTCP subflows carry a DSS option in every data segment, so the
        # segment keeps the MTU and gives up payload (docs/mptcp.md#segment-size).
        dss = mptcp_dss_bytes(merged.resolved_profile())
        mss, header = mss - dss, header + dss
    tcp = {
        "mss": mss,
        "header_bytes": header,
        "min_rto_ns": merged.resolved_min_rto(),
        "initial_rto_ns": merged.initial_rto,
        "max_rto_ns": merged.max_rto,
        "rcv_buf_bytes": merged.rcv_buf,
        "dupthresh": merged.dupthresh,
    }
    tcp["profile"] = merged.resolved_profile()
    # Switches left unset take the profile's value in the simulator.
    for name in ("delayed_ack", "rack", "tlp", "tlp_dsack", "frto", "undo", "prr", "quickack", "pacing", "nic_backpressure",
                 "hystart", "sack_blocks", "dsack", "data_rtx", "stale_loss_cnt", "sack_growth", "ack_counting",
                 "ssthresh_from_flight", "rto_on_retransmit", "rto_impatient", "prr_ns3", "delack_cancel", "rto_linux",
                 "sack_rule3", "rule3_ns3", "rescue", "hystart_ns3", "first_data_ack", "sacked_retx_in_pipe",
                 "handshake", "rtt_ns3", "cwnd_validation", "linux_pacing", "sack_compress", "push_ack"):
        if getattr(merged, name) is not None:
            tcp[name] = getattr(merged, name)
    if merged.delack_timeout is not None:
        tcp["delack_timeout_ns"] = merged.delack_timeout
    if merged.host_jitter is not None:
        tcp["host_jitter_ns"] = merged.host_jitter
    if merged.syn_rto is not None:
        tcp["syn_rto_ns"] = merged.syn_rto
    if merged.nic_rate is not None:
        tcp["nic_rate_bps"] = int(merged.nic_rate)
    for name in ("pacing_ss_ratio", "pacing_ca_ratio"):
        if getattr(merged, name) != Tcp.model_fields[name].default:
            tcp[name] = getattr(merged, name)
    if merged.init_ssthresh is not None:
        tcp["init_ssthresh_bytes"] = merged.init_ssthresh
    if merged.send_buf is None:
        return tcp
    field = f"{where}.tcp.send_buf" if "send_buf" in own.model_fields_set else "tcp.send_buf"
    if flow.app["kind"] not in WRITING_APPS:
        if field == "tcp.send_buf":
            return tcp  # scenario-wide: not for this flow
        raise ScenarioError(field, f"allowed only with the cbr, vbr and web applications, not {flow.app['kind']}")
    if merged.send_buf < mss:
        raise ScenarioError(field, f"{merged.send_buf} bytes is less than one segment; allowed: at least the mss "
                                   f"({mss} bytes)")
    return tcp | {"send_buf_bytes": merged.send_buf}


# ---- pydantic errors to one line ---------------------------------------------------


def _to_scenario_error(err: ValidationError, data) -> ScenarioError:
    errors = []
    for e in err.errors(include_url=False):
        errors.append(e)
        # The other problems of the same table (`_all`), at the same place.
        errors += [{**e, "type": kind, "ctx": ctx} for kind, ctx in (e.get("ctx") or {}).get("more", ())]
    problems = list(dict.fromkeys(_problem(e, data) for e in errors))
    (field, message), more = problems[0], problems[1:]
    return ScenarioError(field, message, tuple(f"{f}: {m}" if f else m for f, m in more))


def _problem(first: dict, data) -> tuple[str, str]:
    """(the user's field, what is wrong and what is allowed) of one pydantic error."""
    field = _field_path(first["loc"], data)
    ctx = first.get("ctx") or {}
    kind = first["type"]
    if "field" in ctx:
        sep = "" if ctx["field"].startswith("[") else "."
        field = f"{field}{sep}{ctx['field']}" if field else ctx["field"]
    if kind in ("unit", "unknown_field", "cc", "cc_params", "schedule", "range", "capacity", "scheduler",
                "route", "app", "receiver", "params", "kind", "profile"):
        message = ctx["msg"]
    elif kind == "missing":
        message = "required field is missing"
    elif kind in ("union_tag_invalid", "union_tag_not_found"):
        last = field.rsplit(".", 1)[-1]
        group = last
        allowed = ", ".join(kind_names(group)) if group in kinds() else ctx.get("expected_tags", "")
        got = f'unknown kind "{ctx["tag"]}"' if kind == "union_tag_invalid" else "missing `kind`"
        message = f"{got}; allowed: {allowed}"
    else:
        msg = first["msg"]
        message = f"got {_show(first.get('input'))}; {msg[:1].lower()}{msg[1:]}"
    return field, message


def _field_path(loc, data) -> str:
    """`('flows', 0, 'queue', 'droptail', 'packets')` -> `flows[0].queue.packets` (tags dropped)."""
    out = ""
    node = data
    for part in loc:
        if isinstance(node, dict) and part not in node and node.get("kind") == part:
            continue  # the discriminator tag pydantic inserts for tagged unions
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
        else:
            node = None
    return out


_SHOWN_CHARACTERS = 60


def _show(value) -> str:
    """A value given by the user, short and on one line: long strings cut, control
    characters escaped, arrays and tables described."""
    if isinstance(value, str):
        text = value if value.isprintable() else value.encode("unicode_escape").decode("ascii")
        if len(text) > _SHOWN_CHARACTERS:
            return f'"{text[:_SHOWN_CHARACTERS]}..." ({len(value)} characters)'
        return f'"{text}"'
    if isinstance(value, dict):
        return "table"
    if isinstance(value, list):
        return f"an array of {len(value)} item{'s' * (len(value) != 1)}"
    return repr(value)[:_SHOWN_CHARACTERS]


def load(source, base_dir: Path | str | None = None) -> Scenario:
    """A Scenario from a Scenario, a path to a TOML file, TOML text or a dict.

    A string is TOML text if it has a line break, or an `=` and no file of that
    name exists (`'duration = "1s"'`); otherwise it is a path."""
    if isinstance(source, Scenario):
        return source
    if isinstance(source, dict):
        return Scenario.from_dict(source, base_dir or ".")
    if isinstance(source, str) and _looks_like_toml(source):
        return Scenario.from_toml(source, base_dir or ".")
    if isinstance(source, (str, Path)):
        return Scenario.from_file(source)
    raise TypeError(f"expected a Scenario, a path, TOML text or a dict, not {type(source).__name__}")


def _looks_like_toml(text: str) -> bool:
    if "\n" in text:
        return True
    if "=" not in text or "\0" in text:
        return False
    try:
        return not os.path.exists(text)
    except (OSError, ValueError):  # a name too long for a path
        return True


# ---- hostile files -------------------------------------------------------------------


def read_regular_file(path: Path, max_bytes: int, field: str, what: str, shown: str) -> bytes:
    """The bytes of a regular file of at most `max_bytes`; anything else (missing,
    a directory, a FIFO, a device, too large) is a ScenarioError naming `shown`, the
    path as the user wrote it. Opened non-blocking, so that a FIFO put in its place
    after the check cannot block."""
    shown = _show(shown)[1:-1] if shown.isprintable() is False or len(shown) > 200 else shown
    data = b""
    try:
        st = os.stat(path)
        if stat.S_ISREG(st.st_mode) and st.st_size <= max_bytes:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
            try:
                st = os.fstat(fd)  # the file that was opened
                if stat.S_ISREG(st.st_mode):
                    data = _read_at_most(fd, max_bytes + 1)
            finally:
                os.close(fd)
    except FileNotFoundError:
        raise ScenarioError(field, f'{what} "{shown}" not found') from None
    except (OSError, ValueError) as e:  # ValueError: a NUL in the path
        reason = getattr(e, "strerror", None) or "not a valid path"
        raise ScenarioError(field, f'cannot read {what} "{shown}": {reason}') from None
    if stat.S_ISDIR(st.st_mode):
        raise ScenarioError(field, f'{what} "{shown}" is a directory; expected a file')
    if not stat.S_ISREG(st.st_mode):
        raise ScenarioError(field, f'{what} "{shown}" is not a regular file (a FIFO, device or socket); '
                                   "expected a file")
    if st.st_size > max_bytes or len(data) > max_bytes:
        raise ScenarioError(field, f'{what} "{shown}" is larger than {_mib(max_bytes)}; allowed: at most '
                                   f"{_mib(max_bytes)}")
    return data


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks, size = [], 0
    while size < limit:
        chunk = os.read(fd, min(1 << 20, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _mib(n: int) -> str:
    return f"{n // 2**20} MiB"


# Strings and comments (whose brackets do not nest), and the brackets that do.
_NESTING_TOKENS = re.compile("|".join([
    r"#[^\n]*",  # comment
    r'"""(?:[^"\\]|\\.|"(?!""))*"""',  # multi-line basic string
    r"'{3}.*?'{3}",  # multi-line literal string
    r'"(?:[^"\\\n]|\\.)*"',  # basic string
    r"'[^'\n]*'",  # literal string
    r"[\[{]+",  # runs of openers and of closers: one step each
    r"[\]}]+",
]), re.S)


def _check_nesting(text: str, source: str) -> None:
    """Refuses arrays and inline tables nested deeper than MAX_NESTING, before
    tomllib's recursion would overflow the stack."""
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return
    depth = 0
    for m in _NESTING_TOKENS.finditer(text):
        token = m.group()
        if token[0] in "[{":
            depth += len(token)
            if depth > MAX_NESTING:
                line = text.count("\n", 0, m.start()) + 1
                raise ScenarioError(source, f"line {line}: arrays or tables nested deeper than {MAX_NESTING} levels; "
                                            f"allowed: at most {MAX_NESTING}")
        elif token[0] in "]}":
            depth = max(0, depth - len(token))
