#!/usr/bin/env python3
"""Spark over a dataset `btlens export --dataset DIR` wrote (docs/index.md).

  dataset-spark.py DIR "SQL"          run SQL over the tables, print the rows as CSV
  dataset-spark.py DIR --compare DB   check that every table equals the store `btlens index --db DB` made

Each table is read with spark.read.json and the column types of DIR/schema.json, and registered as
a view of its name. DIR may be any path Spark reads (hdfs://, s3a://) when schema.json is copied
beside the script's working folder or given as a local path. Needs pyspark (and Java).
"""
import csv
import json
import sqlite3
import sys

TYPES = {"INTEGER": "BIGINT", "REAL": "DOUBLE", "TEXT": "STRING"}


def session(folder):
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("btlens-dataset").master("local[*]").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    with open(f"{folder}/schema.json") as f:
        schema = json.load(f)
    for table, columns in schema.items():
        ddl = ", ".join(f"`{c['name']}` {TYPES[c['type']]}" for c in columns)
        spark.read.schema(ddl).json(f"{folder}/{table}/*.jsonl").createOrReplaceTempView(table)
    return spark, schema


def key(row):
    return tuple((0, 0, "") if v is None else (1, v, "") if isinstance(v, (int, float)) else (2, 0, v) for v in row)


def compare(folder, db):
    spark, schema = session(folder)
    store = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    same = True
    for table, columns in schema.items():
        names = [c["name"] for c in columns]
        quoted = ", ".join('"' + n + '"' for n in names)
        a = sorted((tuple(r) for r in spark.sql(f"SELECT {', '.join(f'`{n}`' for n in names)} FROM {table}").collect()), key=key)
        b = sorted((tuple(r) for r in store.execute(f"SELECT {quoted} FROM {table}")), key=key)
        print(f"{table}: {len(a)} rows in the dataset, {len(b)} in the store, {'equal' if a == b else 'DIFFERENT'}")
        same = same and a == b
    spark.stop()
    return 0 if same else 1


def main(argv):
    if len(argv) == 4 and argv[2] == "--compare":
        return compare(argv[1], argv[3])
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    spark, _ = session(argv[1])
    result = spark.sql(argv[2])
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(result.columns)
    out.writerows(tuple(r) for r in result.collect())
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
