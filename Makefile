# The two commands a user needs: `make demo` and `make test` (both run `setup` first); `make wheel`
# makes the binary wheel for other distributions.
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
NATIVE_BUILD := build/native
SANITIZE_BUILD := build/sanitize
SANITIZERS := $(CURDIR)/vkdispatch_native/tests/sanitizers
NATIVE_SOURCES := $(shell find vkdispatch_native -name '*.cpp' -o -name '*.hpp' -o -name '*.c' \
                    -o -name '*.pyx' -o -name '*.pxd' -o -name '*.pxi' -o -name 'sources.txt')

.PHONY: setup test native-build test-native test-native-validation test-sanitize \
        test-sanitize-python test-python test-python-debug test-slow test-wheel wheel mutation demo \
        bench docs clean

# Parallel compile jobs: one per core, but no more than one per 1.5 GB of available memory.
JOBS ?= $(shell awk -v cores=$$(nproc) '/^MemAvailable:/ { jobs = int($$2 / 1572864); \
          print (jobs < 1 ? 1 : jobs > cores ? cores : jobs) }' /proc/meminfo)

setup: .setup-done vkdispatch/.native-built

# Builds and installs the extension in place: `pip install $(1)`. Its output goes to a log shown
# only when the build fails; PYTHONWARNINGS hides setuptools' UserWarnings on success and failure
# alike (its pyproject.toml support "is still *beta*", InformationOnly notes).
EXTENSION_LOG := build/extension-build.log
build_extension = \
  echo "building the native extension (C++ and Cython, about 2 minutes on 2 cores)..."; \
  mkdir -p build; \
  PYTHONWARNINGS=ignore::UserWarning $(VPY) -m pip install -q --no-build-isolation $(1) \
    > $(EXTENSION_LOG) 2>&1 || { cat $(EXTENSION_LOG); \
    echo "building the native extension failed (log: $(EXTENSION_LOG))"; exit 1; }

# Installs the requirements of the extra $(1) (read from the installed package's metadata, which
# `make setup` wrote from pyproject.toml) when module $(2) is missing. Not `pip install -e
# '.[$(1)]'`: that would rebuild the native extension.
install_extra = $(VPY) -c 'import $(2)' 2>/dev/null || { \
  echo "installing the $(1) extra"; \
  $(VPY) -c 'import importlib.metadata as m; print(*(r.split(";")[0] for r in \
    m.requires("vkdispatch") if r.endswith("extra == \"$(1)\"")), sep="\n")' \
    | xargs $(VPY) -m pip install -q; }

# System packages, the virtual environment and the editable install with the test extra.
.setup-done: deps/debian-packages.txt pyproject.toml
	bash deps/install.sh
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q "setuptools>=64" wheel "Cython>=3" "numpy>=2"
	@$(call build_extension,-e '.[test]')
	touch vkdispatch/.native-built $@

# Rebuilds the extension in place whenever a native source changed since the last build
# (the first build happens in .setup-done).
vkdispatch/.native-built: setup.py $(NATIVE_SOURCES) | .setup-done
	@if [ ! -e $@ ] || [ -n "$$(find setup.py $(NATIVE_SOURCES) -newer $@)" ]; then \
	  $(call build_extension,--no-deps -e .); touch $@; fi

# Each suite's output goes to $(RESULTS)/<suite>.log, its JUnit XML (where it makes one) to
# <suite>.xml, its exit status and seconds to <suite>.status; tests/summary.py reads them.
RESULTS := build/test-results
TEST_SUITES := native native-validation sanitize python python-debug wheel

# $(call logged,LOG,COMMANDS): COMMANDS (a build) with their output in LOG, whose last 40 lines
# are shown only when they fail.
logged = mkdir -p $(dir $(1)) && { $(2); } > $(1) 2>&1 || { tail -40 $(1); \
  echo "failed (whole log: $(1))"; exit 1; }

