import pytest

from mpcc.units import UnitError, duration_ns, rate_bps, size_bytes


@pytest.mark.parametrize(
    "text, ns",
    [("60s", 60_000_000_000), ("20ms", 20_000_000), ("1.5us", 1_500), ("250ns", 250), ("2min", 120_000_000_000),
     ("0.1", 100_000_000), (3, 3_000_000_000), (0.02, 20_000_000), ("1e-3s", 1_000_000), (" 5 ms ", 5_000_000)],
)
def test_durations(text, ns):
    assert duration_ns(text) == ns


@pytest.mark.parametrize(
    "text, bps",
    [("10Mbps", 10e6), ("1.5Gbps", 1.5e9), ("500kbps", 500e3), ("64000", 64e3), (1200, 1200.0), ("10mbps", 10e6)],
)
def test_rates(text, bps):
    assert rate_bps(text) == bps


@pytest.mark.parametrize(
    "text, n", [("1500B", 1500), ("64KB", 64_000), ("1MB", 1_000_000), ("4MiB", 4 * 2**20), ("1KiB", 1024), (1448, 1448)]
)
def test_sizes(text, n):
    assert size_bytes(text) == n


@pytest.mark.parametrize(
    "parse, text, words",
    [
        (rate_bps, "-5Mbps", ['"-5Mbps" is negative', '"10Mbps"']),
        (rate_bps, "0Mbps", ["zero"]),
        (rate_bps, "10 furlongs", ['unknown unit "furlongs"', "Mbps"]),
        (rate_bps, "fast", ['"fast" is not a rate']),
        (duration_ns, "-1s", ["negative"]),
        (duration_ns, "5 parsecs", ['unknown unit "parsecs"', "ms"]),
        (duration_ns, True, ["not a duration"]),
        (size_bytes, "1.5B", ["whole number of bytes"]),
        (size_bytes, [1], ["not a size"]),
        (rate_bps, "nan", ["not a rate"]),
    ],
)
def test_unit_errors_quote_input_and_show_an_example(parse, text, words):
    with pytest.raises(UnitError) as err:
        parse(text)
    for w in words:
        assert w in str(err.value)
