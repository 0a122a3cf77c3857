"""Hypothesis strategies for hostile qrtune inputs: project and scenario files, ``--set`` values, arguments.

Every strategy starts from something real (each sample project, each published scenario,
each knob of the registry) and breaks it the ways issue 17 found: wrong types, missing and
extra fields, values out of range, NaN / Infinity / 1e308, huge strings and integers, lone
surrogates, deep nesting, meshes of links, truncated or binary bytes.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from hypothesis import strategies as st

from engine.registry import KINDS

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "sample_runs").glob("*.json"))
SAMPLE_DOCS = [json.loads(p.read_text()) for p in SAMPLES]
#: Every older format's example (format versions 1 and 2), fuzzed as well as the current samples.
OLD_FORMAT_DOCS = [
    json.loads(p.read_text()) for p in sorted((ROOT / "tests" / "data" / "projects").glob("v[12]-*.json"))
]
PROJECT_DOCS = SAMPLE_DOCS + OLD_FORMAT_DOCS
SCENARIO_DOC = json.loads((ROOT / "assets" / "validation" / "calibration.json").read_text())
KNOBS = sorted({(kind.id, p.name) for kind in KINDS.values() for p in kind.params})

#: Values that broke something once: special floats, huge and negative numbers, odd types and text.
HOSTILE_SCALARS = st.sampled_from(
    [
        float("nan"),
        float("inf"),
        float("-inf"),
        1e308,
        -1e308,
        1e-320,
        5e-324,
        0,
        -1,
        -0.0,
        2**63,
        2**64 + 1,
        10**30,
        True,
        False,
        None,
        "",
        " ",
        "0",
        "nan",
        "1,2,3",
        "1e999",
        "\ud800",
        "\x00",
        "=cmd|'/C calc'!A0",
        "x" * 5000,
        [],
        {},
        [1, 2],
        {"a": 1},
        0.5,
        3.7,
        255,
        256,
        1_000_000_000,
    ]
)
SCALARS = st.one_of(
    HOSTILE_SCALARS,
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.booleans(),
    st.none(),
)


#: Marks a value to be written inside that many levels of arrays (see :func:`_encode`).
NEST = "\x00nest"


def _paths(doc, prefix=()) -> list[tuple]:
    """Every path (tuple of keys and indexes) into a JSON document, the root excluded."""
    out = []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for key, value in items:
        out.append(prefix + (key,))
        if not (isinstance(value, dict) and NEST in value):  # a nesting marker is edited whole or not at all
            out.extend(_paths(value, prefix + (key,)))
    return out


def _parent(doc, path):
    for key in path[:-1]:
        doc = doc[key]
    return doc


@st.composite
def mutated(draw, base, max_mutations: int = 4):
    """A deep copy of ``base`` with a few random edits: replace, delete, add a field, nest deeply."""
    doc = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, max_mutations))):
        paths = _paths(doc)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = _parent(doc, path)
        action = draw(
            st.sampled_from(["replace", "replace", "replace", "delete", "extra", "nest", "long-key"])
        )
        if action == "replace":
            parent[path[-1]] = copy.deepcopy(draw(SCALARS))
        elif action == "delete":
            del parent[path[-1]]
        elif action == "extra" and isinstance(parent, dict):
            parent[draw(st.text(max_size=12))] = copy.deepcopy(draw(SCALARS))
        elif action == "nest":  # written as text by _encode: json.dumps itself cannot nest 5000 deep
            parent[path[-1]] = {
                NEST: draw(st.sampled_from([2, 50, 500, 5000, 100_000])),
                "value": parent[path[-1]],
            }
        elif action == "long-key" and isinstance(parent, dict):
            parent["k" * draw(st.sampled_from([300, 100_000]))] = 1
    return doc


@st.composite
def at_bounds(draw, base):
    """``base`` with a few knobs set to their minimum, maximum or a value between: valid, often extreme."""
    doc = copy.deepcopy(base)
    nodes = [n for n in doc.get("nodes", []) if n.get("kind") in KINDS]
    for _ in range(draw(st.integers(1, 6)) if nodes else 0):
        node = draw(st.sampled_from(nodes))
        specs = [
            p for p in KINDS[node["kind"]].params if p.type in ("int", "float") and p.maximum is not None
        ]
        if not specs:
            continue
        spec = draw(st.sampled_from(specs))
        lo, hi = spec.minimum if spec.minimum is not None else 0, spec.maximum
        value = draw(
            st.one_of(
                st.sampled_from([lo, hi]),
                st.floats(lo, hi) if spec.type == "float" else st.integers(int(lo), int(hi)),
            )
        )
        node.setdefault("params", {})[spec.name] = value
    return doc


@st.composite
def meshed(draw, base):
    """``base`` with many extra links between random nodes (allowed or not), or many copies of nodes."""
    doc = copy.deepcopy(base)
    nodes = doc.get("nodes") or []
    if not nodes:
        return doc
    if draw(st.booleans()):
        copies = draw(st.integers(1, 6))
        doc["nodes"] = nodes + [dict(n, id=f"{n.get('id', 'n')}-c{k}") for k in range(copies) for n in nodes]
    ids = [n.get("id") for n in doc["nodes"] if isinstance(n, dict)]
    pairs = draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)), max_size=300))
    doc["links"] = list(doc.get("links") or []) + [
        {"id": f"fz-{i}", "source": a, "target": b} for i, (a, b) in enumerate(pairs)
    ]
    return doc


def _encode(doc) -> str:
    """JSON text of ``doc`` (NaN and Infinity as JavaScript writes them), nesting markers expanded."""
    nests: list[tuple[str, int, object]] = []

    def swap(value):
        if isinstance(value, dict) and NEST in value:
            token = f"@@nest{len(nests)}@@"
            depth = value[NEST]
            nests.append(
                (token, depth if isinstance(depth, int) and 0 <= depth <= 100_000 else 2, value.get("value"))
            )
            return token
        if isinstance(value, dict):
            return {k: swap(v) for k, v in value.items()}
        if isinstance(value, list):
            return [swap(v) for v in value]
        return value

    text = json.dumps(swap(doc), allow_nan=True)  # ensure_ascii: lone surrogates written as \ud800
    for token, depth, value in nests:
        text = text.replace(f'"{token}"', "[" * depth + json.dumps(swap(value), allow_nan=True) + "]" * depth)
    return text


@st.composite
def file_bytes(draw, docs):
    """The bytes of a file built from ``docs``: valid JSON, truncated, corrupted, binary or empty."""
    text = _encode(draw(docs))
    form = draw(st.sampled_from(["json"] * 6 + ["truncated", "corrupt", "binary", "empty", "bom"]))
    data = text.encode("utf-8")
    if form == "truncated":
        return data[: draw(st.integers(0, max(0, len(data) - 1)))]
    if form == "corrupt" and data:
        at = draw(st.integers(0, len(data) - 1))
        return data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at + 1 :]
    if form == "binary":
        return draw(st.binary(max_size=2000))
    if form == "empty":
        return b""
    if form == "bom":
        return b"\xef\xbb\xbf" + data
    return data


def project_files():
    """Bytes of project files: mutations and meshes of every sample and of every older format's example."""
    base = st.sampled_from(PROJECT_DOCS)
    docs = st.one_of(
        base.flatmap(mutated),
        base.flatmap(meshed),
        base.flatmap(meshed).flatmap(mutated),
        base.flatmap(at_bounds),
        base.flatmap(at_bounds).flatmap(lambda d: mutated(d, 1)),
    )
    return file_bytes(docs)


