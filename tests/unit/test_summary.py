"""tests/summary.py, the summary that ends ``make test``, on small hand-written results in the
three JUnit dialects it reads (pytest's, gtest's own, ctest's) and the wheel test's output."""
from __future__ import annotations

import re

import summary

PYTEST_XML = """<?xml version="1.0" encoding="utf-8"?>
<testsuites name="pytest tests"><testsuite name="pytest" tests="7">
<testcase classname="tests.unit.test_a" name="test_one" time="0.1"/>
<testcase classname="tests.unit.test_a.TestGroup" name="test_two[x]" time="0.1"/>
<testcase classname="tests.device.test_b" name="test_gpus" time="0">
  <skipped type="pytest.skip" message="needs two or more GPUs, this host has 0">tests/device/test_b.py:5: needs two or more GPUs, this host has 0</skipped></testcase>
<testcase classname="tests.device.test_b" name="test_gpus_again" time="0">
  <skipped type="pytest.skip" message="needs two or more GPUs, this host has 0">tests/device/test_b.py:9: needs two or more GPUs, this host has 0</skipped></testcase>
<testcase classname="tests.device.test_b" name="test_torch" time="0">
  <skipped type="pytest.skip" message="could not import 'torch'">tests/device/test_b.py:12: could not import 'torch'</skipped></testcase>
<testcase classname="tests.device.test_b" name="test_later" time="0">
  <skipped type="pytest.xfail" message="not yet"/></testcase>
<testcase classname="tests.device.test_c" name="test_sum" time="0.2">
  <failure message="AssertionError: assert 3 == 4">def test_sum():
&gt;       assert 1 + 2 == 4
E       assert 3 == 4

tests/device/test_c.py:7: AssertionError</failure></testcase>
</testsuite></testsuites>
"""

GTEST_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" failures="1" name="AllTests">
  <testsuite name="CudaView" tests="2">
    <testcase name="Refuses" status="run" result="completed" classname="CudaView" />
    <testcase name="Copies" status="run" result="skipped" classname="CudaView">
      <skipped message="/src/tests/test_cuda_view.cpp:44&#x0A;no CUDA view here"/>
    </testcase>
  </testsuite>
  <testsuite name="Buffer" tests="1">
    <testcase name="RoundTrip" status="run" result="completed" classname="Buffer">
      <failure message="/src/tests/test_buffer.cpp:20&#x0A;Expected equality of these values:&#x0A;  a&#x0A;  b" type=""/>
    </testcase>
  </testsuite>
</testsuites>
"""

CTEST_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="vkdispatch" tests="3" failures="1" skipped="1">
  <testcase name="Queue.Waits" classname="Queue.Waits" status="run"><system-out>[  PASSED  ] 1 test.
</system-out></testcase>
  <testcase name="ReplicaCopy.AcrossFamilies" classname="ReplicaCopy.AcrossFamilies" status="notrun">
    <skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>
    <system-out>[ RUN      ] ReplicaCopy.AcrossFamilies
/src/tests/test_replica_copy.cpp:119: Skipped
the device has one queue family
with compute
[  SKIPPED ] ReplicaCopy.AcrossFamilies (67 ms)
</system-out></testcase>
  <testcase name="Profiler.Clock" classname="Profiler.Clock" status="fail">
    <failure message="Failed"/>
    <system-out>Running main() from gtest_main.cc
[ RUN      ] Profiler.Clock
/src/tests/test_profiler.cpp:195: Failure
The difference between gpu_ms and host_ms is 12
[  FAILED  ] Profiler.Clock (40 ms)
[  FAILED  ] 1 test, listed below:
</system-out></testcase>
</testsuite>
"""


def write(results, key, status=None, xml=None, log=None, note=None):
    for suffix, text in (("status", status), ("xml", xml), ("log", log), ("note", note)):
        if text is not None:
            (results / f"{key}.{suffix}").write_text(text)


