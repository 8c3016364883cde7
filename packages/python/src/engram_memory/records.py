"""WIT values as the ``wasmtime`` package represents them: ``Record``
objects whose attributes carry the WIT field names (``epoch-ms``). The
store and the host build and read records of the store interface with
these; JSON never passes through here (the component's contract reads and
prints it).
"""

from __future__ import annotations

from typing import Any

from wasmtime.component import Record


def rec(**fields: Any) -> Record:
    """A WIT record; ``snake_case`` keyword names become WIT ``kebab-case``."""
    r = Record()
    for name, value in fields.items():
        setattr(r, name.replace("_", "-"), value)
    return r


def field(r: Any, name: str) -> Any:
    """A WIT record's field by its ``snake_case`` name."""
    return getattr(r, name.replace("_", "-"))