def scenario_files():
    """Bytes of ``qrtune-scenarios/1`` files: one to three published scenarios, mutated."""
    scenarios = st.lists(st.sampled_from(SCENARIO_DOC["scenarios"]), min_size=1, max_size=3)
    docs = scenarios.map(lambda s: {"format": "qrtune-scenarios/1", "scenarios": copy.deepcopy(s)})
    return file_bytes(docs.flatmap(lambda d: mutated(d, max_mutations=3)))


def _value_text():
    return st.one_of(
        st.sampled_from(
            [
                "nan",
                "NaN",
                "inf",
                "-inf",
                "1e308",
                "1e-320",
                "-1",
                "0",
                "1,2,3",
                "1..8",
                "1..8:0",
                "8..1",
                "1..99999999999999999999",
                "9" * 5000,
                "",
                "true",
                "null",
                "4.5",
                "0x10",
                "1_000",
                "\u0661",
                "1e999",
                " 3 ",
                "=1+1",
                "x" * 10_000,
            ]
        ),
        st.integers(-(2**66), 2**66).map(str),
        st.floats().map(repr),
        st.text(max_size=20),
    )


def _in_range_set():
    """``KIND.PARAM=VALUE`` of a numeric knob at or between its bounds (valid, often extreme)."""
    specs = [
        (kind.id, p)
        for kind in KINDS.values()
        for p in kind.params
        if p.type in ("int", "float") and p.maximum is not None
    ]

    def value(spec) -> st.SearchStrategy:
        lo = spec.minimum if spec.minimum is not None else 0
        inner = (
            st.floats(lo, spec.maximum) if spec.type == "float" else st.integers(int(lo), int(spec.maximum))
        )
        return st.one_of(st.sampled_from([lo, spec.maximum]), inner).map(str)

    return st.sampled_from(specs).flatmap(lambda ks: value(ks[1]).map(lambda v: f"{ks[0]}.{ks[1].name}={v}"))


