"""The summary that ends ``make test``: passed, failed and skipped per suite, the reasons for
the skips and the failures, read from what each suite left in the results folder
(``build/test-results``, written by the Makefile's ``run_suite``):

* ``<suite>.status``: the suite's exit status and its wall time in seconds;
* ``<suite>.xml``: JUnit XML, from ``ctest --output-junit`` (native suites run through ctest),
  ``--gtest_output=xml:`` (the suite under validation) or ``pytest --junitxml`` (Python);
* ``<suite>.log``: the suite's whole output (the wheel test's "ok"/"skip" lines are counted
  from it);
* ``<suite>.note``: optional, why the suite failed beyond its tests (validation messages,
  a build that failed before the tests ran).

    python tests/summary.py [--brief] RESULTS SUITE...

``--brief``: one line per suite (``make test`` prints it as each suite ends). Exit status 1
when a suite failed or left no status, else 0. Standard library only.
"""
from __future__ import annotations

import argparse
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

TITLES = {
    "native": "native gtests",
    "native-validation": "native under validation",
    "sanitize": "native with sanitizers",
    "python": "Python",
    "python-debug": "Python in debug mode",
    "wheel": "wheel",
}
FAILURES_SHOWN = 10     # per suite
FAILURE_LINES = 12      # of each failure's message or output
LOG_LINES = 20          # of the log of a suite that failed without a failed test
LINE_WIDTH = 160        # longer lines of those are cut


@dataclass
class Failure:
    name: str
    text: str


@dataclass
class Suite:
    key: str
    status: int | None = None           # None: the suite never ran (no status file)
    seconds: float | None = None
    passed: int = 0
    failures: list[Failure] = field(default_factory=list)
    skips: list[tuple[str, str]] = field(default_factory=list)    # (test, reason)
    xfails: list[tuple[str, str]] = field(default_factory=list)
    deselected: int = 0
    note: str = ""
    log: Path | None = None
    counted: bool = False                # results were found

    @property
    def title(self) -> str:
        return TITLES.get(self.key, self.key)

    @property
    def failed(self) -> bool:
        """Failed, or never ran (its build failed, or make stopped before it)."""
        return self.status != 0 or bool(self.failures)


# -- reading results ---------------------------------------------------------------------------

def _gtest_skip_reason(text: str) -> str:
    """A gtest skip message is ``file:line\\nreason``: the reason, or '' for a bare GTEST_SKIP()."""
    lines = [line.strip() for line in text.strip().splitlines()]
    if lines and re.match(r".*:\d+$", lines[0]):
        lines = lines[1:]
    return " ".join(line for line in lines if line)


def _ctest_skip_reason(output: str) -> str:
    """The reason a gtest run by ctest printed: the lines between ``file:line: Skipped`` and
    ``[  SKIPPED ]``."""
    match = re.search(r":\d+: Skipped\n(.*?)\n\[  SKIPPED \]", output, re.S)
    return " ".join(match.group(1).split()) if match else ""


def _tail(text: str, count: int) -> str:
    lines = text.rstrip().splitlines()
    return "\n".join(lines[-count:])


def _failure_text(kind: str, message: str, text: str, output: str) -> str:
    """The lines that say why a test failed: pytest's message and the line it failed at; a
    gtest's failure messages; for a gtest run by ctest, its output between ``[ RUN ]`` and
    ``[  FAILED  ]`` (or the end of its output when it crashed)."""
    if kind == "pytest":
        where = [line for line in text.splitlines() if re.match(r"\S+:\d+: \w", line)]
        lines = message.splitlines()[:FAILURE_LINES - 1] + where[-1:]
    elif kind == "ctest":
        match = re.search(r"^\[ RUN      \][^\n]*\n(.*?)^\[  FAILED  \]", output, re.S | re.M)
        lines = (match.group(1) if match else output).strip().splitlines()
        lines = lines[:FAILURE_LINES] if match else lines[-FAILURE_LINES:]
    else:
        lines = (text or message).strip().splitlines()[:FAILURE_LINES]
    return "\n".join(line if len(line) <= LINE_WIDTH else line[:LINE_WIDTH - 3] + "..."
                     for line in lines)


