"""What `tigris analyze` reports about a model's plan: analysis.py collects (from the module
`tigris-plan` annotated), text.py and json_report.py print, memory_profile.py and plot.py draw
the optional figures (matplotlib, from the `plot` extra). A tool, not an emitter: it sits in
the top layer beside the CLI, its one user, which only parses flags and calls these."""

from tigris.tools.report.analysis import AnalysisReport, Verdict, analyze, analyze_module
from tigris.tools.report.json_report import to_dict, to_json
from tigris.tools.report.text import render_text

__all__ = ["AnalysisReport", "Verdict", "analyze", "analyze_module", "render_text", "to_dict", "to_json"]
