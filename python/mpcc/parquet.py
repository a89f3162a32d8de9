"""A small Parquet writer for mpcc's result tables, so `mpcc run` needs neither pandas
nor pyarrow (together ~0.3-0.4 s of start-up, more than many simulations take).

It writes what the results folder holds and nothing more: flat tables of float64,
int64, bool and UTF-8 string columns, every column REQUIRED, PLAIN encoding,
uncompressed, one row group. The format is Apache Parquet's (parquet-format's
`parquet.thrift`, metadata in Thrift's compact protocol); any Parquet reader
(pyarrow, pandas, DuckDB, Spark) reads the files. Numbers are copied from the columns'
buffers (`array.array` or numpy), which on a little-endian machine are already
Parquet's PLAIN encoding; numpy is not needed (nor imported) for `array.array` columns.
"""

from __future__ import annotations

import struct
import sys
from array import array
from pathlib import Path

MAGIC = b"PAR1"
PAGE_VALUES = 1 << 20  # values per data page (a page's size is an i32)

# parquet.thrift enums
_BOOLEAN, _INT64, _DOUBLE, _BYTE_ARRAY = 0, 2, 5, 6
_REQUIRED = 0
_UTF8 = 0  # ConvertedType
_PLAIN, _RLE = 0, 3
_UNCOMPRESSED = 0
_DATA_PAGE = 0

# Thrift compact protocol field types
_T_I32, _T_I64, _T_BINARY, _T_LIST, _T_STRUCT = 5, 6, 8, 9, 12


class Booleans(list):
    """A list of bools, written as a BOOLEAN column (a plain list is a column of strings)."""


def write(path, columns: dict) -> None:
    """Writes `columns` ({name: numpy array or list of str}, all the same length) to
    the Parquet file `path`, columns in the dict's order."""
    encoded = [(name, *_encode(name, values)) for name, values in columns.items()]
    rows = {count for _, _, count, _ in encoded}
    if len(rows) > 1:
        raise ValueError(f"columns differ in length: {sorted(rows)}")
    num_rows = rows.pop() if rows else 0
    out = bytearray(MAGIC)
    chunks = []
    for name, ptype, count, pages in encoded:
        start = len(out)
        for page_count, data in pages:
            out += _page_header(page_count, len(data))
            out += data
        chunks.append((name, ptype, count, start, len(out) - start))
    out += (meta := _file_metadata(columns, chunks, num_rows))
    out += struct.pack("<i", len(meta)) + MAGIC
    Path(path).write_bytes(bytes(out))


