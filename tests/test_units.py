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


# ---- ceilings: no wraparound, no inf, nothing JSON or the simulator would reject ----


@pytest.mark.parametrize(
    "parse, value, words",
    [
        (duration_ns, "1e12s", ["at most 1000000 s"]),
        (duration_ns, "1e30s", ["at most 1000000 s"]),
        (duration_ns, "18446744073.5s", ["at most 1000000 s"]),
        (duration_ns, 9223372036854775807, ["at most 1000000 s"]),
        (duration_ns, float("inf"), ["not finite"]),
        (duration_ns, float("nan"), ["not finite"]),
        (rate_bps, "1e400Mbps", ["at most 10 Tbit/s"]),
        (rate_bps, "11Tbps", ["at most 10 Tbit/s"]),
        (rate_bps, "1e-30bps", ["at least 1 bit/s"]),
        (rate_bps, 0.5, ["at least 1 bit/s"]),
        (rate_bps, float("inf"), ["not finite"]),
        (size_bytes, "1e21B", ["below 2^53 bytes"]),
        (size_bytes, 2**53, ["below 2^53 bytes"]),
        (size_bytes, "5e400GB", ["below 2^53 bytes"]),
    ],
)
def test_values_beyond_the_ceilings_are_refused(parse, value, words):
    with pytest.raises(UnitError) as err:
        parse(value)
    for w in words:
        assert w in str(err.value)


def test_values_at_the_ceilings_are_accepted():
    assert duration_ns("1000000s") == 10**15
    assert rate_bps("10Tbps") == 10e12 and rate_bps("1bps") == 1.0
    assert rate_bps("0bps", allow_zero=True) == 0.0
    assert size_bytes(2**53 - 1) == 2**53 - 1
    assert size_bytes("0B") == 0  # fields that need a positive size say so themselves


@pytest.mark.parametrize("text", ["２s", "²ms", "１０Mbps", "1٫5s"])
def test_non_ascii_digits_are_not_numbers(text):
    with pytest.raises(UnitError):
        duration_ns(text) if text.endswith("s") and "bps" not in text else rate_bps(text)


@pytest.mark.parametrize("parse, text, words", [
    (duration_ns, "1e9999999s", ["too long"]), (rate_bps, "1e9999999bps", ["too high"]),
    (rate_bps, "1e-9999999bps", ["too low"]), (size_bytes, "1e-9999999B", ["whole number"]),
])
def test_huge_exponents_give_a_unit_error(parse, text, words):
    with pytest.raises(UnitError) as err:
        parse(text)
    for w in words:
        assert w in str(err.value)


@pytest.mark.parametrize("text", ["10MBps", "10MBPS", "1GBps", "100Bps"])
def test_bytes_per_second_is_not_taken_as_bits(text):
    with pytest.raises(UnitError, match="B is bytes"):
        rate_bps(text)
    assert rate_bps("10mbps") == rate_bps("10MBPS".replace("BPS", "bps")) == 10e6
