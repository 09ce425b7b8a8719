"""The on-disk caches (vkdispatch.base.disk_cache): compiled SPIR-V and generated Python code are
stored once and read back by later processes, damaged or foreign entries are recompiled, and
VKDISPATCH_CACHE=0 or an unwritable cache directory only costs the work the cache saves."""
from __future__ import annotations

import importlib
import marshal
import os

import pytest

from vkdispatch.base import disk_cache, shader_cache

generated_code = importlib.import_module("vkdispatch.shader.generated_code")


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("VKDISPATCH_CACHE", raising=False)
    monkeypatch.setattr(shader_cache._MemoryCache, "entries", {})
    generated_code._compiled.cache_clear()
    yield tmp_path
    generated_code._compiled.cache_clear()


class _FakeCompiler:
    """Stands in for the native module: 'SPIR-V' made from the source, calls counted."""

    def __init__(self):
        self.calls = 0

    def compiler_version(self):
        return "fake 1.0"

    def compile_glsl(self, source, name, optimization):
        self.calls += 1
        payload = source.encode().ljust(4 * (len(source) // 4 + 6), b"\0")
        return True, payload, ""


def _files(root, kind):
    folder = os.path.join(root, "vkdispatch", kind)
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def test_entries_are_written_whole_and_read_back(cache_home, rng):
    path = disk_cache.entry_path("things", "one.bin")
    data = rng.bytes(1000)
    disk_cache.write_entry(path, data)
    assert disk_cache.read_entry(path) == data
    disk_cache.write_entry(path, data[::-1])
    assert disk_cache.read_entry(path) == data[::-1]
    assert _files(cache_home, "things") == ["one.bin"]  # no temporary file left behind
    assert disk_cache.read_entry(disk_cache.entry_path("things", "missing.bin")) is None


def test_an_unwritable_cache_directory_is_ignored(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-directory"
    blocker.write_bytes(b"x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    path = disk_cache.entry_path("things", "one.bin")
    disk_cache.write_entry(path, b"data")  # no exception
    assert disk_cache.read_entry(path) is None


def test_spirv_is_compiled_once_then_read_from_disk_by_a_new_process(cache_home):
    compiler = _FakeCompiler()
    first = shader_cache.compile_glsl(compiler, "void main() { /* a */ }", "a")
    assert compiler.calls == 1 and len(_files(cache_home, "spirv")) == 1
    shader_cache._MemoryCache.entries.clear()  # what a new process starts with
    assert shader_cache.compile_glsl(compiler, "void main() { /* a */ }", "a") == first
    assert compiler.calls == 1
    shader_cache.compile_glsl(compiler, "void main() { /* b */ }", "b")
    assert compiler.calls == 2


def test_a_damaged_spirv_entry_is_compiled_again(cache_home):
    compiler = _FakeCompiler()
    first = shader_cache.compile_glsl(compiler, "void main() { }", "a")
    (name,) = _files(cache_home, "spirv")
    path = disk_cache.entry_path("spirv", name)
    disk_cache.write_entry(path, b"\x03\x02\x23")  # not whole words
    shader_cache._MemoryCache.entries.clear()
    assert shader_cache.compile_glsl(compiler, "void main() { }", "a") == first
    assert compiler.calls == 2
    assert disk_cache.read_entry(path) == first


def test_generated_code_is_loaded_from_disk_without_the_compiler(cache_home, monkeypatch, rng):
    source = "lambda args: (args[0] * 3 + args[1], len(args))"
    values = tuple(int(v) for v in rng.integers(-1000, 1000, size=2))
    expected = (values[0] * 3 + values[1], 2)
    assert generated_code.evaluate(source, {})(values) == expected
    assert len(_files(cache_home, "python")) == 1
    generated_code._compiled.cache_clear()  # a new process

    def no_compiler(*args, **kwargs):
        raise AssertionError("compiled again although the disk cache holds the code")
    monkeypatch.setattr(generated_code, "compile", no_compiler, raising=False)
    assert generated_code.evaluate(source, {})(values) == expected


@pytest.mark.parametrize("stored", [b"garbage", marshal.dumps(42),
                                    marshal.dumps(("lambda: 'another source'",
                                                   compile("lambda: 0", "x", "eval")))])
def test_a_damaged_or_foreign_code_entry_is_compiled_again(cache_home, stored):
    source = "lambda x: x * 2 + 1"
    path = generated_code._entry_path(source)
    disk_cache.write_entry(path, stored)
    assert generated_code.evaluate(source, {})(20) == 41
    stored_source, _code = marshal.loads(disk_cache.read_entry(path))
    assert stored_source == source  # the entry was replaced


def test_disabled_disk_cache_writes_nothing(cache_home, monkeypatch):
    monkeypatch.setenv("VKDISPATCH_CACHE", "0")
    compiler = _FakeCompiler()
    shader_cache.compile_glsl(compiler, "void main() { }", "a")
    assert generated_code.evaluate("lambda: 7", {})() == 7
    assert _files(cache_home, "spirv") == [] and _files(cache_home, "python") == []
