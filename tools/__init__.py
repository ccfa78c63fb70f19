"""Command-line tools: tigris-opt, the tigris CLI."""
