"""Print every table of a DuckDB file as JSON (one object: table -> sorted rows as text).

    python .ci/store_tables.py STORE   # run by two DuckDB versions; their outputs must be equal

.ci/lowest-versions runs it with the newest DuckDB and with the lowest one on a store the newest
created, so a value the older DuckDB reads differently (a NULL, a number) fails the step.
"""

from __future__ import annotations

import json
import sys

import duckdb


def main() -> None:
    con = duckdb.connect(sys.argv[1], read_only=True)
    tables = [t for (t,) in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()]
    dump = {
        t: sorted([[repr(v) for v in row] for row in con.execute(f'SELECT * FROM "{t}"').fetchall()])
        for t in tables
    }
    json.dump({"tables": dump}, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
