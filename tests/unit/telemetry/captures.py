"""The committed captures (tests/fixtures/captures/<flavor>-<version>/, taken by
scripts/capture-responses) and a client that answers the probes with them.

`ReplayClient` is a real ClusterClient whose transport is a capture directory: each request
is answered with what the real cluster answered to that same request (requests.json), and
any other request is a 404, so a probe asking for something the capture lacks fails loudly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shardlab.cluster.client import ClusterClient, ClusterHTTPError

CAPTURES = Path(__file__).parents[2] / "fixtures" / "captures"
SINGLE_NODE = ("opensearch-2.19.1", "opensearch-3.3.2", "elasticsearch-7.10.2")
THREE_NODES = "opensearch-2.19.1-3nodes"
NODE3_STOPPED = "opensearch-2.19.1-3nodes-node3-stopped"


def capture(directory: str, name: str) -> Any:
    return json.loads((CAPTURES / directory / f"{name}.json").read_text())


class ReplayClient(ClusterClient):
    def __init__(self, directory: str) -> None:
        super().__init__(["http://captured.invalid:9200"])
        self.replay(directory)
        self.requested: list[str] = []

    def replay(self, directory: str) -> None:
        """Answer from `directory` from now on (a cluster that changed)."""
        self.answers = {
            path: capture(directory, name) for name, path in capture(directory, "requests").items()
        }

    def request(
        self, method: str, path: str, body: Any = None, timeout_s: float | None = None
    ) -> Any:
        self.requested.append(path)
        if method == "GET" and path in self.answers:
            return self.answers[path]
        raise ClusterHTTPError(method, self.url + path, 404, {"error": "not captured"})
