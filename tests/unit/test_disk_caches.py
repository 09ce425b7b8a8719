"""The on-disk caches (vkdispatch.base.disk_cache): compiled SPIR-V and generated Python code are
stored once and read back by later processes, damaged or foreign entries are recompiled,
VKDISPATCH_CACHE=0 or an unwritable cache directory only costs the work the cache saves, and the
cache stays under its size bound by dropping the least recently used files."""
from __future__ import annotations

import contextlib
import importlib
import marshal
import os
import re
import subprocess
import sys

import pytest

from vkdispatch.base import disk_cache, shader_cache
from vkdispatch.errors import InvalidArgumentError

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


def _damage(path: str, how: str) -> None:
    """Damages the file of an entry as a disk or another program might."""
    with open(path, "rb") as handle:
        data = bytearray(handle.read())
    if how == "flipped byte":
        data[len(data) * 3 // 4] ^= 0x40
    elif how == "truncated":
        del data[len(data) // 2:]
    else:  # an entry of an older format: the payload alone
        data = data[disk_cache.ENTRY_OVERHEAD:]
    with open(path, "wb") as handle:
        handle.write(bytes(data))


@pytest.mark.parametrize("how", ["flipped byte", "truncated", "no header"])
def test_damaged_files_are_discarded_logged_and_made_again(cache_home, caplog, how):
    """The bytes of a damaged file never reach marshal or the driver: generated code and
    SPIR-V are made again and their entries rewritten whole."""
    source = "lambda x: (x * 7 - 3, 'some text to damage')"
    assert generated_code.evaluate(source, {})(5) == (32, "some text to damage")
    code_path = generated_code._entry_path(source)
    compiler = _FakeCompiler()
    spirv = shader_cache.compile_glsl(compiler, "void main() { /* damaged */ }", "a")
    (name,) = _files(cache_home, "spirv")
    spirv_path = disk_cache.entry_path("spirv", name)
    for path in (code_path, spirv_path):
        _damage(path, how)
    generated_code._compiled.cache_clear()
    shader_cache._MemoryCache.entries.clear()
    with caplog.at_level("INFO", logger="vkdispatch"):
        assert generated_code.evaluate(source, {})(5) == (32, "some text to damage")
        assert shader_cache.compile_glsl(compiler, "void main() { /* damaged */ }", "a") == spirv
    assert compiler.calls == 2
    assert sum("discarded the damaged cache entry" in r.getMessage() for r in caplog.records) == 2
    assert marshal.loads(disk_cache.read_entry(code_path))[0] == source
    assert disk_cache.read_entry(spirv_path) == spirv


def test_disabled_disk_cache_writes_nothing(cache_home, monkeypatch):
    monkeypatch.setenv("VKDISPATCH_CACHE", "0")
    compiler = _FakeCompiler()
    shader_cache.compile_glsl(compiler, "void main() { }", "a")
    assert generated_code.evaluate("lambda: 7", {})() == 7
    assert _files(cache_home, "spirv") == [] and _files(cache_home, "python") == []


@pytest.fixture
def bounded(cache_home, monkeypatch):
    """A fresh size budget (what a new process starts with) over the test's cache directory."""
    monkeypatch.setattr(disk_cache, "_budget", disk_cache._Budget())
    monkeypatch.delenv("VKDISPATCH_CACHE_SIZE", raising=False)
    return os.path.join(cache_home, "vkdispatch")


def _on_disk(root) -> dict[str, int]:
    """Bytes of every file under the cache, by path relative to it."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            found[os.path.relpath(path, root)] = os.path.getsize(path)
    return found


class _LruModel:
    """The reference: files in order of last use; over the bound, the oldest go until 7/8."""

    def __init__(self, limit):
        self.limit = limit
        self.sizes = {}

    def use(self, name):
        self.sizes[name] = self.sizes.pop(name)

    def write(self, name, size):
        self.sizes.pop(name, None)
        self.sizes[name] = size
        total = sum(self.sizes.values())
        if total > self.limit:
            for oldest in list(self.sizes):
                if total <= self.limit - self.limit // 8:
                    break
                total -= self.sizes.pop(oldest)


def test_cache_over_its_bound_loses_least_recently_used_entries_first(bounded, rng):
    limit = 20_000
    disk_cache.set_cache_size_limit(limit)
    model = _LruModel(limit)
    contents = {}
    for step in range(300):
        names = list(model.sizes)
        if names and rng.random() < 0.4:  # read back an entry still there
            name = names[rng.integers(len(names))]
            assert disk_cache.read_entry(os.path.join(bounded, name)) == contents[name]
            model.use(name)
            continue
        name = os.path.join(("spirv", "python", "vkfft")[step % 3], f"entry{rng.integers(80)}")
        contents[name] = rng.bytes(int(rng.integers(100, 3000)))
        disk_cache.write_entry(os.path.join(bounded, name), contents[name])
        model.write(name, len(contents[name]) + disk_cache.ENTRY_OVERHEAD)
        assert _on_disk(bounded) == model.sizes, f"step {step}"
        assert sum(model.sizes.values()) <= limit
    assert len(model.sizes) < len(contents)  # the bound was reached, and more than once


def test_recently_read_entries_survive_a_trim_that_removes_older_ones(bounded, rng):
    disk_cache.set_cache_size_limit(10_000)
    paths = [disk_cache.entry_path("spirv", f"{i}.spv") for i in range(9)]
    for path in paths:
        disk_cache.write_entry(path, rng.bytes(1000))
    for path in paths[:3]:
        disk_cache.read_entry(path)  # now the most recently used
    disk_cache.write_entry(disk_cache.entry_path("spirv", "new.spv"), rng.bytes(2000))
    survivors = set(_on_disk(bounded))
    assert {os.path.join("spirv", f"{i}.spv") for i in range(3)} <= survivors
    assert os.path.join("spirv", "new.spv") in survivors
    assert not {os.path.join("spirv", f"{i}.spv") for i in range(3, 6)} & survivors
    assert sum(_on_disk(bounded).values()) <= 10_000


def test_setting_a_smaller_limit_trims_at_once_and_none_restores_the_variable(bounded, rng,
                                                                              monkeypatch):
    for i in range(10):
        disk_cache.write_entry(disk_cache.entry_path("python", f"{i}"), rng.bytes(1000))
    assert sum(_on_disk(bounded).values()) == 10 * (1000 + disk_cache.ENTRY_OVERHEAD)
    disk_cache.set_cache_size_limit(4000)
    assert sorted(_on_disk(bounded)) == [os.path.join("python", f"{i}") for i in range(7, 10)]
    monkeypatch.setenv("VKDISPATCH_CACHE_SIZE", "3k")
    assert disk_cache.cache_size_limit() == 4000
    disk_cache.set_cache_size_limit(None)
    assert disk_cache.cache_size_limit() == 3 * 1024


@pytest.mark.parametrize("text, size", [("1048576", 2 ** 20), ("64K", 65536), ("512M", 2 ** 29),
                                        ("1G", 2 ** 30), (" 2 GiB ", 2 ** 31), ("3mb", 3 << 20)])
def test_size_variable_accepts_bytes_and_binary_units(bounded, monkeypatch, text, size):
    monkeypatch.setenv("VKDISPATCH_CACHE_SIZE", text)
    assert disk_cache.cache_size_limit() == size


def test_default_bound_is_256_mib(bounded):
    assert disk_cache.cache_size_limit() == 256 * 2 ** 20 == disk_cache.DEFAULT_CACHE_SIZE_LIMIT


@pytest.mark.parametrize("text", ["0", "-5", "lots", "12T", "1.5G"])
def test_bad_size_variable_is_refused_naming_it(bounded, monkeypatch, text):
    monkeypatch.setenv("VKDISPATCH_CACHE_SIZE", text)
    with pytest.raises(InvalidArgumentError, match=f"VKDISPATCH_CACHE_SIZE must be a positive "
                                                   f"size .* got '{re.escape(text)}'"):
        disk_cache.cache_size_limit()


@pytest.mark.parametrize("size", [0, -1, True, 1.5, "1G"])
def test_bad_size_limit_is_refused(bounded, size):
    with pytest.raises(InvalidArgumentError, match=f"size must be a positive .* got "
                                                   f"{re.escape(repr(size))}"):
        disk_cache.set_cache_size_limit(size)
    assert disk_cache.cache_size_limit() == disk_cache.DEFAULT_CACHE_SIZE_LIMIT


def test_files_removed_by_another_process_during_a_trim_are_skipped(bounded, rng, monkeypatch):
    disk_cache.set_cache_size_limit(8000)
    paths = [disk_cache.entry_path("vkfft", f"{i}") for i in range(7)]
    for path in paths:
        disk_cache.write_entry(path, rng.bytes(1000))
    listing = disk_cache._listing

    def racing_listing(folder):
        entries = listing(folder)
        if folder.endswith("vkfft"):  # another process trims after this one listed the folder
            for path in paths[:4]:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
        return entries
    monkeypatch.setattr(disk_cache, "_listing", racing_listing)
    disk_cache.write_entry(disk_cache.entry_path("vkfft", "late"), rng.bytes(2500))
    assert sum(_on_disk(bounded).values()) <= 8000
    assert disk_cache.read_entry(paths[0]) is None  # a miss, not an error
    assert disk_cache.read_entry(disk_cache.entry_path("vkfft", "late")) is not None


SHARING_CHILD = '''
import hashlib, os, random, sys
from vkdispatch.base import disk_cache

disk_cache.set_cache_size_limit(int(sys.argv[1]))
rng = random.Random(int(sys.argv[2]))
def content(key):
    return hashlib.sha256(key.encode()).digest() * (1 + int(key) % 40)
for _ in range(400):
    key = str(rng.randrange(200))
    path = disk_cache.entry_path("spirv", key)
    data = disk_cache.read_entry(path)
    assert data is None or data == content(key), key
    if data is None:
        disk_cache.write_entry(path, content(key))
'''


def test_processes_sharing_the_cache_trim_it_without_errors(bounded, tmp_path):
    limit = 30_000
    children = [subprocess.Popen([sys.executable, "-c", SHARING_CHILD, str(limit), str(seed)],
                                 env=dict(os.environ, XDG_CACHE_HOME=str(tmp_path)),
                                 stderr=subprocess.PIPE, text=True) for seed in range(3)]
    for child in children:
        _, errors = child.communicate(timeout=120)
        assert child.returncode == 0, errors
    # Each process lists the cache again after limit/8 bytes of its own writes, so the others'
    # writes since can overshoot the bound by at most that much each.
    assert sum(_on_disk(bounded).values()) <= limit + 3 * (limit // 8 + 1300)
