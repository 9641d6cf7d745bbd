"""`systembase`: the bulk ingestion test of seed 000, appendix "The Bulk Load Data Ingestion
Performance Test" (JMeter + a JUnit sampler against Elasticsearch 1.7.3).

The seed's mapping, translated to today's types: `string` + `not_analyzed` is `keyword`,
`hostip` (a string in 2016) is `ip`, and `appVersion` stays the `integer` the generator
actually sends (0..4). `data1`/`data2` exist only in the `bigbulk` variant (BulkBigInsertTest:
12000 characters each); they are mapped as unindexed keywords without doc values, the
closest to 2016's stored-only strings, so the variant measures moving large documents, not
indexing 12 KB terms. Documents themselves are generated in Rust (crates/engine,
generate/systembase.rs), with the seed's value sets and ranges.

A bulk holds exactly --bulk-docs documents, 1000 by default as the seed's text says; its
Java loop (`for (int i=1; i < itemsPerInsert; i++)`) actually sent 999.
"""

from __future__ import annotations

from shardlab.workloads.base import Workload

_KEYWORD = {"type": "keyword"}
_INTEGER = {"type": "integer"}

SYSTEMBASE = Workload(
    name="systembase",
    default_index="systembase",
    variants=("bulk", "bigbulk"),
    properties={
        "@timestamp": {"type": "date"},
        "name": _KEYWORD,
        "message": _KEYWORD,
        "severityCode": _INTEGER,
        "severity": _KEYWORD,
        "hostname": _KEYWORD,
        "hostip": {"type": "ip"},
        "pid": _INTEGER,
        "tid": _INTEGER,
        "appId": _KEYWORD,
        "appName": _KEYWORD,
        "appVersion": _INTEGER,
        "type": _INTEGER,
        "subtype": _INTEGER,
        "correlationId": _KEYWORD,
        "os": _KEYWORD,
        "osVersion": _KEYWORD,
        "parameters": _KEYWORD,
        "data1": {"type": "keyword", "index": False, "doc_values": False},
        "data2": {"type": "keyword", "index": False, "doc_values": False},
    },
    summary="log events in 1000-doc bulks (seed 000 appendix); bigbulk adds two 12000-char fields",
)