# $(call run_suite,SUITE,COMMANDS): runs a suite's tests, then prints what tests/summary.py
# makes of them: one line inside `make test` (which ends with the summary of every suite), this
# suite's whole summary (skip reasons, failures) when its target runs alone. Fails when the
# suite failed.
run_suite = mkdir -p $(RESULTS) && rm -f $(RESULTS)/$(1).* \
  && echo "test-$(1): running (output: $(RESULTS)/$(1).log)" && suite_start=$$(date +%s) \
  && { ( $(2) ) > $(RESULTS)/$(1).log 2>&1; \
       echo "$$? $$(( $$(date +%s) - suite_start ))" > $(RESULTS)/$(1).status; } \
  && $(VPY) tests/summary.py $(if $(IN_MAKE_TEST),--brief) $(RESULTS) $(1)

# Every suite runs, even after one failed; the exit status says whether all passed.
test: setup
	@rm -rf $(RESULTS); failed=0; \
	for suite in $(TEST_SUITES); do \
	  $(MAKE) --no-print-directory test-$$suite IN_MAKE_TEST=1 || failed=1; \
	done; \
	$(VPY) tests/summary.py $(RESULTS) $(TEST_SUITES) || failed=1; \
	exit $$failed

native-build: setup $(NATIVE_BUILD)/.built

# Built again only when a native source, build file or C++ example changed (make test reaches
# native-build from two suites; the second found nothing to do but still said it was building).
$(NATIVE_BUILD)/.built: $(NATIVE_SOURCES) $(shell find vkdispatch_native examples/kompute -type f \
                          \( -name CMakeLists.txt -o -name '*.cmake' -o -path '*/examples/*' \)) \
                        | .setup-done
	@echo "building the native tests (log: $(NATIVE_BUILD)/build.log)..."
	@$(call logged,$(NATIVE_BUILD)/build.log,cmake -S vkdispatch_native -B $(NATIVE_BUILD) \
	  -DCMAKE_BUILD_TYPE=Release && cmake --build $(NATIVE_BUILD) -j $(JOBS))
	@touch $@

test-native: native-build
	@$(call run_suite,native,ctest --test-dir $(NATIVE_BUILD) --output-on-failure \
	  --output-junit $(CURDIR)/$(RESULTS)/native.xml)

# The native gtest suite once more under the Khronos validation layer, synchronization
# validation included (the tests' own instances do not ask for it): any validation message in
# its output fails the suite (the first ten are in its summary).
VALIDATION_MESSAGES := VUID|Validation Error|SYNC-HAZARD
VALIDATION_RUN = VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation \
  VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT \
  $(NATIVE_BUILD)/vkdispatch_tests --gtest_output=xml:$(RESULTS)/native-validation.xml; \
  status=$$?; if grep -qE "$(VALIDATION_MESSAGES)" $(RESULTS)/native-validation.log; then \
    { echo "validation messages in its output:"; \
      grep -m 10 -E "$(VALIDATION_MESSAGES)" $(RESULTS)/native-validation.log; } \
      > $(RESULTS)/native-validation.note; exit 1; fi; exit $$status
test-native-validation: native-build
	@$(call run_suite,native-validation,$(VALIDATION_RUN))

# The native gtest suite again, built with AddressSanitizer + UBSan (about 3 minutes on 2 cores,
# most of it compiling). Any report fails the test that made it. Leaks in libraries that are not
# ours: lsan.supp.
SANITIZE_ENV := ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 \
  LSAN_OPTIONS=suppressions=$(SANITIZERS)/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
test-sanitize: .setup-done
	@echo "building the native tests with the sanitizers (log: $(SANITIZE_BUILD)/build.log)..."
	@$(call logged,$(SANITIZE_BUILD)/build.log,cmake -S vkdispatch_native -B $(SANITIZE_BUILD) \
	  -DCMAKE_BUILD_TYPE=Debug -DVKDISPATCH_SANITIZE=ON \
	  && $(SANITIZE_ENV) cmake --build $(SANITIZE_BUILD) -j $(JOBS))
	@$(call run_suite,sanitize,$(SANITIZE_ENV) ctest --test-dir $(SANITIZE_BUILD) \
	  --output-on-failure --output-junit $(CURDIR)/$(RESULTS)/sanitize.xml)

