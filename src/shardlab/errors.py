"""Errors that are part of shardlab's interface.

Anything the user can fix (a bad option, a cluster that does not answer, a missing Java)
is raised as a `UsageError` wherever it is found; only the CLI prints it, as one line with
what to do, and exits with code 2. Everything else is a bug and keeps its traceback.
"""

from __future__ import annotations


class UsageError(Exception):
    """Bad input or an unusable environment: one line for the user, exit code 2."""

    def __init__(self, subject: str, value: object | None, problem: str, hint: str = "") -> None:
        self.subject = subject
        self.value = value
        self.problem = problem
        self.hint = hint
        super().__init__(self.line())

    def line(self) -> str:
        shown = "" if self.value is None else f" {self.value!s}"
        text = f"{self.subject}{shown}: {self.problem}"
        return f"{text} ({self.hint})" if self.hint else text
