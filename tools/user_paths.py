"""Files named on the command line: each failure to read or write one is one `error:` line.

`tigris compile -o`, `tigris run --output` and the plan argument of `run` and `inspect`
go through here, so a missing directory, a directory, a path under a file, a full
device or an empty name becomes a `UserPathError` naming the path and saying what to do
(never a traceback). Outputs are written exactly where the user said (no suffix added),
and a partly written new file is removed.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import TYPE_CHECKING

from tigris.emit.tgrs.errors import TgrsFormatError

if TYPE_CHECKING:
    from tigris.emit.tgrs.model import PlanFile

_ADVICE = {
    errno.ENOENT: "no such directory; create it first or choose another path",
    errno.ENOTDIR: "a part of the path is a file, not a directory; choose another path",
    errno.EISDIR: "it is a directory; name a file in it",
    errno.EACCES: "permission denied; choose a path you can write",
    errno.EPERM: "permission denied; choose a path you can write",
    errno.EROFS: "the file system is read-only; choose another path",
    errno.ENOSPC: "no space left on the device; free some space or choose another path",
    errno.EDQUOT: "disk quota exceeded; free some space or choose another path",
}


class UserPathError(ValueError):
    """A file the user named cannot be read or written; the message is the whole line."""


def _why(e: OSError) -> str:
    return _ADVICE.get(e.errno or 0, f"{(e.strerror or str(e)).lower()}; choose another path")


def cannot_write(path: str, flag: str, e: OSError) -> UserPathError:
    """The error line for an output that could not be written (`e` says why)."""
    return UserPathError(f"cannot write {flag} '{path}': {_why(e)}")


def check_output(path: str, flag: str) -> None:
    """Refuse, before any work, an output path that cannot be a new or existing file:
    empty, a directory, or in a directory that does not exist or is a file."""
    if path == "":
        raise UserPathError(f"{flag}: the path is empty; name the file to write")
    target = Path(path)
    if target.is_dir():
        raise UserPathError(f"cannot write {flag} '{path}': {_ADVICE[errno.EISDIR]}")
    parent = target.parent
    if not parent.exists():
        below_a_file = any(p.exists() and not p.is_dir() for p in parent.parents)
        why = _ADVICE[errno.ENOTDIR] if below_a_file else _ADVICE[errno.ENOENT]
        raise UserPathError(f"cannot write {flag} '{path}': {why}")
    if not parent.is_dir():
        raise UserPathError(f"cannot write {flag} '{path}': {_ADVICE[errno.ENOTDIR]}")


def write_output(path: str, data: bytes, flag: str) -> None:
    """Write `data` to `path` (as given: nothing appended). On failure a file this call
    created is removed, and the error names the path and what to do."""
    check_output(path, flag)
    existed = os.path.lexists(path)
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        if not existed and os.path.isfile(path):
            os.unlink(path)
        raise cannot_write(path, flag, e) from None


def read_plan_path(path: str) -> tuple[bytes, PlanFile]:
    """The bytes of a `.tgrs` file, read no further than the format's size limit
    (`tigris.emit.tgrs.reader.read_plan_file`), and the plan they hold. An unreadable
    path, or a file that is not a valid plan, is one error line naming the path."""
    from tigris.emit.tgrs import read_plan

    data = _read_bounded(path)
    try:
        return data, read_plan(data)
    except TgrsFormatError as e:
        raise UserPathError(f"'{path}' is not a valid .tgrs plan: {str(e).removeprefix('tgrs: ')}") from None


def _read_bounded(path: str) -> bytes:
    from tigris.emit.tgrs.reader import read_plan_file

    if path == "":
        raise UserPathError("the plan path is empty; name a .tgrs file")
    try:
        return read_plan_file(path)
    except TgrsFormatError as e:
        raise UserPathError(f"'{path}' is not a valid .tgrs plan: {str(e).removeprefix('tgrs: ')}") from None
    except OSError as e:
        if e.errno == errno.EISDIR or Path(path).is_dir():
            why = "it is a directory; name a .tgrs file"
        elif e.errno == errno.ENOENT:
            why = "no such file"
        else:
            why = (e.strerror or str(e)).lower()
        raise UserPathError(f"cannot read '{path}': {why}") from None