# The fuzz and race modules (and DLPack's hand-made capsules) against a copy of the extension
# built with AddressSanitizer + UBSan (in build/sanitize-python; about 25 minutes on 2 cores,
# every source at once: not in `make test`). Python itself is not instrumented: libasan is preloaded, and leak detection is off
# (the interpreter's own allocations at exit). A report stops the run; its text is in
# build/sanitize-python/report.*.
SANITIZE_PY := build/sanitize-python
SANITIZE_PY_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
  -fno-sanitize-recover=undefined -O1 -g
SANITIZE_PY_TESTS := tests/lifecycle/test_destroy_races.py tests/kp/test_kp_destroy_races.py \
  tests/kp/test_fuzz_kp.py $(wildcard tests/device/test_fuzz_*.py) tests/device/test_dlpack.py
test-sanitize-python: .setup-done
	rm -rf $(SANITIZE_PY) && mkdir -p $(SANITIZE_PY)
	cp -r setup.py pyproject.toml vkdispatch kp vkdispatch_native tests $(SANITIZE_PY)/
	rm -f $(SANITIZE_PY)/vkdispatch/_native*.so $(SANITIZE_PY)/vkdispatch_native/bindings/wrapper.cpp
	cd $(SANITIZE_PY) && CFLAGS="$(SANITIZE_PY_FLAGS)" CXXFLAGS="$(SANITIZE_PY_FLAGS)" \
	  LDFLAGS="-fsanitize=address,undefined" $(CURDIR)/$(VPY) setup.py -q build_clib \
	  build_ext --inplace -j $(JOBS) > build.log 2>&1 || { tail -40 build.log; exit 1; }
	cd $(SANITIZE_PY) && LD_PRELOAD="$$(gcc -print-file-name=libasan.so) \
	  $$(gcc -print-file-name=libubsan.so)" \
	  ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:log_path=$(CURDIR)/$(SANITIZE_PY)/report \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$(CURDIR)/$(SANITIZE_PY)/report \
	  $(CURDIR)/$(VPY) -m pytest -q -p no:cacheprovider $(SANITIZE_PY_TESTS) \
	  || { cat $(CURDIR)/$(SANITIZE_PY)/report.* 2>/dev/null | head -60; exit 1; }

test-python: setup
	@$(call run_suite,python,VKDISPATCH_REQUIRE_DEVICE=1 $(VPY) -m pytest -q -rs \
	  --junitxml=$(RESULTS)/python.xml tests)

# The same suite with the Vulkan validation layers on: any validation error fails a test. It
# also forces coarsening on (factor 2, where a shader allows it), which the CPU device's default
# leaves off in test-python: every device test runs both ways.
test-python-debug: setup
	@$(call run_suite,python-debug,VKDISPATCH_REQUIRE_DEVICE=1 VKDISPATCH_DEBUG=1 \
	  VKDISPATCH_COARSEN=2 $(VPY) -m pytest -q -rs --junitxml=$(RESULTS)/python-debug.xml \
	  tests/device tests/lifecycle tests/kp)

# The binary wheel, in dist/: shaderc, glslang, SPIRV-Tools and volk linked in, VkFFT compiled
# in; the Vulkan loader is dlopen()ed at run time (volk), never bundled. Built for the Python of
# .venv from a copy of the sources in build/wheel (not from the in-place build), without debug
# information, then repaired by auditwheel (the `wheel` extra) to the manylinux tag its symbols
# allow (about 2 minutes on 2 cores, most of it compiling; rebuilt only when a source changed).
WHEEL_BUILD := build/wheel
WHEEL_NAME := $(WHEEL_BUILD)/name
PACKAGE_SOURCES := $(shell find vkdispatch kp -name '*.py')
wheel: $(WHEEL_NAME)
	@test -f "dist/$$(cat $(WHEEL_NAME))" || { rm -f $(WHEEL_NAME); \
	  $(MAKE) --no-print-directory $(WHEEL_NAME); }