def test_pytest_results_group_skips_by_reason_and_name_failures(tmp_path):
    write(tmp_path, "python", "1 42", PYTEST_XML, "...\n1 failed, 2 passed, 74 deselected in 2s\n")
    suite = summary.load(tmp_path, "python")
    assert suite.passed == 2 and suite.deselected == 74 and suite.seconds == 42
    assert [name for name, _ in suite.skips][:1] == ["tests/device/test_b.py::test_gpus"]
    assert summary.grouped_reasons(suite.skips, name_tests=False) == [
        "2  needs two or more GPUs, this host has 0", "1  could not import 'torch'"]
    assert suite.xfails == [("tests/device/test_b.py::test_later", "not yet")]
    [failure] = suite.failures
    assert failure.name == "tests/device/test_c.py::test_sum"
    assert failure.text.splitlines() == ["AssertionError: assert 3 == 4",
                                         "tests/device/test_c.py:7: AssertionError"]
    assert summary.counts(suite) == "2 passed, 1 failed, 3 skipped, 1 xfailed (42 s): FAILED"


def test_pytest_id_keeps_classes_apart_from_modules():
    assert summary._pytest_id("tests.unit.test_a.TestGroup", "test_two[x]") == \
        "tests/unit/test_a.py::TestGroup::test_two[x]"


def test_gtest_xml_names_skipped_tests_with_their_reason(tmp_path):
    write(tmp_path, "native-validation", "1 9", GTEST_XML)
    suite = summary.load(tmp_path, "native-validation")
    assert suite.passed == 1
    assert suite.skips == [("CudaView.Copies", "no CUDA view here")]
    assert suite.failures[0].name == "Buffer.RoundTrip"
    assert "Expected equality of these values:" in suite.failures[0].text
    lines = summary.details(suite)
    assert "    CudaView.Copies: no CUDA view here" in lines


def test_ctest_junit_reads_skip_reasons_and_failures_from_the_output(tmp_path):
    write(tmp_path, "native", "8 30", CTEST_XML)
    suite = summary.load(tmp_path, "native")
    assert suite.passed == 1
    assert suite.skips == [("ReplicaCopy.AcrossFamilies",
                            "the device has one queue family with compute")]
    assert suite.failures[0].name == "Profiler.Clock"
    assert suite.failures[0].text.splitlines() == [
        "/src/tests/test_profiler.cpp:195: Failure",
        "The difference between gpu_ms and host_ms is 12"]


def test_wheel_checks_are_counted_from_the_smoke_output(tmp_path):
    write(tmp_path, "wheel", "0 60", log="pip install of the wheel: 4.1 s\nok   buffer round trip\n"
          "ok   vd.fft.fft\nskip no-device: Mesa's Intel driver finds a GPU on this machine\n"
          "smoke test passed\n")
    suite = summary.load(tmp_path, "wheel")
    assert (suite.passed, suite.skips) == (2, [
        ("no-device", "Mesa's Intel driver finds a GPU on this machine")])
    assert not suite.failed


def test_a_suite_failing_beyond_its_tests_shows_why_and_the_exit_status_says_so(tmp_path,
                                                                                  capsys):
    write(tmp_path, "native", "0 30", CTEST_XML.replace('status="fail"', 'status="run"')
          .replace('<failure message="Failed"/>', ''))
    write(tmp_path, "native-validation", "1 9", GTEST_XML.replace(
        '<failure message="/src/tests/test_buffer.cpp:20&#x0A;Expected equality of these '
        'values:&#x0A;  a&#x0A;  b" type=""/>', ''),
        log="[  PASSED  ] 2 tests.\n", note="validation messages in its output:\nVUID-xyz")
    assert summary.main([str(tmp_path), "native", "native-validation", "sanitize"]) == 1
    out = capsys.readouterr().out
    assert re.search(r"native under validation +2 +0 +1 +9 s +FAILED \(exit status 1\)", out)
    assert "  validation messages in its output:\n  VUID-xyz" in out
    assert "native with sanitizers" in out and "did not run: its build or setup failed" in out
    assert out.rstrip().endswith(
        "2 of 3 suites failed: native under validation, native with sanitizers")


def test_brief_prints_one_line_per_suite_and_passes_when_they_passed(tmp_path, capsys):
    write(tmp_path, "wheel", "0 60", log="ok   buffer round trip\n")
    assert summary.main(["--brief", str(tmp_path), "wheel"]) == 0
    assert capsys.readouterr().out == "wheel: 1 passed (60 s)\n"
