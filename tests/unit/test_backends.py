"""Backend selection, the dummy backend, the CLI and logging (docs/api.rst,
"Initialization and devices" and "Logging").

The backend is process-global, so each scenario runs in a fresh interpreter. The child prints
one JSON object of probe results after a marker line; the tests assert on it.
"""
from __future__ import annotations

import inspect
import json
import logging
import os
import subprocess
import sys
import textwrap

import pytest

import vkdispatch as vd

MARKER = "@@PROBES@@"
PRELUDE = f'''
import json, logging
import vkdispatch as vd
out = {{}}
def probe(key, fn):
    try:
        out[key] = {{"ok": True, "value": fn()}}
    except BaseException as e:
        out[key] = {{"ok": False, "mro": [c.__name__ for c in type(e).__mro__], "message": str(e)}}
class Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.seen = []
    def emit(self, record):
        self.seen.append([record.levelname, record.getMessage()])
records = Records()
logging.getLogger("vkdispatch").addHandler(records)
'''
EPILOGUE = f'\nprint("{MARKER}" + json.dumps(out, default=repr))\n'


def run_python(code: str = "", args=(), env=None, probes=True) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != "VKDISPATCH_BACKEND"}
    environment.update(env or {})
    argv = [sys.executable, *args] if args else [
        sys.executable, "-c", (PRELUDE + textwrap.dedent(code) + EPILOGUE) if probes else code]
    proc = subprocess.run(argv, capture_output=True, text=True, env=environment, timeout=120)
    assert proc.returncode == 0, f"child failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc


def run_probes(code: str, env=None) -> dict:
    stdout = run_python(code, env=env).stdout
    return json.loads(stdout.split(MARKER, 1)[1])


def value(results, key):
    result = results[key]
    assert result["ok"], f"{key} raised {result}"
    return result["value"]


def error(results, key, builtin: type, *fragments) -> dict:
    result = results[key]
    assert not result["ok"], f"{key} returned {result['value']!r} instead of raising"
    assert builtin.__name__ in result["mro"], result
    assert "VkDispatchError" in result["mro"], result
    for fragment in fragments:
        assert fragment in result["message"], (fragment, result["message"])
    return result


# -- the dummy backend ---------------------------------------------------------------------

DUMMY_CODE = '''
probe("before", lambda: [vd.get_backend(), vd.is_initialized()])
probe("init", lambda: vd.initialize(backend=BACKEND) if BACKEND else None)
info = vd.get_devices()[0]
probe("flags", lambda: [vd.get_backend(), vd.is_dummy(), vd.is_vulkan(), vd.is_initialized()])
probe("devices", lambda: [dict(vars(d)) for d in vd.get_devices()])
probe("info", lambda: info.get_info_string(True))
probe("context", lambda: vd.make_context() is vd.get_context())
ctx = vd.get_context()
probe("limits", lambda: [ctx.subgroup_size, ctx.max_workgroup_size, ctx.max_workgroup_count,
      ctx.max_workgroup_invocations, ctx.max_shared_memory, ctx.uniform_buffer_alignment,
      ctx.subgroup_enabled, ctx.queue_count])
probe("wait", lambda: [vd.queue_wait_idle(), vd.queue_wait_idle(0), ctx.signal(0).wait(),
                       ctx.signal(0).try_wait()])
probe("families", lambda: [vd.select_queue_families(0), vd.select_queue_families(0, 3)])
'''


@pytest.fixture(scope="module", params=["env", "initialize"])
def dummy(request):
    """Probe results of a dummy-backend process, chosen by env var or by initialize()."""
    if request.param == "env":
        return run_probes("BACKEND = None\n" + DUMMY_CODE, env={"VKDISPATCH_BACKEND": "dummy"})
    return run_probes("BACKEND = ' Dummy '\n" + DUMMY_CODE)


def test_dummy_backend_selected_reports_dummy(dummy):
    assert value(dummy, "flags") == ["dummy", True, False, True]


