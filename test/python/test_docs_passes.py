"""docs/passes.md keeps up with the passes: every registered pass is documented, and every
IR example in it is what `tigris-opt` really prints.

An example is an HTML comment naming the pipeline and the check mode, followed by two fenced
blocks, the input and the expected result (text between the blocks is allowed; the two
blocks must be the first two fences after the comment):

    <!-- example pipeline="fold-batchnorm" check="exact" -->
    ```mlir
    func.func @main(...) { ... }        (the input, run as `tigris-opt FILE -p PIPELINE`)
    ```
    ```mlir
    func.func @main(...) { ... }        (what the run prints)
    ```

Check modes (the comparison ignores indentation, blank lines and runs of spaces):

- `exact`: the output, minus the implicit `builtin.module { ... }` wrapper that tigris-opt
  prints around a bare `func.func`, equals the expected block line by line (a
  `{-# dialect_resources #-}` trailer included).
- `lines`: like FileCheck `CHECK` lines: each expected line is found, in order, in a later
  output line; `...` inside a line matches any text, and a line that *starts* with `...`
  continues on the same output line after the previous match (FileCheck's `CHECK-SAME`), so a
  long attribute list can be shown one entry per line.
- `error`: tigris-opt fails (exit status 1) and prints exactly the expected block on stderr
  (the one `error: ...` line).
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tigris.transforms import get_all_passes
from tigris.transforms.pipelines import NORMALIZE

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "passes.md"
DOC = DOC_PATH.read_text()

MARKER = re.compile(r'<!-- example pipeline="(?P<pipeline>[^"]+)" check="(?P<mode>exact|lines|error)" -->')
FENCE = re.compile(r"^```[a-z]*\n(?P<body>.*?)^```\s*$", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^### `(?P<name>[a-z0-9-]+)`", re.MULTILINE)
TIGRIS_OPT = "import sys; from tigris.tools.tigris_opt import main; sys.exit(main())"


@dataclass(frozen=True)
class Example:
    pipeline: str
    mode: str
    before: str
    after: str
    line: int  # of the marker in docs/passes.md, for failure messages
    section: str  # the pass heading the example sits under

    @property
    def id(self) -> str:
        return f"L{self.line}-{self.section}"


def _section_at(text: str, offset: int) -> str:
    headings = [m for m in HEADING.finditer(text) if m.start() < offset]
    return headings[-1]["name"] if headings else ""


def extract_examples(text: str = DOC) -> list[Example]:
    examples = []
    for marker in MARKER.finditer(text):
        line = text.count("\n", 0, marker.start()) + 1
        fences = list(FENCE.finditer(text, marker.end()))[:2]
        assert len(fences) == 2, f"docs/passes.md line {line}: an example needs two fenced blocks"
        before, after = (fence["body"] for fence in fences)
        section = _section_at(text, marker.start())
        examples.append(Example(marker["pipeline"], marker["mode"], before, after, line, section))
    return examples


EXAMPLES = extract_examples()


def normalized(text: str) -> list[str]:
    """Non-blank lines, stripped, with every run of whitespace as one space."""
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def without_module_wrapper(lines: list[str]) -> list[str]:
    """Drop the `builtin.module {` line tigris-opt wraps a bare function in, and its `}` (the last
    one before a `{-# dialect_resources #-}` trailer, if any)."""
    if not lines or lines[0] != "builtin.module {":
        return lines
    end = lines.index("{-#") if "{-#" in lines else len(lines)
    close = max(i for i in range(end) if lines[i] == "}")
    return lines[1:close] + lines[close + 1 :]


def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(".*?".join(re.escape(piece) for piece in text.split("...")))


def check_lines(expected: list[str], output: list[str]) -> str | None:
    """FileCheck-like in-order matching (see the module docstring); None, or what went wrong."""
    row, column = -1, 0  # the output line of the last match and where on it the match ended
    for want in expected:
        same_line = want.startswith("...")
        pattern = _pattern(want.removeprefix("...").strip())
        if same_line:
            found = pattern.search(output[row], column) if row >= 0 else None
            if found is None:
                return f"not found on the same output line after the previous match: {want!r}"
            column = found.end()
            continue
        for index in range(row + 1, len(output)):
            if (found := pattern.search(output[index])) is not None:
                row, column = index, found.end()
                break
        else:
            return f"not found after output line {row + 1}: {want!r}"
    return None


def run_tigris_opt(example: Example, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    source = tmp_path / "example.mlir"
    source.write_text(example.before)
    return subprocess.run(
        [sys.executable, "-c", TIGRIS_OPT, str(source), "-p", example.pipeline],
        check=False, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_example_is_what_tigris_opt_prints(example: Example, tmp_path: Path) -> None:
    proc = run_tigris_opt(example, tmp_path)
    where = f"docs/passes.md line {example.line} (-p '{example.pipeline}', check={example.mode})"
    if example.mode == "error":
        assert proc.returncode == 1, f"{where}: expected a failure, got status {proc.returncode}"
        assert normalized(proc.stderr) == normalized(example.after), f"{where}: stderr was\n{proc.stderr}"
        return
    assert proc.returncode == 0, f"{where}: tigris-opt failed\n{proc.stderr}"
    output = normalized(proc.stdout)
    if example.mode == "exact":
        same = without_module_wrapper(output) == normalized(example.after)
        assert same, f"{where}: output was\n{proc.stdout}"
    else:
        problem = check_lines(normalized(example.after), output)
        assert problem is None, f"{where}: {problem}\noutput was\n{proc.stdout}"


def test_every_registered_pass_has_a_section_with_an_example() -> None:
    """TiGrIS's own passes; an installed plugin documents its passes itself."""
    sections = {m["name"] for m in HEADING.finditer(DOC)}
    missing = [name for name in get_all_passes(plugins=False) if name not in sections]
    assert not missing, f"passes without a '### `name`' section in docs/passes.md: {missing}"
    exampled = {e.section for e in EXAMPLES}
    assert not [name for name in get_all_passes(plugins=False) if name not in exampled], "sections without an example"


