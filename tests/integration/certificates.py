"""Self-signed certificates for the https tests, made with the openssl command line tool."""

from __future__ import annotations

import subprocess
from pathlib import Path


def self_signed_cert(directory: Path, leaf: bool = False) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost, and its key. Not `leaf`: marked CA:TRUE,
    openssl's default (webpki alone refuses those as a server's certificate)."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    extra = ["-addext", "basicConstraints=critical,CA:FALSE"] if leaf else []
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
            *extra,
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key
