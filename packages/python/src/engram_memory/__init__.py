"""Engram for Python: the memory-policy WebAssembly component, run in
``wasmtime``, with its store on SQLite.

    from engram_memory import Engram, SqliteStore

    with Engram(principal="acme", store=SqliteStore("memory.db")) as engram:
        engram.remember({"text": "payment-service uses PostgreSQL", "scope": {"tenant": "acme"},
                         "source": {"kind": "system", "ref": "cmdb-42"}})
        print(engram.recall({"query": "which database does payment-service use?", "scope": {"tenant": "acme"}}))
"""

from . import contract  # the JSON contract's typed dicts (generated)
from .errors import EngramError, EngramTrap, StoreError
from .host import COMPONENT, Engram
from .store import SqliteStore

__version__ = "0.1.0"

__all__ = ["COMPONENT", "contract", "Engram", "EngramError", "EngramTrap", "SqliteStore", "StoreError"]