def test_dummy_backend_device_has_reference_fake_limits(dummy):
    devices = value(dummy, "devices")
    assert len(devices) == 1
    d = devices[0]
    assert d["device_name"] == "VKDispatch Web Dummy GPU" and d["device_type"] == 2
    assert (d["version_major"], d["version_minor"], d["version_patch"]) == (1, 3, 0)
    assert d["vendor_id"] == 0x1BAD and d["sub_group_size"] == 32
    assert d["max_workgroup_size"] == [1024, 1024, 64] and d["max_workgroup_invocations"] == 1024
    assert d["max_workgroup_count"] == [65535, 65535, 65535]
    assert d["max_compute_shared_memory_size"] == 65536 and d["max_push_constant_size"] == 256
    assert d["uniform_buffer_alignment"] == 0
    assert d["queue_properties"] == [[8, 0x006], [4, 0x007]]
    for flag in ("float_64_support", "float_16_support", "int_64_support", "int_16_support",
                 "shader_buffer_float32_atomic_add", "scalar_block_layout", "timeline_semaphores"):
        assert d[flag] == 1, flag
    assert d["sorted_index"] == 0
    assert "Device 0: VKDispatch Web Dummy GPU" in value(dummy, "info")
    assert "Dummy Version: 1.3.0" in value(dummy, "info")


def test_dummy_backend_context_and_waits_work(dummy):
    assert value(dummy, "context") is True
    assert value(dummy, "limits") == [32, [1024, 1024, 64], [65535, 65535, 65535], 1024, 65536,
                                      0, True, 1]
    assert value(dummy, "wait") == [None, None, None, True]
    assert value(dummy, "families") == [[0, 1], [0, 1, 0]]  # even positions compute, odd graphics


def test_dummy_backend_buffer_creation_raises_dummy_backend_error():
    results = run_probes('''
    import numpy as np
    vd.initialize(backend="dummy")
    probe("buffer", lambda: vd.Buffer((4,), vd.float32))
    probe("asbuffer", lambda: vd.asbuffer(np.arange(3, dtype=np.float32)))
    probe("shorthand", lambda: vd.buffer_f32(8))
    ''')
    for key in ("buffer", "asbuffer", "shorthand"):
        found = error(results, key, RuntimeError, "'dummy' backend is codegen-only",
                      "backend='vulkan'")
        assert "DummyBackendError" in found["mro"]


def test_set_dummy_context_params_validates_then_updates_limits():
    results = run_probes('''
    vd.initialize(backend="dummy")
    ctx = vd.get_context()
    bad = {"size0": dict(subgroup_size=0), "sizebool": dict(subgroup_size=True),
           "wg2": dict(max_workgroup_size=(64, 64)), "count0": dict(max_workgroup_count=(1, 2, 0)),
           "enabled": dict(subgroup_enabled=1), "shared": dict(max_shared_memory=-5),
           "partial": dict(max_workgroup_invocations=64, max_workgroup_size=(1, 2))}
    for key, kwargs in bad.items():
        probe(key, lambda: vd.set_dummy_context_params(**kwargs))
    probe("untouched", lambda: [ctx.subgroup_size, ctx.max_workgroup_invocations])
    probe("set", lambda: vd.set_dummy_context_params(subgroup_size=64,
          max_workgroup_size=(256, 128, 16), max_workgroup_invocations=256,
          max_workgroup_count=(7, 8, 9), max_shared_memory=4096, subgroup_enabled=False))
    probe("after", lambda: [ctx.subgroup_size, ctx.max_workgroup_size,
          ctx.max_workgroup_invocations, ctx.max_workgroup_count, ctx.max_shared_memory,
          ctx.subgroup_enabled, ctx.subgroup_arithmetic, ctx.uniform_buffer_alignment,
          vd.get_devices()[0].sub_group_size])
    probe("reenable", lambda: [vd.set_dummy_context_params(subgroup_enabled=True),
          ctx.subgroup_enabled, ctx.subgroup_arithmetic][1:])
    ''')
    error(results, "size0", ValueError, "subgroup_size", "positive integer")
    error(results, "sizebool", ValueError, "subgroup_size")
    error(results, "wg2", ValueError, "max_workgroup_size", "exactly 3 positive integers")
    error(results, "count0", ValueError, "max_workgroup_count", "exactly 3")
    error(results, "enabled", ValueError, "subgroup_enabled", "bool")
    error(results, "shared", ValueError, "max_shared_memory", "-5")
    error(results, "partial", ValueError, "max_workgroup_size")
    assert value(results, "untouched") == [32, 1024]  # a rejected call changes nothing
    assert value(results, "set") is None
    assert value(results, "after") == [64, [256, 128, 16], 256, [7, 8, 9], 4096, False, False,
                                       0, 64]
    assert value(results, "reenable") == [True, True]


