"""The one exception a `.tgrs` reader raises."""

from __future__ import annotations

CODES = (
    "TOO_SMALL",  # TIGRIS_ERR_TOO_SMALL: shorter than the header
    "BAD_MAGIC",  # TIGRIS_ERR_BAD_MAGIC
    "BAD_VERSION",  # TIGRIS_ERR_BAD_VERSION: major differs, minor newer, or header_size wrong
    "BAD_SIZE",  # TIGRIS_ERR_BAD_SIZE: file_size != buffer length
    "BAD_CRC",  # proposed TIGRIS_ERR_BAD_CRC: checksum mismatch
    "BAD_SECTION",  # TIGRIS_ERR_BAD_SECTION: section table entry out of bounds, misaligned, overlapping
    "MISSING_SEC",  # TIGRIS_ERR_MISSING_SEC
    "BAD_RECORD",  # proposed TIGRIS_ERR_BAD_RECORD: a field of a record is out of range
)
"""Which loader error each check maps to (the C loader returns the same class of error)."""


class TgrsFormatError(ValueError):
    """A `.tgrs` file that must not be run; the message names the offending field.

    `code` is one of `CODES`, the `tigris_error_t` the C loader reports for the same file.
    """

    def __init__(self, code: str, message: str) -> None:
        assert code in CODES, code
        super().__init__(f"tgrs: {message}")
        self.code = code
