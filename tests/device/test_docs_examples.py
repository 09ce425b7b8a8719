"""Every Python block of README.md (```python) and of docs/*.rst (``.. code-block:: python``)
runs without raising, so the documentation shows what is true today.

A page's blocks run in order in one namespace (a block continues the ones above it), in a
fresh interpreter per page whose working directory is a temporary folder: pages close the
global context, make others, turn on debug mode or configure logging, none of which may reach
the rest of the suite. A failure names the page and the line of the block that raised, and the
traceback points at the page's own lines.

Two small tables say what the blocks cannot do on their own:

* ``SETUP``: the definitions of names a block uses without defining them (a buffer "of one
  shape", the GLSL of an algorithm), run in the page's namespace just before that block.
* ``SKIP``: blocks that cannot run here (torch on an NVIDIA GPU), with the reason.

Each entry is keyed by the page and a text that only its block contains; a test checks that
every key still finds its one block.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import traceback
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.rst"))]

# The page shows the program of examples/kompute/array_multiply.py; its shader is the one there.
_KERNEL_GLSL = ("import runpy\n"
                f"glsl = runpy.run_path({str(ROOT / 'examples/kompute/array_multiply.py')!r})"
                "['SHADER']\n")

SETUP = {
    ("fft.rst", "vd.fft.fft(out, inp, 2.0"):
        "inp = vd.asbuffer(np.random.rand(16, 256).astype(np.float32))\n"
        "out = vd.Buffer((16, 256), vd.float32)\n",
    ("fft.rst", "kernel = vd.asbuffer(k)"):
        "k = (np.random.rand(*x.shape) + 1j * np.random.rand(*x.shape)).astype(np.complex64)\n",
    ("fft.rst", "batch, n, k = 8, 1024, 256"):
        "buf = vd.Buffer((8, 1024, 1024), vd.complex64)\n"
        "kernel = vd.Buffer((8, 1024, 1024), vd.complex64)\n",
    ("fft.rst", "half_fft = ctx.get_callable()"):
        "inp = vd.asbuffer(np.random.rand(4, 1024).astype(np.complex64))\n"
        "out = vd.Buffer((4, 1024), vd.complex64)\n",
    ("first_steps.rst", "per_queue = -(-len(batch) // queues)"):
        "import vkdispatch.codegen as vc\n"
        "from vkdispatch.codegen.abbreviations import Buff, f32\n"
        "batch = np.random.rand(1000).astype(np.float32)\n"
        "@vd.shader('buf.size')\n"
        "def my_kernel(buf: Buff[f32]):\n"
        "    i = vc.global_invocation_id().x\n"
        "    buf[i] = buf[i] * 2.0\n",
    ("first_steps.rst", "upload = buffer.write_async(next_batch, 1)"):
        "with vd.create_context(queue_counts=3):  # the page's context may have one queue\n"
        "    buffer = vd.Buffer((per_queue,), vd.float32)\n"
        "    graph = vd.CommandGraph()\n"
        "    my_kernel(buffer, graph=graph)\n"
        "    other = vd.asbuffer(np.zeros(16, np.float32))\n"
        "next_batch = np.ones(per_queue, np.float32)\n",
    ("kompute.rst", "spirv = kp.Shader.compile_source(glsl)"): _KERNEL_GLSL,
    ("kompute.rst", "mgr.eval_algo_data_def([a, b, out], spirv_or_glsl)"):
        "spirv_or_glsl = glsl\n",
    ("kompute.rst", "kp.OpFFT(t, (8, 256)"): "rng = np.random.default_rng(0)\n",
    ("vkfft.rst", "prepare(buf, graph=graph)"):
        "import vkdispatch.codegen as vc\n"
        "from vkdispatch.codegen.abbreviations import Buff, c64, f32\n"
        "@vd.shader('buf.size')\n"
        "def prepare(buf: Buff[c64]):\n"
        "    i = vc.global_invocation_id().x\n"
        "    buf[i] = buf[i] * 2.0\n"
        "@vd.shader('out.size')\n"
        "def analyse(buf: Buff[c64], out: Buff[f32]):\n"
        "    i = vc.global_invocation_id().x\n"
        "    out[i] = buf[i].real\n"
        "out = vd.Buffer(buf.shape, vd.float32)\n",
}

SKIP = {
    ("first_steps.rst", "torch.from_dlpack(buffer)"):
        "needs torch on an NVIDIA GPU (CUDA views of buffers)",
}


class Block(NamedTuple):
    page: str
    line: int  # of the block's first line of code in the page
    source: str


def rst_blocks(path: Path) -> list[Block]:
    """The ``.. code-block:: python`` blocks of a reStructuredText page (options skipped)."""
    lines, blocks, i = path.read_text(encoding="utf-8").splitlines(), [], 0
    while i < len(lines):
        directive = re.match(r"(\s*)\.\. code-block::\s*python\s*$", lines[i])
        i += 1
        if directive is None:
            continue
        indent = len(directive.group(1))
        while i < len(lines) and re.match(r"\s+:[\w-]+:", lines[i]):
            i += 1
        start = i
        while i < len(lines) and (not lines[i].strip() or
                                  len(lines[i]) - len(lines[i].lstrip()) > indent):
            i += 1
        body = lines[start:i]
        first = next(n for n, text in enumerate(body) if text.strip())
        blocks.append(Block(path.name, start + first + 1,
                            textwrap.dedent("\n".join(body[first:])).rstrip() + "\n"))
    return blocks


def markdown_blocks(path: Path) -> list[Block]:
    """The ```` ```python```` fenced blocks of a Markdown page."""
    lines, blocks, i = path.read_text(encoding="utf-8").splitlines(), [], 0
    while i < len(lines):
        i += 1
        if lines[i - 1].strip() != "```python":
            continue
        start = i
        while lines[i].strip() != "```":
            i += 1
        blocks.append(Block(path.name, start + 1, "\n".join(lines[start:i]) + "\n"))
    return blocks


