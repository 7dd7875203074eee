"""Fuzz the ``audit`` command line with hostile CSV files.

Contract: every input ends in a result (exit 0) or in exactly one
``error: ...`` line on stderr with exit code 2; never a traceback.
"""

import os
import random
import tempfile
import time
from pathlib import Path

import matplotlib
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from sklearn_multiplicity._cli import main

#: Examples per property test; ``PROPERTY_EXAMPLES=40`` searches further.
EXAMPLES = int(os.environ.get("PROPERTY_EXAMPLES", "10"))


matplotlib.use("Agg")

LIMITS = ["--time-limit", "2", "--total-time-limit", "5", "--n-models", "5", "-q"]
FAST_LIMITS = ["--time-limit", "1", "--total-time-limit", "3", "--n-models", "5", "-q"]


def check_contract(code, out, err):
    assert "Traceback" not in out
    assert "Traceback" not in err
    assert code in (0, 2), (code, err)
    if code == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1, err
        assert lines[0].startswith("error:"), err


def run(capsys, path, target, out_dir, limits=LIMITS):
    # "--target=NAME": a name starting with "-" would read as an option.
    code = main(
        ["audit", str(path), f"--target={target}", "--out", str(out_dir), *limits]
    )
    out, err = capsys.readouterr()
    return code, out, err


def _rows(n=12, seed=0):
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        a, b = rng.randint(0, 1), rng.randint(0, 1)
        rows.append([a, b, rng.choice(["x", "y"]), int(a or rng.random() < 0.2)])
    return rows


def _table(header, rows, sep=","):
    lines = [sep.join(header)] + [sep.join(str(c) for c in row) for row in rows]
    return ("\n".join(lines) + "\n").encode()


BASE = _table(["a", "b", "c", "y"], _rows())


def _wide():
    rng = random.Random(1)
    header = [f"f{i}" for i in range(10_000)] + ["y"]
    rows = [[rng.randint(0, 1) for _ in range(10_000)] + [i % 2] for i in range(20)]
    return _table(header, rows)


def _embedded_newlines():
    lines = ["a,note,y"]
    for i, row in enumerate(_rows()):
        lines.append(f'{row[0]},"line one\nline, two ""q""{i % 3}",{row[3]}')
    return ("\n".join(lines) + "\n").encode()