def test_every_section_names_a_registered_pass() -> None:
    stale = [m["name"] for m in HEADING.finditer(DOC) if m["name"] not in get_all_passes()]
    assert not stale, f"docs/passes.md documents passes that are not registered: {stale}"


def test_every_example_runs_the_pass_of_its_section() -> None:
    for e in EXAMPLES:
        names = [step.split("{")[0] for step in re.split(r",(?![^{]*\})", e.pipeline)]
        assert e.section in names, f"line {e.line}: example under `{e.section}` runs -p '{e.pipeline}'"


def test_normalization_sections_follow_the_pipeline_order() -> None:
    order = [m["name"] for m in HEADING.finditer(DOC) if m["name"] in NORMALIZE]
    assert order == list(NORMALIZE), "docs/passes.md lists the normalization passes out of pipeline order"


def test_the_checker_itself() -> None:
    """The matching rules the examples rely on, on made-up text."""
    output = normalized("builtin.module {\n  func.func @f(%a: i32) attributes {x = 1, y = 2} {\n  }\n}\n")
    assert without_module_wrapper(output) == ["func.func @f(%a: i32) attributes {x = 1, y = 2} {", "}"]
    assert check_lines(["func.func @f(...) attributes {", "... x = 1,", "... y = 2}"], output) is None
    assert check_lines(["... y = 2", "... x = 1"], output) is not None  # same line, but out of order
    assert check_lines(["y = 2", "x = 1"], output) is not None  # a new match must be on a later line
    resources = normalized("builtin.module {\n  f\n}\n\n{-#\n  dialect_resources: {\n  }\n#-}\n")
    assert without_module_wrapper(resources) == ["f", "{-#", "dialect_resources: {", "}", "#-}"]
    assert len(EXAMPLES) >= len(get_all_passes(plugins=False))