$(WHEEL_NAME): .setup-done setup.py pyproject.toml README.md $(NATIVE_SOURCES) $(PACKAGE_SOURCES)
	@$(call install_extra,wheel,auditwheel)
	rm -rf $(WHEEL_BUILD) && mkdir -p $(WHEEL_BUILD) dist
	cp -r setup.py pyproject.toml README.md vkdispatch kp vkdispatch_native $(WHEEL_BUILD)/
	find $(WHEEL_BUILD) \( -name '*.so' -o -name __pycache__ -o -name .native-built \
	  -o -name wrapper.cpp \) -prune -exec rm -rf {} +
	@echo "building the wheel (log: $(WHEEL_BUILD)/build.log)..."
	cd $(WHEEL_BUILD) && CFLAGS=-g0 LDFLAGS=-Wl,--strip-all PYTHONWARNINGS=ignore::UserWarning \
	  $(CURDIR)/$(VPY) -m pip wheel -q --no-build-isolation --no-deps -w plain . \
	  > build.log 2>&1 || { tail -40 build.log; exit 1; }
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/auditwheel repair -w $(WHEEL_BUILD)/repaired \
	  $(WHEEL_BUILD)/plain/vkdispatch-*.whl
	cp $(WHEEL_BUILD)/repaired/vkdispatch-*.whl dist/
	cd $(WHEEL_BUILD)/repaired && ls vkdispatch-*.whl > ../name
	@PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/auditwheel show dist/$$(cat $@)
	@ls -l dist/$$(cat $@) | awk '{printf "%s: %.1f MB\n", $$NF, $$5 / 1e6}'

# The wheel installed into a fresh virtual environment in a temporary folder (outside the
# checkout, so the sources are not on sys.path), where tests/wheel/smoke.py checks devices,
# buffers, a shader, FFT, convolution, reduction and kp against numpy, then import and errors
# without a Vulkan driver, device or loader (PYTHONPATH unset: it may name the checkout). The
# wheel's build (`make wheel`) prints into $(RESULTS)/wheel-build.log.
WHEEL_SMOKE = unset PYTHONPATH; tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT \
  && wheel="$(CURDIR)/dist/$$(cat $(WHEEL_NAME))" && $(VPY) -m venv "$$tmp/venv" \
  && cd "$$tmp" && start=$$(date +%s.%N) \
  && "$$tmp/venv/bin/python" -m pip install -q "$$wheel" \
  && awk "BEGIN { printf \"pip install of the wheel: %.1f s\\n\", $$(date +%s.%N) - $$start }" \
  && "$$tmp/venv/bin/python" "$(CURDIR)/tests/wheel/smoke.py"
test-wheel: .setup-done
	@echo "building the wheel (log: $(RESULTS)/wheel-build.log)..."
	@$(call logged,$(RESULTS)/wheel-build.log,$(MAKE) --no-print-directory wheel)
	@$(call run_suite,wheel,$(WHEEL_SMOKE))

test-slow: setup
	$(VPY) -m pytest -q -m slow tests

# Deliberate bugs (tests/mutation/catalog.py), one at a time: each must make a test fail. Not in
# `make test`: it edits the checkout while it runs and rebuilds the native tests per mutant.
mutation: setup
	$(VPY) tests/mutation/run.py

# The demo extra: matplotlib, for the PNG of examples/template_matching.py.
demo: setup
	@$(call install_extra,demo,matplotlib)
	$(VPY) examples/demo.py
	$(VPY) examples/shaders.py
	$(VPY) examples/template_matching.py

bench: setup
	$(VPY) benchmarks/transfer.py
	$(VPY) benchmarks/dispatch.py
	$(VPY) benchmarks/elementwise.py
	$(VPY) benchmarks/buffer_copy.py
	$(VPY) benchmarks/fft.py
	$(VPY) benchmarks/fft_kinds.py
	$(VPY) benchmarks/fft_passes.py
	$(VPY) benchmarks/fft_registers.py
	$(VPY) benchmarks/fft_parts.py
	$(VPY) benchmarks/image_sampling.py

docs: setup
	@$(call install_extra,docs,sphinx)
	$(VPY) -m sphinx -W --keep-going -b html docs docs/_build/html

clean:
	rm -rf build $(VENV) .setup-done vkdispatch/.native-built docs/_build
	rm -f vkdispatch/_native*.so vkdispatch_native/bindings/wrapper.cpp
