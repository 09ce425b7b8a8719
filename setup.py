"""Builds the native extension ``vkdispatch._native`` from vkdispatch_native/.

Headers and static libraries are taken from the system, or from ``$VKDISPATCH_DEPS_PREFIX/usr``
when that variable is set (an offline host where the Debian packages were unpacked into a
prefix). shaderc, glslang and SPIRV-Tools are linked statically; volk is compiled in. VkFFT's
headers are Debian's (1.2.26), or a newer VkFFT's where ``$VKDISPATCH_VKFFT_INCLUDE`` names the
folder of its ``vkFFT.h`` (docs/vkfft.rst).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy  # build requirement: the package is built against numpy 2 (kp's views use its C API)
from Cython.Build import cythonize
from setuptools import Extension, setup

ROOT = Path(__file__).parent
NATIVE = Path("vkdispatch_native")
STATIC_LIBS = [
    "shaderc_combined", "glslang", "MachineIndependent", "GenericCodeGen", "OSDependent",
    "OGLCompiler", "SPIRV", "glslang-default-resource-limits", "SPIRV-Tools-opt", "SPIRV-Tools",
]


def dependency_dirs() -> tuple[list[str], list[str]]:
    """Include and library directories of the system packages (or of the unpacked prefix)."""
    prefix = os.environ.get("VKDISPATCH_DEPS_PREFIX")
    roots = [Path(prefix) / "usr"] if prefix else []
    roots.append(Path("/usr"))
    includes = [str(r / "include") for r in roots]
    libs = [str(r / "lib" / "x86_64-linux-gnu") for r in roots] + [str(r / "lib") for r in roots]
    return includes, [d for d in libs if Path(d).is_dir()]


def vkfft_includes(includes: list[str]) -> list[str]:
    """The folder of a newer VkFFT's vkFFT.h, to be searched before the system's, and
    glslang's C interface folder, which that vkFFT.h includes by its bare name; none by
    default."""
    folder = os.environ.get("VKDISPATCH_VKFFT_INCLUDE")
    if not folder:
        return []
    if not (Path(folder) / "vkFFT.h").is_file():
        raise SystemExit(f"VKDISPATCH_VKFFT_INCLUDE={folder}: no vkFFT.h in that folder")
    return [folder] + [str(Path(d) / "glslang" / "Include") for d in includes]


def native_sources() -> list[str]:
    lines = (ROOT / NATIVE / "sources.txt").read_text().splitlines()
    return [str(NATIVE / line) for line in lines if line and not line.startswith("#")]


def volk_source(includes: list[str]) -> str:
    for directory in includes:
        if (Path(directory) / "volk.c").is_file():
            return str(NATIVE / "src" / "util" / "volk.c")
    raise SystemExit("volk.c not found: install the Debian package libvulkan-volk-dev "
                     "(or run `make setup`)")


includes, lib_dirs = dependency_dirs()
common_includes = ([str(NATIVE / "include"), str(NATIVE / "bindings"), numpy.get_include()]
                   + vkfft_includes(includes) + includes)
link_group = ["-Wl,--start-group"] + [f"-l{name}" for name in STATIC_LIBS] + ["-Wl,--end-group"]
# The static libraries' symbols stay private to the extension: GPU drivers (NVIDIA's among them)
# export their own SPIRV-Tools/glslang symbols, which would otherwise replace ours at run time.
symbol_isolation = ["-Wl,--exclude-libs,ALL", "-Wl,-Bsymbolic"]

extension = Extension(
    "vkdispatch._native",
    sources=[str(NATIVE / "bindings" / "wrapper.pyx")] + native_sources(),
    include_dirs=common_includes,
    library_dirs=lib_dirs,
    define_macros=[("VK_NO_PROTOTYPES", None), ("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")],
    extra_compile_args=["-std=c++17", "-O2", "-Wno-missing-field-initializers"],
    extra_link_args=link_group + symbol_isolation + ["-lpthread", "-ldl"],
    language="c++",
)

setup(
    ext_modules=cythonize(
        [extension],
        include_path=[str(NATIVE / "bindings")],
        compiler_directives={"language_level": "3"},
    ),
    libraries=[("vkd_volk", {
        "sources": [volk_source(includes)],
        "include_dirs": includes,
        "macros": [("VK_NO_PROTOTYPES", None)],
        "cflags": ["-O2", "-fPIC"],
    })],
)