def _pytest_id(classname: str, name: str) -> str:
    """pytest's node id from JUnit's dotted ``classname`` (``tests.unit.test_x.TestY``) and
    ``name``: ``tests/unit/test_x.py::TestY::name``."""
    parts = classname.split(".")
    modules = [i for i, part in enumerate(parts) if re.match(r"(test_|conftest$)", part)]
    if not modules:
        return f"{classname}::{name}"
    end = modules[-1] + 1
    return "::".join(["/".join(parts[:end]) + ".py", *parts[end:], name])


def read_junit(suite: Suite, path: Path) -> None:
    """Counts the test cases of one JUnit file from pytest, gtest or ctest."""
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        classname, name = case.get("classname", ""), case.get("name", "")
        if case.get("result") is not None:      # gtest's own XML: suite and test name
            kind, test = "gtest", f"{classname}.{name}"
        elif case.get("status") is not None:    # ctest: the name is the whole gtest name
            kind, test = "ctest", name
        else:
            kind, test = "pytest", _pytest_id(classname, name)
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        skipped = case.find("skipped")
        out = case.findtext("system-out") or ""
        if failure is not None or kind == "ctest" and case.get("status") == "fail":
            message = failure.get("message", "") if failure is not None else ""
            text = (failure.text or "").strip() if failure is not None else ""
            suite.failures.append(Failure(test, _failure_text(kind, message, text, out)))
        elif skipped is not None or case.get("result") == "skipped" \
                or kind == "ctest" and case.get("status") in ("notrun", "disabled"):
            message = skipped.get("message", "") if skipped is not None else ""
            if kind == "ctest":
                reason = _ctest_skip_reason(out) or message
            elif kind == "gtest":
                reason = _gtest_skip_reason(message)
            else:
                reason = message
            xfail = skipped is not None and skipped.get("type") == "pytest.xfail"
            (suite.xfails if xfail else suite.skips).append((test, reason))
        else:
            suite.passed += 1
    suite.counted = True


def read_smoke_log(suite: Suite, text: str) -> None:
    """tests/wheel/smoke.py prints ``ok   <check>`` per check passed and ``skip <case>: <why>``
    per case skipped; a failure ends it with a traceback (the status says so)."""
    for line in text.splitlines():
        if line.startswith("ok   "):
            suite.passed += 1
            suite.counted = True
        elif line.startswith("skip "):
            case, _, reason = line[5:].partition(": ")
            suite.skips.append((case, reason))
            suite.counted = True


def load(results: Path, key: str) -> Suite:
    suite = Suite(key)
    status = results / f"{key}.status"
    if status.is_file():
        fields = status.read_text().split()
        suite.status = int(fields[0])
        suite.seconds = float(fields[1]) if len(fields) > 1 else None
    log = results / f"{key}.log"
    suite.log = log if log.is_file() else None
    note = results / f"{key}.note"
    suite.note = note.read_text().strip() if note.is_file() else ""
    xml = results / f"{key}.xml"
    if xml.is_file() and xml.stat().st_size:
        try:
            read_junit(suite, xml)
        except ET.ParseError as error:
            suite.note = (suite.note + "\n" if suite.note else "") + f"unreadable {xml}: {error}"
    elif suite.log is not None and key == "wheel":
        read_smoke_log(suite, suite.log.read_text(errors="replace"))
    if suite.log is not None:
        match = re.search(r"(\d+) deselected", _tail(suite.log.read_text(errors="replace"), 3))
        suite.deselected = int(match.group(1)) if match else 0
    return suite


# -- printing ----------------------------------------------------------------------------------

def verdict(suite: Suite) -> str:
    if suite.status is None:
        return "did not run"
    if not suite.failed:
        return "ok"
    return "FAILED" if suite.failures or not suite.status else \
        f"FAILED (exit status {suite.status})"


