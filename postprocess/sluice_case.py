#!/usr/bin/env python3
"""What the postprocess scripts read of a run's case: which case file a run folder came from,
and the kinds of its gauges (cases/README.md, <gauges>). Standard library only; imported by
wave_analysis.py and plot_gauges.py (the install puts them side by side)."""
import json
import os
import xml.etree.ElementTree as ElementTree

GAUGE_KINDS = ("height", "probe", "front", "sensor")


class CaseReadError(ValueError):
    """The case file cannot be read or parsed."""


def run_case_file(run_dir):
    """The case file RUN_DIR/summary.json names (`case_file`, as the run was given it), if it
    exists as named (relative to this folder, where the run is taken to have been started) or
    relative to the run folder's parent's parent (a run written to out/NAME); else None."""
    try:
        with open(os.path.join(run_dir, "summary.json"), encoding="utf-8") as f:
            named = json.load(f).get("case_file")
    except (OSError, ValueError, AttributeError):
        return None
    if not named:
        return None
    parent = os.path.dirname(os.path.abspath(run_dir))
    for candidate in (named, os.path.join(parent, "..", named)):
        if os.path.isfile(candidate):
            return os.path.normpath(candidate)
    return None


def case_root(path):
    """The parsed case file's root element. \\raises CaseReadError naming the file."""
    try:
        return ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError) as e:
        raise CaseReadError(f"the case {path} cannot be read: {e}") from None


def gauge_kinds(path):
    """{gauge name: kind} of the case's <gauges> (kind one of GAUGE_KINDS)."""
    root = case_root(path)
    return {g.get("name"): g.tag for kind in GAUGE_KINDS for g in root.iter(kind)
            if g.get("name")}


def run_case_name(run_dir):
    """The case's name as RUN_DIR/summary.json gives it, else None."""
    try:
        with open(os.path.join(run_dir, "summary.json"), encoding="utf-8") as f:
            return json.load(f).get("case") or None
    except (OSError, ValueError, AttributeError):
        return None
