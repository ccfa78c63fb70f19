"""MLIR's `--pass-pipeline='builtin.module(a,b{k=v})'` as xDSL's `-p a,b{k=v}`.

Every pass of ours is a ModulePass, so the only anchor is `builtin.module`; nested
anchors such as `func.func(...)` are rejected with a message saying so.
"""

from __future__ import annotations


class PipelineSyntaxError(ValueError):
    pass


def translate_pass_pipeline(text: str) -> str:
    spec = text.strip()
    if spec.startswith("any(") or spec.startswith("builtin.module("):
        head = spec[: spec.index("(")]
        if not spec.endswith(")"):
            raise PipelineSyntaxError(f"--pass-pipeline: missing ')' closing '{head}('")
        spec = spec[len(head) + 1 : -1].strip()
    elif "(" in _outside_braces(spec):
        anchor = _outside_braces(spec).split("(")[0]
        raise PipelineSyntaxError(
            f"--pass-pipeline: unsupported anchor '{anchor}'; use 'builtin.module(...)' (all TiGrIS passes run on the module)"
        )
    inner = _outside_braces(spec)
    if "(" in inner or ")" in inner:
        anchor = inner.split("(")[0].split(",")[-1].strip()
        raise PipelineSyntaxError(
            f"--pass-pipeline: nested anchor '{anchor}(...)' is not supported; every pass runs on builtin.module"
        )
    return _strip_list_spaces(spec)


def _strip_list_spaces(spec: str) -> str:
    """`a, b{k=1 j=2}` -> `a,b{k=1 j=2}`: MLIR allows spaces between passes, xDSL does not."""
    mask = _outside_braces(spec)
    return "".join(ch for ch, m in zip(spec, mask) if not (m == " " and ch.isspace())).strip()


def _outside_braces(spec: str) -> str:
    """The pipeline text with option blocks `{...}` (and quoted strings) masked by `#`."""
    out: list[str] = []
    depth = 0
    quoted = False
    for ch in spec:
        if ch == '"':
            quoted = not quoted
        if not quoted and ch == "{":
            depth += 1
        out.append(ch if depth == 0 and not quoted else "#")
        if not quoted and ch == "}":
            depth -= 1
    return "".join(out)


def expand_pipelines(spec: str) -> str:
    """`a,tigris-normalize,b` -> `a,<its passes>,b`, so each pass is printed and timed."""
    from tigris.transforms.pipelines import PIPELINES

    if not spec:
        return spec
    mask = _outside_braces(spec)
    parts: list[str] = []
    start = 0
    for index, ch in enumerate(mask + ","):
        if ch == ",":
            parts.append(spec[start:index])
            start = index + 1
    return ",".join(",".join(PIPELINES[p]) if p in PIPELINES else p for p in parts)
