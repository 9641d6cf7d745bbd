from shardlab.benchmark import check_index
from shardlab.cluster.client import ClusterClient


def test_an_index_that_cannot_be_counted_is_a_warning_not_a_failure():
    # nothing listens on port 1: the run's measurements stand, the cross-check is missing
    check, problems = check_index(ClusterClient(["http://127.0.0.1:1"], timeout_s=2), "x", 5)
    assert check is None
    assert len(problems) == 1 and problems[0].startswith("the index could not be counted")
