"""Strict reading of one statistics CSV: every problem names the file, the line and the column.

pandas alone cannot tell a missing field from an empty one (both load as ""), and an empty
field is legal in femu's files (undefined WAF), so rows are split with the csv module and
only the conversion to numbers is vectorised. A file that can hold no such problem (checked
first, see _plain_numbers) is read by pandas' C parser instead: lpn_access_count.csv has a
row per logical page, and the csv module took half a second for one of a 1 GiB device.
"""
import collections
import csv
import io
import itertools
import pathlib
import re

import numpy as np
import pandas as pd

from .errors import AnalysisError


def read_csv_strict(path, required, text_columns=(), time_column=None):
    """Read ``path`` into a DataFrame with numeric columns (NaN for empty fields).

    ``required``: columns the header must hold (others are kept too); ``text_columns`` stay
    strings; ``time_column`` may not be empty and may hold wall-clock timestamps instead of
    numbers (older FEMU builds): then it is returned as datetime64 for the caller to convert.
    An empty file gives an empty frame with the required columns.
    """
    path = pathlib.Path(path)
    plain = _plain_numbers(path, required, text_columns, time_column)
    if plain is not None:
        return plain
    return _read_checked(path, required, text_columns, time_column)


def _read_checked(path, required, text_columns, time_column):
    """read_csv_strict row by row: any file, every problem found and named."""
    header, rows = _split_rows(path)
    if header is None:
        return pd.DataFrame({name: pd.Series(dtype=float) for name in required})
    missing = [name for name in required if name not in header]
    if missing:
        raise AnalysisError(f"{path}: line 1: missing column '{missing[0]}' "
                            f"(header is: {','.join(header)})")
    repeated = [name for index, name in enumerate(header) if name in header[:index]]
    if repeated:
        raise AnalysisError(f"{path}: line 1: column '{repeated[0]}' appears twice "
                            f"(header is: {','.join(header)})")
    raw = pd.DataFrame(rows, columns=header) if rows else pd.DataFrame(columns=header)
    frame = pd.DataFrame(index=raw.index)
    for name in header:
        values = raw[name].str.strip()
        if name in text_columns:
            frame[name] = values
        elif name == time_column:
            frame[name] = _time_values(path, name, values)
        else:
            frame[name] = _numbers(path, name, values)
    return frame


# A field of a plain file: empty or a decimal number (no spaces, quotes, inf or nan).
# Unambiguous on purpose (digits after a point only, never two ways to split a run of
# digits): with 30 fields a line, a pattern that could split "12345" several ways
# backtracks exponentially on a malformed last field.
_NUMBER = r"(?:[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)?"


def _plain_numbers(path, required, text_columns, time_column):
    """The frame _read_checked would return, read by pandas' C parser, for a file that the
    checks below prove plain: the header first, then only rows of exactly its field count,
    every field empty or a decimal number, blank lines at most, the time column never empty,
    no text columns. None for any other file, which _read_checked then reads and reports.

    Every such file splits at its commas alone, the way the csv module splits it, and its
    numbers parse as pandas.to_numeric parses them (tests/analysis/test_analysis_loader.py
    compares the two readers)."""
    try:
        with open(path, newline="") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    header_line, _, body = text.partition("\n")
    header = [name.strip() for name in header_line.split(",")]
    if (not header_line.strip() or any(char in text for char in '"\r\0')
            or len(set(header)) != len(header) or set(header) & set(text_columns)
            or any(name not in header for name in required)):
        return None
    if not body.strip():
        return None
    if re.search("[^0-9,\n]", body):   # signs, points, exponents: every field checked
        row = ",".join([_NUMBER] * len(header))
        if not re.fullmatch(f"(?:(?:{row})?\n)*(?:{row})?", body):
            return None
    elif not _one_field_count(body.split("\n"), len(header)):
        return None   # digits only (lpn_access_count.csv): the commas a line holds suffice
    try:
        frame = pd.read_csv(io.StringIO(body), header=None, names=header, dtype=float)
    except ValueError:
        return None
    if time_column in header and frame[time_column].isna().any():
        return None   # an empty time: _read_checked names its line
    return frame


def _one_field_count(lines, fields):
    """Every line holds `fields` fields or is empty (a blank line)."""
    shapes = collections.Counter(map(str.count, lines, itertools.repeat(",")))
    return set(shapes) <= {0, fields - 1} and (fields == 1 or shapes[0] == lines.count(""))


def _split_rows(path):
    """Header (stripped names) and data rows; the header is None for an empty file."""
    try:
        with open(path, newline="") as handle:
            reader = csv.reader(handle)
            header = None
            rows = []
            for fields in reader:
                if not fields or (len(fields) == 1 and not fields[0].strip()):
                    continue  # blank lines carry nothing; they are skipped, not errors
                if header is None:
                    header = [name.strip() for name in fields]
                    continue
                if len(fields) != len(header):
                    raise AnalysisError(_field_count_error(path, reader.line_num, header,
                                                           fields))
                rows.append(fields)
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise AnalysisError(f"{path}: cannot read: {error}") from None
    return header, rows


def _field_count_error(path, line, header, fields):
    """A short row is reported at its first missing column, a long one at its first extra
    field (numbered from 1, as a spreadsheet would show it)."""
    if len(fields) < len(header):
        missing = header[len(fields)]
        return (f"{path}: line {line}, column '{missing}': missing field "
                f"(expected {len(header)} fields: {','.join(header)}; found {len(fields)})")
    return (f"{path}: line {line}, column {len(header) + 1} (after '{header[-1]}'): "
            f"extra field '{fields[len(header)].strip()}' (expected {len(header)} fields: "
            f"{','.join(header)}; found {len(fields)})")


def _numbers(path, column, values):
    numbers = pd.to_numeric(values.replace("", np.nan), errors="coerce")
    bad = numbers.isna() & (values != "")
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise AnalysisError(f"{path}: line {_line_of_row(path, row)}, column '{column}': "
                            f"'{values.iloc[row]}' is not a number")
    return numbers.astype(float)


def _time_values(path, column, values):
    empty = values == ""
    if empty.any():
        row = int(np.flatnonzero(empty.to_numpy())[0])
        raise AnalysisError(f"{path}: line {_line_of_row(path, row)}, column '{column}': "
                            "empty time")
    numbers = pd.to_numeric(values, errors="coerce")
    if len(values) == 0 or not np.isnan(numbers.iloc[0]):
        return _numbers(path, column, values)
    # The first time is not a number: accept wall-clock timestamps, all of them.
    stamps = pd.to_datetime(values, errors="coerce", format="mixed")
    bad = stamps.isna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise AnalysisError(f"{path}: line {_line_of_row(path, row)}, column '{column}': "
                            f"'{values.iloc[row]}' is neither seconds nor a timestamp")
    return stamps


def _line_of_row(path, row):
    """1-based file line of data row ``row``, counting blank lines the reader skipped."""
    with open(path, newline="") as handle:
        reader = csv.reader(handle)
        seen = -1  # the header is row -1
        for fields in reader:
            if not fields or (len(fields) == 1 and not fields[0].strip()):
                continue
            if seen == row:
                return reader.line_num
            seen += 1
    return row + 2
