#!/usr/bin/env python3
"""DuckDB over a dataset `btlens export --dataset DIR` wrote (docs/index.md).

  dataset-duckdb.py DIR "SQL"          run SQL over the tables, print the rows as CSV
  dataset-duckdb.py DIR --compare DB   check that every table equals the store `btlens index --db DB` made

Each table is a view over DIR/TABLE/*.jsonl with the column types of DIR/schema.json, so an empty
file or a column that is null in every row still has its type. Needs the duckdb package (pip).
"""
import csv
import json
import sqlite3
import sys

TYPES = {"INTEGER": "BIGINT", "REAL": "DOUBLE", "TEXT": "VARCHAR"}


def connect(folder):
    import duckdb

    con = duckdb.connect()
    with open(f"{folder}/schema.json") as f:
        schema = json.load(f)
    for table, columns in schema.items():
        types = ", ".join(f"'{c['name']}': '{TYPES[c['type']]}'" for c in columns)
        con.execute(
            f"CREATE VIEW {table} AS SELECT * FROM read_json('{folder}/{table}/*.jsonl', "
            f"format = 'newline_delimited', columns = {{{types}}})"
        )
    return con, schema


def key(row):
    """Orders rows with nulls, numbers and text in them alike in both databases."""
    return tuple((0, 0, "") if v is None else (1, v, "") if isinstance(v, (int, float)) else (2, 0, v) for v in row)


def rows(cursor, sql):
    return sorted((tuple(r) for r in cursor.execute(sql).fetchall()), key=key)


def compare(folder, db):
    con, schema = connect(folder)
    store = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    same = True
    for table, columns in schema.items():
        names = ", ".join(f"\"{c['name']}\"" for c in columns)
        a = rows(con, f"SELECT {names} FROM {table}")
        b = rows(store, f"SELECT {names} FROM {table}")
        print(f"{table}: {len(a)} rows in the dataset, {len(b)} in the store, {'equal' if a == b else 'DIFFERENT'}")
        same = same and a == b
    return 0 if same else 1


def main(argv):
    if len(argv) == 4 and argv[2] == "--compare":
        return compare(argv[1], argv[3])
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    con, _ = connect(argv[1])
    result = con.execute(argv[2])
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow([d[0] for d in result.description])
    out.writerows(result.fetchall())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