# -- vulkan and backend names --------------------------------------------------------------


def test_backend_names_unknown_unavailable_and_vulkan_refusals():
    results = run_probes('''
    probe("before", lambda: [vd.get_backend(), vd.is_vulkan(), vd.is_initialized()])
    probe("metal", lambda: vd.initialize(backend="metal"))
    probe("cuda", lambda: vd.initialize(backend="cuda"))
    try:
        vd.initialize(backend="CUDA")
    except ImportError as e:
        out["cuda_attr"] = e.backend_name
    probe("opencl", lambda: vd.initialize(backend="opencl"))
    probe("still", lambda: vd.is_initialized())
    probe("vulkan", lambda: [vd.initialize(backend=" Vulkan "), vd.get_backend()][1])
    probe("dummy_params", lambda: vd.set_dummy_context_params(subgroup_size=16))
    ''')
    assert value(results, "before") == ["vulkan", True, False]  # get_backend() did not init
    error(results, "metal", ValueError, "Unknown backend 'metal'", "cuda, dummy, opencl, vulkan")
    error(results, "cuda", ImportError, "Backend 'cuda' is unavailable")
    assert "BackendUnavailableError" in results["cuda"]["mro"]
    assert results["cuda_attr"] == "cuda"
    error(results, "opencl", ImportError, "opencl")
    assert value(results, "still") is False  # failed attempts leave nothing initialized
    assert value(results, "vulkan") == "vulkan"
    refused = results["dummy_params"]
    assert not refused["ok"] and "RuntimeError" in refused["mro"]
    assert "VkDispatchError" in refused["mro"]
    assert "dummy" in refused["message"]


def test_backend_environment_variable_is_read_without_initializing():
    results = run_probes('''
    probe("dummy", lambda: [vd.get_backend(), vd.is_dummy(), vd.is_initialized()])
    ''', env={"VKDISPATCH_BACKEND": "DUMMY"})
    assert value(results, "dummy") == ["dummy", True, False]
    bad = run_probes('probe("bogus", lambda: vd.initialize())',
                     env={"VKDISPATCH_BACKEND": "bogus"})
    error(bad, "bogus", ValueError, "Unknown backend 'bogus'", "cuda, dummy, opencl, vulkan")


# -- the command line ----------------------------------------------------------------------


def test_cli_module_lists_devices_and_exits_zero():
    proc = run_python(args=["-m", "vkdispatch"])
    assert proc.stdout.startswith("Device 0: ")
    assert "Queues:" in proc.stdout and "Vulkan Version:" in proc.stdout


def test_cli_module_version_prints_package_version():
    proc = run_python(args=["-m", "vkdispatch", "--version"])
    assert proc.stdout.strip() == f"vkdispatch {vd.__version__}" and vd.__version__ == "0.1.0"


def test_make_context_queue_counts_not_an_int_or_list_raises_naming_it():
    # In a new process: make_context in this one returns the context the suite already made.
    proc = run_python("import vkdispatch as vd\n"
                      "try:\n    vd.make_context(queue_counts=1.5)\n"
                      "except ValueError as error:\n    print(error)\n", probes=False)
    assert "queue_counts must be an int or a list of ints" in proc.stdout


def test_cli_backend_flags_of_0_1_0_and_no_prefix_matching(capsys):
    from vkdispatch.cli import main
    proc = run_python(args=["-m", "vkdispatch", "--vulkan"])
    assert proc.stdout.startswith("Device 0: ") and "Vulkan Loader" not in proc.stderr
    for flag, name in (("--cuda", "CUDA"), ("--opencl", "OpenCL")):
        assert main([flag]) == 2
        assert f"the {name} backend is not in this build" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--vulkan_loader"])  # an abbreviation: refused, not expanded
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "``" not in capsys.readouterr().out