def _encode(name: str, values) -> tuple[int, int, list[tuple[int, bytes]]]:
    """(physical type, value count, [(values in page, PLAIN bytes)])."""
    kind = _number_kind(values)
    if kind is None:
        strings = [str(v).encode() for v in values]
        pages = []
        for lo in range(0, len(strings), PAGE_VALUES):
            part = strings[lo:lo + PAGE_VALUES]
            pages.append((len(part), b"".join(struct.pack("<I", len(s)) + s for s in part)))
        return _BYTE_ARRAY, len(strings), pages or [(0, b"")]
    ptype = {"b": _BOOLEAN, "f": _DOUBLE, "i": _INT64}[kind]
    if ptype == _BOOLEAN:
        flags = values.astype("u1").tobytes() if hasattr(values, "dtype") else bytes(bool(v) for v in values)
        pages = [(len(part), _packed_bits(part)) for part in (flags[lo:lo + PAGE_VALUES]
                                                             for lo in range(0, len(flags), PAGE_VALUES))]
        return ptype, len(flags), pages or [(0, b"")]
    data = _little_endian(values, ptype)
    pages = [(len(data[lo:lo + 8 * PAGE_VALUES]) // 8, data[lo:lo + 8 * PAGE_VALUES])
             for lo in range(0, len(data), 8 * PAGE_VALUES)]
    return ptype, len(data) // 8, pages or [(0, b"")]


def _number_kind(values) -> str | None:
    """"f", "i" or "b" for a column of doubles, 64-bit integers or booleans; None for strings."""
    if isinstance(values, Booleans):
        return "b"
    if isinstance(values, array):
        if values.typecode in "fd":
            return "f"
        if values.typecode in "bBhHiIlLqQ":
            return "i"
        raise ValueError(f"array typecode {values.typecode!r} is not a number column")
    dtype = getattr(values, "dtype", None)  # a numpy array
    if dtype is not None and dtype.kind in "fiub":
        return "b" if dtype.kind == "b" else "f" if dtype.kind == "f" else "i"
    return None


def _little_endian(values, ptype: int) -> bytes:
    """PLAIN bytes of a number column: 8-byte little-endian doubles or integers."""
    if isinstance(values, array):
        want = "d" if ptype == _DOUBLE else "q"
        arr = values if values.typecode == want else array(want, values)
        if sys.byteorder != "little":
            arr = array(want, arr)
            arr.byteswap()
        return arr.tobytes()
    return values.astype("<f8" if ptype == _DOUBLE else "<i8", copy=False).tobytes()  # numpy


def _packed_bits(flags: bytes) -> bytes:
    """Booleans (one 0/1 byte each) packed eight to a byte, the first in the lowest bit."""
    if not flags:
        return b""
    digits = flags[::-1].translate(_BIT_DIGITS)  # the last value is the highest bit
    return int(digits, 2).to_bytes((len(flags) + 7) // 8, "little")


_BIT_DIGITS = bytes.maketrans(b"\x00\x01", b"01")


def _page_header(count: int, size: int) -> bytes:
    data_page = _struct([(1, _T_I32, count), (2, _T_I32, _PLAIN), (3, _T_I32, _RLE), (4, _T_I32, _RLE)])
    return _struct([(1, _T_I32, _DATA_PAGE), (2, _T_I32, size), (3, _T_I32, size), (5, _T_STRUCT, data_page)])


def _file_metadata(columns: dict, chunks: list, num_rows: int) -> bytes:
    schema = [_struct([(4, _T_BINARY, b"schema"), (5, _T_I32, len(chunks))])]
    for name, ptype, *_ in chunks:
        fields = [(1, _T_I32, ptype), (3, _T_I32, _REQUIRED), (4, _T_BINARY, name.encode())]
        if ptype == _BYTE_ARRAY:
            fields.append((6, _T_I32, _UTF8))
        schema.append(_struct(fields))
    column_chunks, total = [], 0
    for name, ptype, count, start, size in chunks:
        meta = _struct([(1, _T_I32, ptype), (2, _T_LIST, (_T_I32, [_PLAIN, _RLE])),
                        (3, _T_LIST, (_T_BINARY, [name.encode()])), (4, _T_I32, _UNCOMPRESSED),
                        (5, _T_I64, count), (6, _T_I64, size), (7, _T_I64, size), (9, _T_I64, start)])
        column_chunks.append(_struct([(2, _T_I64, start), (3, _T_STRUCT, meta)]))
        total += size
    row_group = _struct([(1, _T_LIST, (_T_STRUCT, column_chunks)), (2, _T_I64, total), (3, _T_I64, num_rows)])
    return _struct([(1, _T_I32, 1), (2, _T_LIST, (_T_STRUCT, schema)), (3, _T_I64, num_rows),
                    (4, _T_LIST, (_T_STRUCT, [row_group])), (6, _T_BINARY, b"mpcc")])


# ---- Thrift compact protocol ----------------------------------------------------------


def _struct(fields: list[tuple[int, int, object]]) -> bytes:
    """A struct of (field id, type, value) in increasing id order; a nested struct is
    passed already encoded (its field ids restart at 0, as the protocol has it)."""
    out, last = bytearray(), 0
    for fid, ftype, value in fields:
        delta = fid - last
        out += bytes([(delta << 4) | ftype]) if 0 < delta <= 15 else bytes([ftype]) + _varint(_zigzag(fid))
        out += _value(ftype, value)
        last = fid
    out.append(0)  # STOP
    return bytes(out)


def _value(ftype: int, value) -> bytes:
    if ftype in (_T_I32, _T_I64):
        return _varint(_zigzag(value))
    if ftype == _T_BINARY:
        return _varint(len(value)) + value
    if ftype == _T_STRUCT:
        return value
    if ftype == _T_LIST:
        etype, items = value
        head = bytes([(len(items) << 4) | etype]) if len(items) < 15 else bytes([0xF0 | etype]) + _varint(len(items))
        return head + b"".join(_value(etype, item) for item in items)
    raise ValueError(f"thrift type {ftype} not used here")


def _zigzag(n: int) -> int:
    return (n << 1) ^ (n >> 63)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)
