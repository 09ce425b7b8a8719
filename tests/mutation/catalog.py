"""The deliberate bugs tests/mutation/run.py applies, one at a time, each with the tests that
must catch it. Each is a textual replacement that must match its file exactly once (the runner
refuses a stale entry). Kinds: "pytest" (arguments to pytest), "pytest-debug" (the same with
VKDISPATCH_DEBUG=1: validation layers with synchronization validation), "gtest" (a filter for
the native test binary, rebuilt first), "gtest-debug" (the same with VKDISPATCH_DEBUG=1).
Mutants of the Cython bridge are left out: each would rebuild the extension (minutes).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    name: str
    what: str
    path: str
    original: str
    mutated: str
    kind: str
    tests: str


OPERATORS = "vkdispatch/codegen/operators.py"
REVERSE_TESTS = ("tests/device/test_shader_reverse_operators.py "
                 "tests/device/test_shader_arithmetic.py")

FFT_TESTS = "tests/device/test_fft_transforms.py tests/device/test_fft_maps.py"
VKFFT_TESTS = "tests/device/test_vkfft.py"

MUTANTS = [
    Mutant("reverse-modulus", "7 % x emitted as x % 7", OPERATORS,
           "return self._modulus(other, reverse=True)", "return self._modulus(other)",
           "pytest", REVERSE_TESTS),
    Mutant("reverse-subtraction", "1 - x emitted as x - 1", OPERATORS,
           'return self._additive(other, "-", reverse=True)',
           'return self._additive(other, "-")', "pytest", REVERSE_TESTS),
    Mutant("reverse-floor-division", "7 // x emitted as x // 7", OPERATORS,
           "return self._floor_divide(other, reverse=True)", "return self._floor_divide(other)",
           "pytest", REVERSE_TESTS),
    Mutant("complex-swapped", "complex Const/Var values packed imaginary first",
           "vkdispatch/shader/packing.py", "np.stack([values.real, values.imag], axis=-1)",
           "np.stack([values.imag, values.real], axis=-1)", "pytest",
           "tests/device/test_shader_constant_types.py"),
    Mutant("all-buffers-read-only", "every buffer reported read-only to the barrier planner",
           "vkdispatch/shader/call_layout.py",
           "self.bindings = tuple((infos[i].binding, "
           "*description.binding_access[infos[i].binding])",
           "self.bindings = tuple((infos[i].binding, True, False)",
           "pytest-debug", "tests/device/test_shader_graph.py"),
    Mutant("uniform-outgrown-sets-kept", "descriptor sets kept when the uniform buffer grows",
           "vkdispatch/execution_pipeline/command_graph.py",
           "            self._uniform_buffer = Buffer((capacity,), dt.uint32)\n"
           "        self._descriptor_sets.clear()\n",
           "            self._uniform_buffer = Buffer((capacity,), dt.uint32)\n",
           "pytest", "tests/device/test_shader_graph.py"),
    Mutant("write-index-ignored", "Buffer.write(index=) writes every replica",
           "vkdispatch/base/buffer.py", "self._native.write(self._write_bytes(data), 0, target)",
           "self._native.write(self._write_bytes(data), 0, -1)", "pytest",
           "tests/device/test_multi_queue.py"),
    Mutant("write-async-index-ignored", "Buffer.write_async(index=) writes every replica",
           "vkdispatch/base/buffer.py", "self._native.write(raw, 0, target)",
           "self._native.write(raw, 0, -1)", "pytest", "tests/device/test_async_transfer.py"),
    Mutant("copy-dst-offset-ignored", "vd.copy's kernel writes from element 0",
           "vkdispatch/base/copy_kernel.py",
           'struct.pack("<4I", dst_byte // word, src_byte // word, size // word,',
           'struct.pack("<4I", 0, src_byte // word, size // word,', "pytest",
           "tests/device/test_buffer_copy.py"),
    Mutant("closed-context-stays-global", "close() leaves the global context installed",
           "vkdispatch/base/context.py",
           "            if _ContextSlot.current is self:\n"
           "                _ContextSlot.current = None\n",
           "", "pytest", "tests/device/test_contexts_many.py"),
    Mutant("war-hazard-missed", "the planner misses write-after-read",
           "vkdispatch_native/src/core/barrier_plan.cpp",
           "(writeBits(mask) != 0 && earlier->mask != 0)", "false", "gtest", "BarrierPlan.*"),
    Mutant("barrier-not-recorded", "planned barriers are not recorded",
           "vkdispatch_native/src/core/command.cpp",
           "    vkCmdPipelineBarrier(cb, vulkanStages(barrier.src), vulkanStages(barrier.dst), 0, "
           "1, &memory,\n"
           "                         0, nullptr, 0, nullptr);\n",
           "", "gtest", "RecordedBarriers*"),
    Mutant("staging-upload-offset-ignored", "staged uploads land at offset 0",
           "vkdispatch_native/src/memory/transfer_engine.cpp",
           "StagingCopyCommand::Direction::Upload, offset + done, n",
           "StagingCopyCommand::Direction::Upload, done, n", "gtest", "*TransferEngineTest*"),
    Mutant("pool-ignores-memory-type", "small buffers share blocks of another memory type",
           "vkdispatch_native/src/core/memory_pool.cpp",
           "        if (block->type_index != type_index) continue;\n", "", "gtest",
           "MemoryPoolPure*"),
    Mutant("hardware-queue-unlocked", "queues sharing a hardware queue submit unguarded",
           "vkdispatch_native/src/core/queue.cpp",
           "    std::lock_guard<std::mutex> hardware(*m_hardware_lock);\n    VK_CHECK(",
           "    VK_CHECK(", "gtest",
           "SharedHardwareQueue*"),
    Mutant("fft-rfft-twiddle-sign", "packed real FFT recombines with the inverse twiddle",
           "vkdispatch/fft/real_packing.py", "twiddle = runtime_twiddle(ct, k, 1, 2 * m, -1)",
           "twiddle = runtime_twiddle(ct, k, 1, 2 * m, 1)", "pytest", FFT_TESTS),
    Mutant("fft-plane-coupled-twiddles", "a plane's row stages keep the 1-D transform's "
           "coupling twiddles", "vkdispatch/fft/config.py",
           "return self.input_stride // self.interleaved", "return self.input_stride",
           "pytest", "tests/device/test_fft_plane.py"),
    Mutant("fft-plane-untransposed-store", "a plane is stored in line order, transposed",
           "vkdispatch/fft/plane.py",
           "_transposed(address, rows, cols), slot)]\n        buffer",
           "address, slot)]\n        buffer", "pytest", "tests/device/test_fft_plane.py"),
    Mutant("fft-plane-kernel-untransposed", "a plane convolution takes the kernel at the "
           "bin's line position, not its address", "vkdispatch/fft/plane.py",
           "sdata_index(_transposed(address, rows, cols), slot)] =",
           "sdata_index(address, slot)] =", "pytest", "tests/device/test_fft_plane.py"),
    Mutant("fft-rfft-nyquist-dropped", "packed real FFT never stores the bin X[N/2]",
           "vkdispatch/fft/real_packing.py", "buffer[line * half + m] = ",
           "buffer[line * half + 0] = ", "pytest", FFT_TESTS),
    Mutant("fft-four-step-twiddle", "two-pass FFT twiddles by W_N^(n1 k2) with the wrong sign",
           "vkdispatch/fft/multi_pass.py",
           "first * k2, 1, n, sign)", "first * k2, 1, n, -sign)", "pytest", FFT_TESTS),
    Mutant("fft-bluestein-chirp-sign", "Bluestein's chirp turns the other way",
           "vkdispatch/fft/bluestein.py", "sign = 1.0 if inverse else -1.0",
           "sign = -1.0 if inverse else 1.0", "pytest", "tests/device/test_fft_bluestein.py"),
    Mutant("fft-rader-wrong-root", "Rader's permutation from a root that is no generator",
           "vkdispatch/fft/rader.py", "divisors = set(prime_factors(p - 1))", "divisors = {2}",
           "pytest", "tests/device/test_fft_rader.py"),
    Mutant("fft-rader-first-input-dropped", "Rader's outputs miss the x[0] term",
           "vkdispatch/fft/rader.py", "    register[:] = register + first\n", "", "pytest",
           "tests/device/test_fft_rader.py"),
    Mutant("fft-rader-scatter-unreversed", "Rader's outputs stored at g^q instead of g^-q",
           "vkdispatch/fft/rader.py", "lines.power(table, op.fft_index, -1)",
           "lines.power(table, op.fft_index, 1)", "pytest", "tests/device/test_fft_rader.py"),
    Mutant("fft-shader-extent-unchecked", "a generated FFT shader takes a buffer too small",
           "vkdispatch/shader/shader_function.py", "        self._extents = dict(extents)\n",
           "", "pytest", "tests/device/test_fft_shader_extents.py"),
    Mutant("fft-double-twiddle-short", "double twiddles from a 4-term Taylor polynomial",
           "vkdispatch/fft/butterflies.py", "terms = 10", "terms = 4", "pytest", FFT_TESTS),
    Mutant("fft-no-exchange-barrier", "stages exchange shared memory without barriers",
           "vkdispatch/fft/sdata.py",
           "            vc.barrier()\n", "            pass\n", "pytest", FFT_TESTS),
    Mutant("fft-staged-clamp-off-by-one", "a partial group's missing lines load the wrong line",
           "vkdispatch/fft/iterators.py", "line = vc.min(line, line_count - 1)",
           "line = vc.min(line, line_count - 2)", "pytest",
           "tests/device/test_fft_transforms.py -k staged"),
    Mutant("fft-line-pitch-odd", "short lines' shared-memory rows back to an odd pitch",
           "vkdispatch/fft/grid.py", "        if self.threads == 1:\n            return padded | 1\n",
           "        return padded | 1\n", "pytest",
           "tests/unit/test_fft_planner.py -k line_pitch"),
    Mutant("host-view-without-wait", "a DLPack host view does not wait for the buffer's work",
           "vkdispatch_native/src/memory/buffer.cpp",
           "    if (!hostVisible(queue_index)) return nullptr;\n    waitForWork(queue_index);",
           "    if (!hostVisible(queue_index)) return nullptr;", "gtest", "Buffer.HostView*"),
    Mutant("dlpack-reimport-copies-nothing", "vd.from_dlpack of a reshaped view returns the "
           "buffer itself", "vkdispatch/base/dlpack.py",
           "return buffer if host == dtype and tuple(host_shape) == tuple(shape) else None",
           "return buffer", "pytest", "tests/device/test_dlpack.py"),
    Mutant("profile-table-counts-host-spans", "vd.profile()'s table sums host spans too",
           "vkdispatch/base/profile.py", "            if event.queue != HOST:\n",
           "            if True:\n", "pytest", "tests/device/test_profile.py"),
    Mutant("profiler-no-end-timestamp", "a profiled command gets no timestamp after it",
           "vkdispatch_native/include/vkdispatch/profiler.hpp",
           "            commands();\n            mark(cb, std::string(), true);",
           "            commands();", "gtest", "Profiler.*"),
    Mutant("reduce-tree-drops-half", "the group tree keeps one half of each pair",
           "vkdispatch/reduce/stage.py",
           "sdata[tid] = _combine(reduction, out_type, sdata[tid], sdata[tid + size])",
           "sdata[tid] = sdata[tid]", "pytest", "tests/device/test_reduce.py"),
    Mutant("reduce-unrolled-tail", "the unrolled loop runs one step past the end",
           "vkdispatch/reduce/stage.py", "with vc.while_block(index + last < end):",
           "with vc.while_block(index < end):", "pytest", "tests/device/test_reduce.py"),
    Mutant("vkfft-shape-not-reversed", "VkFFT given the Python axes in Python order",
           "vkdispatch/vkfft/vkfft_config.py", "d = dims - 1 - position  #", "d = position  #",
           "pytest", VKFFT_TESTS),
    Mutant("vkfft-convolution-unscaled", "unnormalised convolutions keep VkFFT's W scale",
           "vkdispatch/vkfft/convolution.py", "if not normalize and height > 1:",
           "if False:", "pytest", VKFFT_TESTS),
    Mutant("vkfft-runs-at-offset-zero", "every run of a plan starts at byte 0",
           "vkdispatch_native/src/vkfft/vkfft_application.cpp",
           "params.bufferOffset = run * (s.buffer_bytes / s.runs);", "params.bufferOffset = 0;",
           "gtest", "VkfftStage.*"),
    Mutant("split-lines-keep-sixteen-registers", "a line split across shared memory plans "
           "with the default 16 registers", "vkdispatch/fft/config.py",
           "            self._plan(SPLIT_EXCHANGE_REGISTERS)", "            pass", "pytest",
           "tests/unit/test_fft_planner.py"),
    Mutant("convolution-lines-never-split", "vd.fft.convolve's long lines stay whole",
           "vkdispatch/fft/convolution.py",
           '"split_above_bytes": CONVOLUTION_WHOLE_LINE_BYTES}', '"split_above_bytes": None}',
           "pytest", "tests/unit/test_fft_planner.py"),
    Mutant("four-step-pass-a-wide-groups", "pass A groups 256 bytes of lines although its "
           "stores scatter them", "vkdispatch/fft/multi_pass.py",
           "StridedGroups(SCATTERED_RUN_BYTES, staged_stores=inner == 1)",
           "StridedGroups(staged_stores=inner == 1)", "pytest", "tests/unit/test_fft_planner.py"),
    Mutant("four-step-pass-a-unstaged", "pass A stores from its registers, its lines "
           "scattered, although each is one run", "vkdispatch/fft/multi_pass.py",
           "staged_stores=inner == 1", "staged_stores=False", "pytest",
           "tests/unit/test_fft_planner.py"),
    Mutant("staged-store-wrong-column", "a strided group's staged stores start every line "
           "at the thread's own lane", "vkdispatch/fft/iterators.py",
           "outer_offset = (grid.batch_offset - grid.inner).to_register()",
           "outer_offset = (grid.batch_offset - grid.lane).to_register()", "pytest",
           "tests/device/test_fft_multi_pass.py"),
    Mutant("staged-store-partial-unguarded", "a strided group's staged stores write the "
           "lines its last group lacks", "vkdispatch/fft/iterators.py",
           "first, line_count = (grid.inner - grid.lane).to_register(), config.fft_stride",
           "first, line_count = (grid.inner - grid.lane).to_register(), "
           "config.fft_stride + grid.inner_lines", "pytest",
           "tests/device/test_fft_multi_pass.py -k partial"),
    Mutant("staged-store-rows-unspread", "the staged rows' pitch leaves a subgroup's writes "
           "on a few banks", "vkdispatch/fft/grid.py",
           "return self._spread_pitch(n, positions, self.inner_lines) or n", "return n | 1",
           "pytest",
           "tests/unit/test_fft_planner.py"),
    Mutant("copy-tail-dropped", "vd.copy's kernel leaves out the 4-byte words after its "
           "last 16-byte word", "vkdispatch/base/copy_kernel.py",
           "    if (t < range.tail)", "    if (t < 0u)", "pytest",
           "tests/device/test_buffer_copy.py"),
    Mutant("exit-abandons-cpu-work", "the exit waits 2 s for a CPU device's work, as for a GPU's",
           "vkdispatch/base/shutdown.py",
           'return float("inf") if cpu else EXIT_WAIT_SECONDS', "return EXIT_WAIT_SECONDS",
           "pytest", "tests/device/test_interrupt.py"),
    Mutant("kp-push-constants-not-whole-words", "6 bytes of float16 push constants pushed as 6",
           "vkdispatch_native/src/kp/algorithm.cpp",
           "uint32_t pushRange(uint32_t bytes) { return (bytes + 3u) & ~3u; }",
           "uint32_t pushRange(uint32_t bytes) { return bytes; }", "gtest-debug",
           "KomputeFloat16Device.*"),
    Mutant("pipeline-statistics-device-unnamed", "a driver without pipeline statistics is "
           "refused without naming the device",
           "vkdispatch_native/src/compute/pipeline_statistics.cpp",
           "\"device \" + std::to_string(device_index) + \" ('\" + device.info().device_name +",
           "\"device \" + std::to_string(device_index) + \" ('\" +", "gtest",
           "PipelineStatistics.*"),
]