CASES = {
    "semicolon": (_table(["a", "b", "c", "y"], _rows(), ";"), "y"),
    "tab": (_table(["a", "b", "c", "y"], _rows(), "\t"), "y"),
    "embedded-newlines": (_embedded_newlines(), "y"),
    "empty-column": (
        _table(["a", "empty", "y"], [[r[0], "", r[3]] for r in _rows()]),
        "y",
    ),
    "all-empty-features": (
        _table(["e1", "e2", "y"], [["", "", r[3]] for r in _rows()]),
        "y",
    ),
    "constant-target": (
        _table(["a", "b", "y"], [[r[0], r[1], 1] for r in _rows()]),
        "y",
    ),
    "three-class-target": (
        _table(["a", "b", "y"], [[r[0], r[1], i % 3] for i, r in enumerate(_rows())]),
        "y",
    ),
    "latin1-bytes": (
        _table(["a", "y"], [[r[0], r[3]] for r in _rows()]).replace(
            b"a,y", b"caf\xe9,y"
        ),
        "y",
    ),
    "latin1-target-name": (
        _table(["a", "y"], [[r[0], r[3]] for r in _rows()]).replace(
            b"a,y", b"a,caf\xe9"
        ),
        "caf\xe9",
    ),
    "random-bytes": (bytes(random.Random(2).randrange(256) for _ in range(600)), "y"),
    "random-bytes-after-header": (
        b"a,y\n" + bytes(random.Random(3).randrange(256) for _ in range(400)),
        "y",
    ),
    "huge-numbers": (
        _table(
            ["big", "a", "y"],
            [[["1e308", "-1e308"][i % 2], r[0], r[3]] for i, r in enumerate(_rows())],
        ),
        "y",
    ),
    "overflow-inf": (
        _table(
            ["big", "a", "y"],
            [[["1e999", "1"][i % 2], r[0], r[3]] for i, r in enumerate(_rows())],
        ),
        "y",
    ),
    "huge-target": (
        _table(["a", "y"], [[r[0], ["1e308", "-1e308"][r[3]]] for r in _rows()]),
        "y",
    ),
    "inf-target": (
        _table(["a", "y"], [[r[0], ["1e999", "-1e999"][r[3]]] for r in _rows()]),
        "y",
    ),
    "single-row": (_table(["a", "b", "y"], [[1, 0, 1]]), "y"),
    "two-rows": (_table(["a", "b", "y"], [[1, 0, 1], [0, 1, 0]]), "y"),
    "header-only": (b"a,b,y\n", "y"),
    "empty-file": (b"", "y"),
    "whitespace-file": (b"\n\n  \n", "y"),
    "wide-10000": (_wide(), "y"),
    "duplicate-columns": (
        _table(["a", "a", "y", "y"], [r[:2] + [r[3], r[3]] for r in _rows()]),
        "y",
    ),
    "duplicate-target-mangled": (
        _table(["a", "y", "y"], [[r[0], r[3], r[3]] for r in _rows()]),
        "y.1",
    ),
    "target-with-spaces": (
        _table(["a", "b", " my target "], [[r[0], r[1], r[3]] for r in _rows()]),
        " my target ",
    ),
    "nan-cells": (
        _table(
            ["a", "b", "y"],
            [
                [["", "nan", "NaN", r[0]][i % 4], r[1], r[3]]
                for i, r in enumerate(_rows())
            ],
        ),
        "y",
    ),
    "nan-in-target": (
        _table(["a", "y"], [[r[0], ["", r[3]][i % 2]] for i, r in enumerate(_rows())]),
        "y",
    ),
    "bom": (b"\xef\xbb\xbf" + BASE, "y"),
    "bom-first-column-target": (b"\xef\xbb\xbfy,a\n1,0\n0,1\n1,1\n0,0\n", "y"),
    "utf16": (BASE.decode().encode("utf-16"), "y"),
    "missing-target": (BASE, "nope"),
    "empty-target-name": (BASE, ""),
    "ragged-rows": (b"a,b,y\n1,0,1\n0,1,0,5,6\n1\n0,0,1\n", "y"),
    "mixed-numeric-text": (
        _table(
            ["a", "y"],
            [[["1", "2", "3", "x"][i % 4], r[3]] for i, r in enumerate(_rows())],
        ),
        "y",
    ),
    "bool-target": (
        _table(["a", "y"], [[r[0], ["False", "True"][r[3]]] for r in _rows()]),
        "y",
    ),
    "nul-bytes": (BASE.replace(b"x", b"\x00"), "y"),
    "unclosed-quote": (b'a,b,y\n1,"0,1\n0,1,0\n', "y"),
    "crlf": (BASE.replace(b"\n", b"\r\n"), "y"),
    "cr-only": (BASE.replace(b"\n", b"\r"), "y"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_csv(name, tmp_path, capsys):
    data, target = CASES[name]
    path = tmp_path / "data.csv"
    path.write_bytes(data)
    start = time.perf_counter()
    code, out, err = run(capsys, path, target, tmp_path / "report")
    assert time.perf_counter() - start < 60
    check_contract(code, out, err)


# ---------------------------------------------------------------- hypothesis
_text = st.text(
    alphabet=st.sampled_from(list("ab ,;|\t\"'\n\r\\é#0123456789.-e")), max_size=6
)
_cell = st.one_of(
    st.integers(-3, 3),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    _text,
    st.just(""),
)
_words = st.sampled_from(["x", "y,z", 'q"uote', "line\nbreak", "caf\u00e9", " sp "])
_SEPS = [",", ";", "\t", "|"]


@st.composite
def csv_inputs(draw):
    if draw(st.integers(0, 5)) == 0:
        data = draw(st.binary(max_size=200))
        return data, draw(st.sampled_from(["y", "a", ""]))
    sep = draw(st.sampled_from(_SEPS))
    n_cols = draw(st.integers(1, 4))
    # "clean" tables (0/1 and tricky-but-valid text cells, a binary "y",
    # correct quoting) let the audit itself run; the others mostly test the
    # data checks.
    clean = draw(st.booleans())
    if clean:
        names = ["a", "b b", 'c,"c"', "d\nd", "caf\u00e9"]
        header = [*names[:n_cols], "y"]
        # Each column all 0/1 or all words (a mix is rejected as broken numbers).
        row = st.tuples(
            *(
                st.integers(0, 1) if draw(st.booleans()) else _words
                for _ in range(n_cols)
            )
        ).map(list)
    else:
        header = draw(
            st.lists(
                st.one_of(st.sampled_from(["a", "b", "y", "x y"]), _text),
                min_size=n_cols,
                max_size=n_cols,
            )
        )
        row = st.lists(_cell, min_size=n_cols, max_size=n_cols)
    rows = draw(
        st.lists(
            row,
            min_size=4 if clean else 0,
            max_size=12,
        )
    )
    if clean:
        labels = draw(st.sampled_from([(0, 1), ("no", "yes"), (-1.5, 2.5)]))
        rows = [[*row, labels[i % 2]] for i, row in enumerate(rows)]

    def show(cell):
        text = str(cell)
        special = any(ch in text for ch in sep + '"\n\r')
        if special and (clean or draw(st.booleans())):
            text = '"' + text.replace('"', '""') + '"'
        return text

    lines = [sep.join(show(c) for c in header)]
    lines += [sep.join(show(c) for c in row) for row in rows]
    text = "\n".join(lines) + draw(st.sampled_from(["", "\n"]))
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "latin-1"]))
    data = text.encode(encoding, errors="replace")
    if clean and draw(st.integers(0, 3)) > 0:
        return data, "y"
    target = draw(
        st.one_of(st.sampled_from([str(h) for h in header]), st.just("missing"))
    )
    return data, target


@pytest.mark.property
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(case=csv_inputs())
def test_generated_csv(case, capsys):
    data, target = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "data.csv"
        path.write_bytes(data)
        code, out, err = run(capsys, path, target, Path(tmp) / "report", FAST_LIMITS)
    event(f"exit code {code}")
    check_contract(code, out, err)
