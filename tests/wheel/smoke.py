"""Smoke test of an installed vkdispatch (`make test-wheel` runs it against the binary wheel).

Run it with the interpreter of the environment under test, from outside the checkout, so that
the package comes from that environment and not from the source tree:

    cd /tmp && /path/to/venv/bin/python /path/to/checkout/tests/wheel/smoke.py

Default: lists the devices, then checks a buffer round trip, a ``@vd.shader`` call, ``vd.fft``,
``vd.fft.convolve``, ``vd.reduce`` and a kp Manager/Tensor/Algorithm round trip against numpy
on random data; then the same package without Vulkan (see ``--unavailable``).

``--unavailable [CONDITION ...]``: only the checks without Vulkan, each in a child process that
runs this script with ``--expect-unavailable``: there ``import vkdispatch`` and ``import kp``
must work, and ``vd.get_devices()``, ``vd.asbuffer()``, ``kp.Manager()`` and ``python -m
vkdispatch`` must fail with a :class:`~vkdispatch.errors.VulkanUnavailableError` naming what to
install. Conditions:

* ``no-driver``: ``VK_DRIVER_FILES`` and ``VK_ICD_FILENAMES`` name a file that does not exist,
  so the loader finds no driver;
* ``no-device``: they name Mesa's Intel driver only, which reports no device on a machine
  without an Intel GPU (skipped where that driver is missing or finds a GPU);
* ``no-loader``: a private mount namespace (``unshare``) in which ``libvulkan.so.1`` is
  ``/dev/null``, so the dynamic linker cannot load it (skipped where namespaces are refused).

Exit status 0 when every check passed, 1 on a failure, 3 when every condition asked for was
skipped.
"""
from __future__ import annotations

import ctypes
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

import kp
import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, f32

SKIPPED = 3
INTEL_ICD = Path("/usr/share/vulkan/icd.d/intel_icd.x86_64.json")
# What every "Vulkan unavailable" message must name: the packages to install.
DRIVER_WORDS = ("install a Vulkan driver", "mesa-vulkan-drivers", "GPU vendor's driver")
LOADER_WORDS = ("libvulkan.so.1", "libvulkan1", "mesa-vulkan-drivers", "GPU vendor's driver")

KP_SHADER = """#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { float scale; };
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
void main() { y[gl_GlobalInvocationID.x] += scale * x[gl_GlobalInvocationID.x]; }
"""


def check(name: str, actual, expected, rtol: float = 1e-5, atol: float = 0.0) -> None:
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=name)
    print(f"ok   {name}")


def check_installed_copy() -> None:
    """The packages must come from the environment, not from a source tree on sys.path."""
    for module in (vd, kp):
        where = Path(module.__file__).resolve()
        if not where.is_relative_to(Path(sys.prefix).resolve()):
            raise AssertionError(f"{module.__name__} was imported from {where}, outside the "
                                 f"environment {sys.prefix}: run this script from elsewhere")
    print(f"ok   vkdispatch {vd.__version__} from {Path(vd.__file__).parent}")


def check_devices() -> None:
    devices = vd.get_devices()
    assert devices, "no Vulkan device"
    for device in devices:
        print(f"     device {device.dev_index}: {device.device_name}")
    print(f"ok   {len(devices)} device(s)")


def check_buffer(rng: np.random.Generator) -> None:
    data = rng.standard_normal((64, 33)).astype(np.float32)
    check("buffer round trip", vd.asbuffer(data).read(0), data, rtol=0)


def check_shader(rng: np.random.Generator) -> None:
    @vd.shader("y.size")
    def axpy(y: Buff[f32], x: Buff[f32], a: Const[f32]):
        i = vc.global_invocation_id().x
        y[i] = x[i] * a + y[i]

    x = rng.standard_normal(4097).astype(np.float32)
    y = rng.standard_normal(4097).astype(np.float32)
    y_buffer = vd.asbuffer(y)
    axpy(y_buffer, vd.asbuffer(x), 1.5)
    check("@vd.shader axpy", y_buffer.read(0), x * np.float32(1.5) + y, rtol=1e-6, atol=1e-6)


