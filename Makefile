# The two commands a user needs: `make demo` and `make test` (both run `setup` first).
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
NATIVE_BUILD := build/native
NATIVE_SOURCES := $(shell find vkdispatch_native -name '*.cpp' -o -name '*.hpp' -o -name '*.c' \
                    -o -name '*.pyx' -o -name '*.pxd' -o -name 'sources.txt')

.PHONY: setup test test-native test-python test-python-debug test-slow mutation demo bench docs clean

setup: .setup-done vkdispatch/.native-built

# System packages, the virtual environment and the editable install with the test extra.
.setup-done: deps/debian-packages.txt pyproject.toml
	bash deps/install.sh
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q "setuptools>=64" wheel "Cython>=3" "numpy>=2"
	$(VPY) -m pip install -q --no-build-isolation -e '.[test]'
	touch vkdispatch/.native-built $@

# Rebuilds the extension in place whenever a native source changed since the last build
# (the first build happens in .setup-done).
vkdispatch/.native-built: setup.py $(NATIVE_SOURCES) | .setup-done
	@if [ ! -e $@ ] || [ -n "$$(find setup.py $(NATIVE_SOURCES) -newer $@)" ]; then \
	  echo "rebuilding the native extension"; \
	  $(VPY) -m pip install -q --no-build-isolation --no-deps -e . && touch $@; fi

test: setup test-native test-python test-python-debug

test-native: setup
	cmake -S vkdispatch_native -B $(NATIVE_BUILD) -DCMAKE_BUILD_TYPE=Release > /dev/null
	cmake --build $(NATIVE_BUILD) -j
	ctest --test-dir $(NATIVE_BUILD) --output-on-failure

test-python: setup
	VKDISPATCH_REQUIRE_DEVICE=1 $(VPY) -m pytest -q tests

# The same suite with the Vulkan validation layers on: any validation error fails a test.
test-python-debug: setup
	VKDISPATCH_REQUIRE_DEVICE=1 VKDISPATCH_DEBUG=1 $(VPY) -m pytest -q tests/device tests/lifecycle

test-slow: setup
	$(VPY) -m pytest -q -m slow tests

# Deliberate bugs (tests/mutation/catalog.py), one at a time: each must make a test fail. Not in
# `make test`: it edits the checkout while it runs and rebuilds the native tests per mutant.
mutation: setup
	$(VPY) tests/mutation/run.py

# The demo extra (matplotlib, for the PNG of examples/template_matching.py) is installed once:
# reinstalling the editable package would rebuild the native extension on every run.
demo: setup
	@$(VPY) -c 'import matplotlib' 2>/dev/null || \
	  $(VPY) -m pip install -q --no-build-isolation -e '.[demo]'
	$(VPY) examples/demo.py
	$(VPY) examples/shaders.py
	$(VPY) examples/template_matching.py

bench: setup
	$(VPY) benchmarks/transfer.py
	$(VPY) benchmarks/dispatch.py
	$(VPY) benchmarks/elementwise.py
	$(VPY) benchmarks/buffer_copy.py
	$(VPY) benchmarks/fft.py

docs: setup
	$(VPY) -m pip install -q -e '.[docs]'
	$(VPY) -m sphinx -W --keep-going -b html docs docs/_build/html

clean:
	rm -rf build $(VENV) .setup-done vkdispatch/.native-built docs/_build
	rm -f vkdispatch/_native*.so vkdispatch_native/bindings/wrapper.cpp