def page_blocks(path: Path) -> list[Block]:
    return markdown_blocks(path) if path.suffix == ".md" else rst_blocks(path)


def _entry(table: dict, block: Block):
    return next((value for (page, text), value in table.items()
                 if page == block.page and text in block.source), None)


def run_page(path: Path) -> int:
    """Runs the page's blocks in one namespace (in this interpreter); 1 at the first that
    raises, after printing where."""
    namespace = {"__name__": "__main__"}
    for block in page_blocks(path):
        reason = _entry(SKIP, block)
        if reason is not None:
            print(f"{block.page}:{block.line}: skipped ({reason})")
            continue
        setup = _entry(SETUP, block)
        try:
            if setup is not None:
                exec(compile(setup, f"<setup of {block.page}:{block.line}>", "exec"), namespace)
            # Padded so that tracebacks give the page's line numbers.
            code = compile("\n" * (block.line - 1) + block.source, str(path), "exec")
            exec(code, namespace)
        except BaseException:
            print(f"{block.page}:{block.line}: the block raised\n{traceback.format_exc()}",
                  file=sys.stderr)
            return 1
    if "vkdispatch" in sys.modules:  # the work the blocks queued finishes here, not at exit
        from vkdispatch.base.context import open_contexts
        for context in open_contexts():
            context.wait_idle()
    return 0


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.name)
def test_every_python_block_of_the_page_runs(page, context, tmp_path):
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    done = subprocess.run([sys.executable, __file__, str(page)], cwd=tmp_path, env=environment,
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.fail(f"{done.stderr[-6000:]}\n(what the page printed: {done.stdout[-2000:]})",
                    pytrace=False)


def test_every_table_entry_finds_one_block():
    """An entry whose block was edited away would silently stop applying."""
    blocks = [block for path in PAGES for block in page_blocks(path)]
    for page, text in [*SETUP, *SKIP]:
        found = [b.line for b in blocks if b.page == page and text in b.source]
        assert len(found) == 1, f"{page}: {text!r} is in the blocks at lines {found}"


def test_blocks_are_extracted_with_their_page_lines(tmp_path):
    """The extraction itself: a directive's options are skipped, a block ends where the
    indentation does (blank lines inside it kept), a fence where it closes."""
    rst = tmp_path / "page.rst"
    rst.write_text("Title\n\n.. code-block:: python\n   :caption: c\n\n   a = 1\n\n   b = a\n"
                   "\nText.\n\n.. code-block:: console\n\n   $ ls\n")
    assert page_blocks(rst) == [Block("page.rst", 6, "a = 1\n\nb = a\n")]
    markdown = tmp_path / "page.md"
    markdown.write_text("# T\n\n```python\nx = 2\n```\n\n```console\n$ ls\n```\n")
    assert page_blocks(markdown) == [Block("page.md", 4, "x = 2\n")]


if __name__ == "__main__":
    sys.exit(run_page(Path(sys.argv[1])))
