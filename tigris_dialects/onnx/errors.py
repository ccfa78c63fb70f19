"""The importer's user-facing error."""

from xdsl.utils.exceptions import DiagnosticException


class OnnxImportError(DiagnosticException):
    """A problem with the user's model; the message is one line naming file, node or tensor."""