def complex_data(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


def check_fft(rng: np.random.Generator) -> None:
    x = complex_data(rng, (16, 512))
    buffer = vd.asbuffer(x)
    vd.fft.fft(buffer)
    check("vd.fft.fft", buffer.read(0), np.fft.fft(x), rtol=1e-4, atol=1e-3)


def check_convolve(rng: np.random.Generator) -> None:
    x, k = complex_data(rng, (8, 256)), complex_data(rng, (8, 256))
    signal, kernel = vd.asbuffer(x), vd.asbuffer(k)
    vd.fft.fft(kernel)
    vd.fft.convolve(signal, kernel)
    expected = np.fft.ifft(np.fft.fft(x) * np.conj(np.fft.fft(k)))
    check("vd.fft.convolve", signal.read(0), expected, rtol=1e-4, atol=1e-3)


def check_reduce(rng: np.random.Generator) -> None:
    @vd.reduce.map_reduce(vd.reduce.SubgroupAdd)
    def sum_of_squares(x: Buff[f32]) -> f32:
        i = vd.reduce.mapped_io_index()
        return x[i] * x[i]

    x = rng.standard_normal(100_003).astype(np.float32)
    total = sum_of_squares(vd.asbuffer(x)).read(0)[0]
    check("vd.reduce sum of squares", total, np.sum(x.astype(np.float64) ** 2), rtol=1e-4)


def check_kp(rng: np.random.Generator) -> None:
    x, y = rng.standard_normal(256).astype(np.float32), rng.standard_normal(256).astype(np.float32)
    manager = kp.Manager()
    tensors = [manager.tensor(x), manager.tensor(y)]
    algorithm = manager.algorithm(tensors, kp.Shader.compile_source(KP_SHADER), (4, 1, 1), [],
                                  [2.5])
    (manager.sequence()
        .record(kp.OpSyncDevice(tensors))
        .record(kp.OpAlgoDispatch(algorithm))
        .record(kp.OpSyncLocal(tensors))
        .eval())
    result = tensors[1].data().copy()
    manager.destroy()
    check("kp Manager/Tensor/Algorithm", result, y + np.float32(2.5) * x, rtol=1e-6, atol=1e-6)


# -- without Vulkan ---------------------------------------------------------------------------

def expect_unavailable(words: tuple[str, ...]) -> None:
    """In the child: imports work; the first calls that need a device fail, naming `words`."""
    def fails_naming_words(what: str, call) -> None:
        try:
            call()
        except vd.errors.VulkanUnavailableError as error:
            missing = [w for w in words if w not in str(error)]
            assert not missing, f"{what}: the message lacks {missing}: {error}"
            print(f"ok   {what}: {error}")
            return
        raise AssertionError(f"{what} did not raise VulkanUnavailableError")

    fails_naming_words("vd.get_devices()", vd.get_devices)
    fails_naming_words("vd.asbuffer()", lambda: vd.asbuffer(np.zeros(4, np.float32)))
    fails_naming_words("kp.Manager()", kp.Manager)
    cli = subprocess.run([sys.executable, "-m", "vkdispatch"], capture_output=True, text=True,
                         timeout=60)
    missing = [w for w in words if w not in cli.stderr]
    assert cli.returncode == 1 and not missing, f"python -m vkdispatch: {cli}"
    print("ok   python -m vkdispatch exits with 1 and says what to install")


def loader_path() -> str | None:
    """Where the dynamic linker finds libvulkan.so.1 (the file itself, links resolved)."""
    try:
        ctypes.CDLL("libvulkan.so.1")
    except OSError:
        return None
    for line in Path("/proc/self/maps").read_text().splitlines():
        if "libvulkan.so" in line:
            return os.path.realpath(line.split()[-1])
    return None


def child(condition: str) -> tuple[list[str], dict[str, str]] | str:
    """The command and environment that run this script under `condition`, or why not."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VKDISPATCH_BACKEND", "VK_ADD_DRIVER_FILES", "VK_INSTANCE_LAYERS")}
    command = [sys.executable, os.path.abspath(__file__), "--expect-unavailable"]
    if condition == "no-driver":
        missing = "/nonexistent/icd.json"
        env.update(VK_DRIVER_FILES=missing, VK_ICD_FILENAMES=missing)
        return command + ["driver"], env
    if condition == "no-device":
        if not INTEL_ICD.is_file():
            return f"{INTEL_ICD} is missing (Debian package mesa-vulkan-drivers)"
        env.update(VK_DRIVER_FILES=str(INTEL_ICD), VK_ICD_FILENAMES=str(INTEL_ICD))
        probe = subprocess.run([sys.executable, "-c", "import vkdispatch as vd; vd.get_devices()"],
                               env=env, capture_output=True, text=True, timeout=60)
        if probe.returncode == 0:
            return "Mesa's Intel driver finds a GPU on this machine"
        return command + ["driver"], env
    if condition == "no-loader":
        library = loader_path()
        if library is None:
            return "libvulkan.so.1 is already missing here"
        unshare = shutil.which("unshare")
        if unshare is None:
            return "unshare (util-linux) is missing"
        # --map-root-user: a user namespace, so that no root rights are needed where the kernel
        # allows unprivileged namespaces.
        hide = f"mount --bind /dev/null {shlex.quote(library)} && exec \"$@\""
        namespace = [unshare, "--user", "--map-root-user", "--mount", "sh", "-c", hide, "sh"]
        trial = subprocess.run(namespace + ["true"], capture_output=True, text=True)
        if trial.returncode != 0:
            return f"no private mount namespace here ({trial.stderr.strip()})"
        return namespace + command + ["loader"], env
    raise SystemExit(f"unknown condition {condition!r}")


def check_unavailable(conditions: list[str]) -> int:
    ran = 0
    for condition in conditions:
        how = child(condition)
        if isinstance(how, str):
            print(f"skip {condition}: {how}")
            continue
        command, env = how
        print(f"--   {condition}")
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        sys.stdout.write(result.stdout)
        if result.returncode != 0:
            sys.stdout.write(result.stderr)
            raise AssertionError(f"{condition}: the checks without Vulkan failed")
        ran += 1
    return 0 if ran else SKIPPED


CONDITIONS = ["no-driver", "no-device", "no-loader"]


def main(argv: list[str]) -> int:
    if argv[:1] == ["--expect-unavailable"]:
        expect_unavailable(LOADER_WORDS if argv[1:] == ["loader"] else DRIVER_WORDS)
        return 0
    if argv[:1] == ["--unavailable"]:
        return check_unavailable(argv[1:] or CONDITIONS)
    check_installed_copy()
    check_devices()
    rng = np.random.default_rng(36)
    for run in (check_buffer, check_shader, check_fft, check_convolve, check_reduce, check_kp):
        run(rng)
    check_unavailable(CONDITIONS)
    print("smoke test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