def set_values():
    """``--set TARGET.PARAM=VALUE`` texts: real knobs (and invented ones) with hostile or extreme values."""
    return st.one_of(_hostile_set(), _in_range_set())


def _hostile_set():
    target_param = st.one_of(
        st.sampled_from(KNOBS).map(lambda kp: f"{kp[0]}.{kp[1]}"),
        st.tuples(st.text(max_size=15), st.text(max_size=15)).map(lambda t: f"{t[0]}.{t[1]}"),
        st.text(max_size=30),
    )
    return st.tuples(target_param, st.sampled_from(["=", "=", "=", "", "=="]), _value_text()).map("".join)


SAMPLE_PATHS = [str(p) for p in SAMPLES]
#: Options of each command a fuzzed argument list draws from; ``None`` marks a flag.
OPTIONS = {
    "validate": {},
    "predict": {"--set": set_values(), "--json": None, "--fitted": None, "--wait": _value_text()},
    "sweep": {
        "--set": set_values(),
        "--workers": _value_text(),
        "--batch-size": _value_text(),
        "--scheduler": st.sampled_from(["notaurl", "tcp://", "tcp://256.1.1.1:99999", "x" * 300]),
        "--json": None,
        "--yes": None,
        "--wait": _value_text(),
    },
    "runs": {
        "--limit": _value_text(),
        "--sweep": _value_text(),
        "--kind": st.text(max_size=10),
        "--metrics": st.text(max_size=30),
        "--json": None,
        "--sweeps": None,
        "--wait": _value_text(),
    },
    "compare": {"--format": st.sampled_from(["table", "json", "csv", "xml"])},
    "advise": {
        "--goal": st.one_of(
            st.text(max_size=40),
            st.sampled_from(
                [
                    "max nosuch over qapply.num_apply_agents=1..4",
                    "min apply_latency_ms over qapply.num_apply_agents=1,2",
                    "fewest-agents:nan",
                    "outage-pool:-5",
                    "max apply_rows_per_s subject to nosuch<1 over x.y=1",
                ]
            ),
        ),
        "--outage-min": _value_text(),
        "--min-gain": _value_text(),
        "--json": None,
    },
    "mq-calc": {},
    "evaluate": {},
}


@st.composite
def argument_lists(draw, db: str):
    """A command line: a command, its positional arguments and a few options with hostile values."""
    command = draw(st.sampled_from(sorted(OPTIONS)))
    argv = [command]
    if command in ("validate", "predict", "sweep", "advise", "evaluate"):
        argv.append(
            draw(st.one_of(st.sampled_from(SAMPLE_PATHS), st.sampled_from(["/dev/null", "/", "-", ""])))
        )
    elif command == "compare":
        argv += draw(st.lists(_value_text(), min_size=1, max_size=3))
    elif command == "mq-calc":
        argv += draw(
            st.lists(
                st.one_of(
                    st.sampled_from(
                        [
                            "--log-growth-pct",
                            "1e-14",
                            "--message-kb",
                            "nan",
                            "--compressibility",
                            "1.5",
                            "--log-tb-per-year",
                            "-1",
                        ]
                    ),
                    _value_text(),
                ),
                max_size=5,
            )
        )
    options = OPTIONS[command]
    for name in draw(st.lists(st.sampled_from(sorted(options)), max_size=3)) if options else []:
        argv.append(name)
        if options[name] is not None:
            argv.append(draw(options[name]))
    if command in ("predict", "sweep", "runs", "compare") and "--db" not in argv:
        argv += ["--db", db]
    if command in ("advise",):
        argv.append("--no-store")
    if command == "sweep":
        argv.append("--no-progress")
        if "--workers" not in argv:
            argv += ["--workers", "0"]  # in this process: a pool per example would dominate the run time
    return argv
