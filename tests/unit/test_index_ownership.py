from shardlab.workloads.index import owned_by_shardlab


def mapping(meta):
    return {"mappings": {"_meta": meta, "properties": {}}} if meta is not None else {"mappings": {}}


def test_only_marked_indexes_are_ours():
    assert owned_by_shardlab({"systembase": mapping({"created_by": "shardlab"})}, "systembase")
    assert not owned_by_shardlab({"systembase": mapping(None)}, "systembase")
    assert not owned_by_shardlab({"systembase": mapping({"created_by": "someone"})}, "systembase")


def test_an_alias_over_other_indexes_is_not_ours():
    # GET /systembase/_mapping through an alias answers with the concrete indexes' names
    response = {"logs-2016": mapping({"created_by": "shardlab"})}
    assert not owned_by_shardlab(response, "systembase")
    assert not owned_by_shardlab({}, "systembase")