def counts(suite: Suite) -> str:
    """``12 passed, 1 failed, 2 skipped (30 s): FAILED``: the line ``--brief`` prints."""
    if suite.status is None:
        return "did not run"
    parts = [f"{suite.passed} passed"] if suite.counted else ["no results"]
    for count, word in ((len(suite.failures), "failed"), (len(suite.skips), "skipped"),
                        (len(suite.xfails), "xfailed")):
        if count:
            parts.append(f"{count} {word}")
    text = ", ".join(parts)
    if suite.seconds is not None:
        text += f" ({suite.seconds:.0f} s)"
    return text if not suite.failed else f"{text}: {verdict(suite)}"


def grouped_reasons(pairs: list[tuple[str, str]], name_tests: bool) -> list[str]:
    """gtest: every test named with its reason; pytest: reasons with counts, most first."""
    if name_tests:
        return [f"{test}: {reason or '(no reason given)'}" for test, reason in pairs]
    by_reason = Counter(reason or "(no reason given)" for _, reason in pairs)
    width = len(str(max(by_reason.values()))) if by_reason else 1
    return [f"{count:>{width}}  {reason}" for reason, count in
            sorted(by_reason.items(), key=lambda item: (-item[1], item[0]))]


def is_pytest(suite: Suite) -> bool:
    return suite.key.startswith("python")


def details(suite: Suite) -> list[str]:
    """The skip reasons, the failures and why a suite failed beyond its tests."""
    lines = []
    if suite.skips:
        lines.append(f"  skipped ({len(suite.skips)}):")
        lines += [f"    {line}" for line in grouped_reasons(suite.skips, not is_pytest(suite))]
    if suite.xfails:
        lines.append(f"  expected failures ({len(suite.xfails)}):")
        lines += [f"    {line}" for line in grouped_reasons(suite.xfails, False)]
    if suite.deselected:
        lines.append(f"  not run: {suite.deselected} slow tests (`make test-slow` runs them)")
    if suite.failures:
        lines.append(f"  failed ({len(suite.failures)}):")
        for failure in suite.failures[:FAILURES_SHOWN]:
            lines.append(f"    {failure.name}")
            lines += [f"      | {line}" for line in failure.text.splitlines()]
        if len(suite.failures) > FAILURES_SHOWN:
            lines.append(f"    ... and {len(suite.failures) - FAILURES_SHOWN} more")
    if suite.status is None:
        lines.append("  did not run: its build or setup failed (the output above says why)")
    elif suite.failed:
        if suite.note:
            lines += [f"  {line}" for line in suite.note.splitlines()]
        elif not suite.failures and suite.log is not None:
            lines.append("  the end of its output:")
            tail = _tail(suite.log.read_text(errors="replace"), LOG_LINES)
            lines += [f"      | {line}" for line in tail.splitlines()]
        if suite.log is not None:
            lines.append(f"  whole output: {suite.log}")
    return lines


def table(suites: list[Suite]) -> list[str]:
    width = max(len(s.title) for s in suites)
    lines = [f"{'suite':<{width}}  {'passed':>7}  {'failed':>6}  {'skipped':>7}  {'time':>6}  "
             "result"]
    for s in suites:
        seconds = f"{s.seconds:.0f} s" if s.seconds is not None else "-"
        numbers = (f"{s.passed:>7}  {len(s.failures):>6}  {len(s.skips):>7}" if s.counted
                   else f"{'-':>7}  {'-':>6}  {'-':>7}")
        lines.append(f"{s.title:<{width}}  {numbers}  {seconds:>6}  {verdict(s)}")
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--brief", action="store_true", help="one line per suite")
    parser.add_argument("results", type=Path)
    parser.add_argument("suites", nargs="+")
    args = parser.parse_args(argv)
    suites = [load(args.results, key) for key in args.suites]
    if args.brief:
        for suite in suites:
            print(f"{suite.title}: {counts(suite)}")
    else:
        print("=" * 72)
        print("\n".join(table(suites)))
        for suite in suites:
            block = details(suite)
            if block:
                print(f"\n{suite.title}:")
                print("\n".join(block))
        failed = [s.title for s in suites if s.failed]
        print()
        if failed:
            print(f"{len(failed)} of {len(suites)} suites failed: {', '.join(failed)}")
        else:
            print(f"all {len(suites)} suites passed" if len(suites) > 1 else "passed")
    return 1 if any(s.failed for s in suites) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
