"""Weights live outside the IR text: a numpy array per key in the `tgr` resource table.

MLIR keeps large constants as `dense_resource` blobs printed once in the
`{-# dialect_resources #-}` trailer; we do the same under the `tgr` dialect. The
table holds raw little-endian bytes (or the numpy array they came from); the element
type and shape come from the handle attribute, so one helper (`weight_array`) can
turn either a resource handle or an inline `dense<...>` into numpy.

Keys are unique per process: creating a weight with a taken name adds a suffix, and
parsing a text whose key is already filled maps it to a fresh key until the
trailer supplies its bytes. xDSL's builtin table renames such keys without
remembering the mapping, which is why we keep our own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface

_KEY_CHARS = re.compile(r"[^A-Za-z0-9_.]")
_BLOB_ALIGNMENT = 16


def sanitize_key(name: str) -> str:
    """ONNX names (`onnx::Conv_12`, `/stem/conv`) as MLIR bare identifiers."""
    key = _KEY_CHARS.sub("_", name).strip("_.") or "w"
    return key if not key[0].isdigit() else "w" + key


class WeightResources(OpAsmDialectInterface):
    """The `tgr` dialect's resource table (key -> bytes or numpy array)."""

    def __init__(self) -> None:
        super().__init__()
        self._data: dict[str, np.ndarray | bytes | None] = {}
        self._pending: dict[str, str] = {}
        self.elide = False
        """When set, the printer omits the blobs: handles only, for reading large IR."""

    # -- creation from code ------------------------------------------------
    def add(self, name: str, array: np.ndarray) -> str:
        """Store `array` under a fresh key derived from `name`; returns the key."""
        key = base = sanitize_key(name)
        counter = 0
        while key in self._data or key in self._pending.values():
            counter += 1
            key = f"{base}_{counter}"
        self._data[key] = np.asarray(array).astype(array.dtype.newbyteorder("<"), order="C", copy=False)
        return key

    def get(self, key: str) -> np.ndarray | bytes | None:
        return self._data.get(key)

    # -- OpAsmDialectInterface ---------------------------------------------
    def declare_resource(self, key: str) -> str:
        """Called by the parser for each handle; a filled key gets a fresh alias."""
        if key in self._pending:
            return self._pending[key]
        fresh = key
        counter = 0
        while self._data.get(fresh) is not None:
            counter += 1
            fresh = f"{key}_{counter}"
        self._data.setdefault(fresh, None)
        self._pending[key] = fresh
        return fresh

    def parse_resource(self, key: str, val: str) -> None:
        if not val.startswith("0x"):
            raise ValueError(f"resource '{key}' must be a hex blob, got '{val[:16]}...'")
        # xDSL hands us either the key as written or the alias declare_resource returned.
        text_key = next((k for k, v in self._pending.items() if key in (k, v)), None)
        if text_key is None:
            raise KeyError(f"resource '{key}' is not referenced by any weight")
        try:
            raw = bytes.fromhex(val[2:])
        except ValueError:
            raise ValueError(f"resource '{key}' is not a valid hex blob") from None
        self._data[self._pending.pop(text_key)] = raw[4:]  # 4 leading bytes: alignment

    def lookup(self, key: str) -> str | None:
        blob = self._data.get(key)
        return None if blob is None else _hex_blob(blob)

    def build_resources(self, keys: Iterable[str]) -> dict[str, str]:
        if self.elide:
            return {}
        return {k: _hex_blob(b) for k in keys if (b := self._data.get(k)) is not None}


def _hex_blob(blob: np.ndarray | bytes) -> str:
    raw = blob.tobytes() if isinstance(blob, np.ndarray) else blob
    return "0x" + _BLOB_ALIGNMENT.to_bytes(4, "little").hex() + raw.hex()