# -- logging -------------------------------------------------------------------------------


@pytest.mark.parametrize("function,level", [(vd.log_warning, logging.WARNING),
                                            (vd.log_info, logging.INFO),
                                            (vd.log_verbose, logging.DEBUG)],
                         ids=["warning", "info", "verbose"])
def test_log_functions_keep_text_literal_and_report_caller(caplog, function, level):
    with caplog.at_level(logging.DEBUG, logger="vkdispatch"):
        line = inspect.currentframe().f_lineno + 1
        function("100% done %s %d {0}")
        function("no newline", end="!")
    records = [r for r in caplog.records if r.name == "vkdispatch"]
    assert [r.getMessage() for r in records] == ["100% done %s %d {0}", "no newline!"]
    assert all(r.levelno == level for r in records)
    assert records[0].filename == os.path.basename(__file__) and records[0].lineno == line
    assert records[1].lineno == line + 1


def test_log_with_level_and_stack_offset_reports_that_frame(caplog):
    def helper():
        vd.log("from helper", level=vd.LogLevel.WARNING, stack_offset=2)

    with caplog.at_level(logging.DEBUG, logger="vkdispatch"):
        line = inspect.currentframe().f_lineno + 1
        helper()
    (record,) = [r for r in caplog.records if r.name == "vkdispatch"]
    assert record.getMessage() == "from helper" and record.levelno == logging.WARNING
    assert record.lineno == line and record.funcName == inspect.currentframe().f_code.co_name


def test_set_log_level_error_suppresses_warnings_after_initialize():
    results = run_probes('''
    vd.initialize()
    vd.log_warning("visible warning")
    vd.set_log_level(vd.LogLevel.ERROR)
    vd.log_warning("hidden warning")
    vd.log_info("hidden info")
    vd.log_error("visible error")
    vd.set_log_level(vd.LogLevel.INFO)
    vd.log_info("visible info")
    out["records"] = records.seen
    ''')
    assert results["records"] == [["WARNING", "visible warning"], ["ERROR", "visible error"],
                                  ["INFO", "visible info"]]


def test_set_log_level_before_initialize_survives_implicit_initialize():
    results = run_probes('''
    vd.set_log_level(vd.LogLevel.ERROR)
    vd.get_devices()
    vd.log_warning("should be hidden")
    out["records"] = records.seen
    out["level"] = logging.getLogger("vkdispatch").level
    ''')
    assert results["records"] == [] and results["level"] == logging.ERROR


def test_cuda_graph_capture_names_exist_and_say_cuda_is_not_in_this_build():
    from vkdispatch import CUDAGraphCapture, cuda_graph_capture, get_cuda_capture
    from vkdispatch.errors import InvalidStateError
    assert get_cuda_capture() is None
    for attempt in (cuda_graph_capture, CUDAGraphCapture):
        with pytest.raises(InvalidStateError, match="needs the CUDA backend"):
            attempt()


OTHER_BACKENDS_ONLY = ("is_cuda", "is_opencl", "from_cuda_array", "cuda_graph_capture",
                       "get_cuda_capture", "CUDAGraphCapture")


def test_cuda_and_opencl_backend_names_are_importable_but_not_listed():
    """The CUDA and OpenCL backends' own names stay importable for 0.1.0 code, but neither
    ``vd.__all__`` nor ``help(vkdispatch)`` lists them; DLPack, Vulkan-build API, is listed."""
    import pydoc
    from vkdispatch.errors import InvalidStateError
    assert all(callable(getattr(vd, name)) for name in OTHER_BACKENDS_ONLY)
    assert vd.is_cuda() is False and vd.is_opencl() is False
    with pytest.raises(InvalidStateError, match="needs the CUDA backend"):
        vd.from_cuda_array(object())
    assert not set(OTHER_BACKENDS_ONLY) & set(vd.__all__)
    assert all(hasattr(vd, name) for name in vd.__all__)
    text = pydoc.render_doc(vd, renderer=pydoc.plaintext)
    for name in OTHER_BACKENDS_ONLY:
        assert name not in text, name
    assert "from_dlpack(" in text and "__dlpack__(" in text
