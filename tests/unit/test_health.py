from shardlab.cluster.health import readiness

SETTLED = {"initializing_shards": 0, "relocating_shards": 0, "delayed_unassigned_shards": 0}


def health(status, nodes=1, data_nodes=1, **counts):
    return {
        "status": status,
        "number_of_nodes": nodes,
        "number_of_data_nodes": data_nodes,
        **SETTLED,
        **counts,
    }


def test_green_with_every_node_is_ready():
    assert readiness(health("green", nodes=3, data_nodes=3), [], 3).ready


def test_not_ready_until_every_node_joined():
    result = readiness(health("green", nodes=2, data_nodes=2), [], 3)
    assert not result.ready and result.line == "cluster green, 2/3 node(s) joined"


def test_one_node_with_a_replica_that_cannot_be_allocated_is_ready():
    # the seed's 5 shards / 1 replica left in a one-node lab: yellow for ever
    indices = [{"index": "systembase", "health": "yellow", "rep": "1"}]
    result = readiness(health("yellow", unassigned_shards=5), indices, 1)
    assert result.ready
    assert result.line == "yellow: systembase ask for more replicas than 1 data node(s) can hold"


def test_yellow_while_replicas_could_still_be_allocated_is_not_ready():
    indices = [{"index": "systembase", "health": "yellow", "rep": "1"}]
    result = readiness(health("yellow", nodes=2, data_nodes=2), indices, 2)
    assert not result.ready and "waiting for replicas of systembase" in result.line


def test_yellow_while_shards_initialize_is_not_ready():
    indices = [{"index": "systembase", "health": "yellow", "rep": "1"}]
    assert not readiness(health("yellow", initializing_shards=2), indices, 1).ready


def test_red_is_never_ready():
    assert not readiness(health("red"), [], 1).ready


def test_another_cluster_on_the_labs_port_is_not_the_lab_being_ready():
    # a node of lab "default" could not bind 9200: lab "cap" answers there, green
    theirs = health("green", nodes=3, data_nodes=3) | {"cluster_name": "shardlab-cap"}
    verdict = readiness(theirs, [], nodes=1, cluster_name="shardlab-default")
    assert not verdict.ready
    assert verdict.line == "another cluster (shardlab-cap) answers on the lab's port"
    ours = theirs | {"cluster_name": "shardlab-default"}
    assert readiness(ours, [], nodes=3, cluster_name="shardlab-default").ready
