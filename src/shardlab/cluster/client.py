"""A small JSON-over-HTTP client for the cluster's admin API (not the load path).

Index creation, counts, health and version checks are a handful of calls per run, so the
standard library is enough; the load itself goes through the native engine.
"""

from __future__ import annotations

import base64
import json
import ssl
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shardlab.errors import UsageError
from shardlab.plan import Target


class ClusterHTTPError(Exception):
    """The cluster answered with a non-2xx status."""

    def __init__(self, method: str, url: str, status: int, body: Any) -> None:
        self.method = method
        self.url = url
        self.status = status
        self.body = body
        super().__init__(f"{method} {url} -> HTTP {status}: {_reason(body)}")

    def reason(self) -> str:
        return _reason(self.body)


def _reason(body: Any) -> str:
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        error = body["error"]
        return f"{error.get('type', '?')}: {error.get('reason', '')}"
    return str(body)[:300]


@dataclass(frozen=True)
class Auth:
    user: str
    password: str

    def header(self) -> str:
        token = base64.b64encode(f"{self.user}:{self.password}".encode()).decode()
        return f"Basic {token}"


class ClusterClient:
    """Talks to one of `urls` (every node of a cluster answers admin calls): the first, until
    it stops answering; then the next that answers, which it keeps using."""

    def __init__(
        self,
        urls: list[str],
        auth: Auth | None = None,
        timeout_s: float = 30.0,
        verify_tls: bool = True,
        ca_file: Path | None = None,
    ) -> None:
        if not urls:
            raise UsageError("--target", "", "needs at least one URL")
        self.urls = [url.rstrip("/") for url in urls]
        self._current = 0  # the URL that answered last
        self.auth = auth
        self.timeout_s = timeout_s
        if not verify_tls:
            self._ssl: ssl.SSLContext | None = ssl._create_unverified_context()
        elif ca_file is not None:
            self._ssl = ssl.create_default_context()
            try:
                self._ssl.load_verify_locations(cafile=str(ca_file))
            except (OSError, ssl.SSLError) as error:
                raise UsageError("--ca-cert", ca_file, f"cannot be loaded ({error})") from None
        else:
            self._ssl = None  # urllib's default: the system's CAs

    @classmethod
    def for_target(cls, target: Target) -> ClusterClient:
        auth = Auth(target.user, target.password or "") if target.user else None
        return cls(list(target.urls), auth, verify_tls=target.verify_tls, ca_file=target.ca_file)

    @property
    def url(self) -> str:
        return self.urls[self._current]

    def request(
        self, method: str, path: str, body: Any = None, timeout_s: float | None = None
    ) -> Any:
        """Send one request; return the decoded JSON body (None for HEAD).

        A node that does not answer (refused, reset, timed out) is passed over for the next
        URL. Raises ClusterHTTPError on a non-2xx answer and UsageError when no node answers.
        """
        for attempt in range(len(self.urls)):
            try:
                return self._request_one(method, path, body, timeout_s)
            except _NoAnswer as no_answer:
                if attempt == len(self.urls) - 1:
                    raise no_answer.error from None
                self._current = (self._current + 1) % len(self.urls)
        raise AssertionError("unreachable")  # the loop returns or raises

    def _request_one(self, method: str, path: str, body: Any, timeout_s: float | None) -> Any:
        url = self.url + path
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.auth is not None:
            request.add_header("Authorization", self.auth.header())
        try:
            with urllib.request.urlopen(
                request, timeout=timeout_s or self.timeout_s, context=self._ssl
            ) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            raw = error.read()
            raise ClusterHTTPError(method, url, error.code, _decode(raw)) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            if isinstance(reason, ssl.SSLCertVerificationError):
                raise UsageError(
                    "--target",
                    self.url,
                    f"presented a certificate that is not trusted ({reason.verify_message})",
                    "give its CA with --ca-cert FILE, or --insecure for a lab's own certificate",
                ) from None
            raise _NoAnswer(
                UsageError(
                    "--target",
                    self.url,
                    f"no answer from the cluster ({reason})",
                    "check the URL, or leave out --target to use a local cluster",
                )
            ) from None
        return None if method == "HEAD" else _decode(raw)

    def get(self, path: str, timeout_s: float | None = None) -> Any:
        return self.request("GET", path, timeout_s=timeout_s)

    def put(self, path: str, body: Any = None) -> Any:
        return self.request("PUT", path, body)

    def post(self, path: str, body: Any = None) -> Any:
        return self.request("POST", path, body)

    def delete(self, path: str) -> Any:
        return self.request("DELETE", path)

    def exists(self, path: str) -> bool:
        try:
            self.request("HEAD", path)
        except ClusterHTTPError as error:
            if error.status == 404:
                return False
            raise
        return True


class _NoAnswer(Exception):
    """This node did not answer; another may."""

    def __init__(self, error: UsageError) -> None:
        super().__init__(str(error))
        self.error = error


def _decode(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode(errors="replace")
