"""Template matching: finds small templates in a large noisy image by FFT cross-correlation.

The image is a smooth random background, each template added once at a random position (the
templates are random shapes, each upright and rotated by 90 and 180 degrees: a rotated copy
counts as a template of its own), plus Gaussian noise. Every template is normalised to zero
mean and unit norm, so the correlation peaks of different templates are comparable, and its
spectrum is computed once on the device (``vd.fft.rfft2``). One ``vd.fft.convolve2DR`` call
then correlates the image with all templates at once: a batch of B copies of the image
(copied on the device from one upload) against a batch of B template spectra, three
FFT dispatches in all. The peak of each template's correlation map is where that template sits
(its top-left corner); two ``vd.reduce`` reductions find it on the device
(``device_peaks``: the maximum per map, then the first position holding it).

    python examples/template_matching.py                  # 256 x 256, runs in seconds on lavapipe
    python examples/template_matching.py --size 2048      # on a GPU (an H100: about 1 ms)
    python examples/template_matching.py --no-plot --templates 24 --noise 0.75 --seed 3

The side must be an FFT length vd.fft supports (prime factors up to 13). Columns longer than
one workgroup holds (4096 on an H100) are convolved unfused, in more passes.

It prints the true and found positions, the peak scores and the time of the correlation on the
device, and saves a PNG (image, templates, correlation map with the peaks marked) when
matplotlib is installed (``pip install -e '.[demo]'``, which ``make demo`` does). The exit
status is 1 when a template was not found.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

import numpy as np

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, c64, f32, u32

ROTATIONS = (0, 90, 180)  # each shape upright and rotated counterclockwise (np.rot90)
CELLS = 8           # a shape is drawn on CELLS x CELLS cells ...
SCALE = 3           # ... of SCALE x SCALE pixels: 24 x 24 templates
FILL = 22           # cells per shape
MAX_SIMILARITY = 0.6  # largest relative correlation of one template with another
CLUTTER = 0.5       # standard deviation of the smooth background ...
SMOOTH = 0.0025     # ... white noise low-pass filtered to about this many cycles per pixel
GAP = 4             # pixels at least between two pasted templates


@dataclass
class Template:
    name: str            # e.g. "B rot90"
    pattern: np.ndarray  # what is pasted into the image (0 and 1)
    kernel: np.ndarray   # the matched filter: the pattern, zero mean, unit norm (float64)


@dataclass
class Result:
    templates: list
    image: np.ndarray        # (size, size) float32, what the device correlated
    true: np.ndarray         # (B, 2) top-left (y, x) of each pasted template
    found: np.ndarray        # (B, 2) the peak of each correlation map
    scores: np.ndarray       # (B,) the correlation at the peak
    correlation: np.ndarray  # (B, size, size) float32, read back from the device
    gpu_seconds: float       # one correlation on the device (best of the repeated runs)
    first_seconds: float     # recording and running the first one (shaders built, or cached)
    device: str

    @property
    def hits(self) -> np.ndarray:
        """Which templates were found at their true position (within one pixel each way)."""
        return np.abs(self.found - self.true).max(axis=1) <= 1


def random_shape(rng: np.random.Generator) -> np.ndarray:
    """A random connected shape: FILL cells grown from the middle of the grid, one random
    neighbour of the shape at a time, drawn SCALE x SCALE pixels per cell (0 and 1)."""
    cells = np.zeros((CELLS, CELLS), dtype=bool)
    cells[CELLS // 2, CELLS // 2] = True
    while cells.sum() < FILL:
        grown = cells.copy()
        grown[1:] |= cells[:-1]
        grown[:-1] |= cells[1:]
        grown[:, 1:] |= cells[:, :-1]
        grown[:, :-1] |= cells[:, 1:]
        border = np.argwhere(grown & ~cells)
        cells[tuple(border[rng.integers(len(border))])] = True
    return np.kron(cells, np.ones((SCALE, SCALE)))


def similarities(templates: list) -> np.ndarray:
    """similarities[a, b]: the largest correlation of template a's matched filter with
    template b's pattern at any shift (partly or fully overlapping), relative to its peak on
    its own pattern (0 on the diagonal)."""
    side = templates[0].pattern.shape[0]
    size = 2 * side
    kernels = np.fft.rfft2([t.kernel for t in templates], s=(size, size))
    patterns = np.fft.rfft2([t.pattern for t in templates], s=(size, size))
    correlation = np.fft.irfft2(patterns[None] * np.conj(kernels[:, None]), s=(size, size))
    peaks = np.array([np.sum(t.kernel * t.pattern) for t in templates])
    result = correlation.max(axis=(2, 3)) / peaks[:, None]
    np.fill_diagonal(result, 0.0)
    return result


def make_templates(rng: np.random.Generator, count: int) -> list:
    """``count`` templates: random shapes, each upright, then rotated by 90 and 180 degrees
    (separate templates). A shape is drawn again while a template would look too much like
    another one (``similarities`` above MAX_SIMILARITY), so each has one clear best match."""
    if count < 1:
        raise ValueError(f"--templates must be at least 1, got {count}")
    templates = []
    for _ in range(100 * count):
        shape = random_shape(rng)
        index = len(templates) // len(ROTATIONS)
        name = chr(ord("A") + index % 26) + str(index // 26 or "")
        new = []
        for degrees in ROTATIONS[:count - len(templates)]:
            pattern = np.ascontiguousarray(np.rot90(shape, degrees // 90))
            kernel = pattern - pattern.mean()
            kernel /= np.linalg.norm(kernel)
            new.append(Template(name if degrees == 0 else f"{name} rot{degrees}", pattern,
                                kernel))
        if similarities(templates + new).max() <= MAX_SIMILARITY:
            templates += new
            if len(templates) == count:
                return templates
    raise ValueError(f"could not draw {count} templates distinct enough from each other; "
                     "use fewer --templates")


def place(rng: np.random.Generator, size: int, side: int, count: int) -> np.ndarray:
    """Random top-left corners of ``count`` non-overlapping side x side boxes (with GAP
    pixels between them) inside the image."""
    corners = []
    for _ in range(200 * count):
        corner = rng.integers(0, size - side + 1, size=2)
        if all(np.abs(corner - other).max() >= side + GAP for other in corners):
            corners.append(corner)
            if len(corners) == count:
                return np.array(corners)
    raise ValueError(f"{count} templates of {side} x {side} do not fit apart in a "
                     f"{size} x {size} image; use a larger --size or fewer --templates")


def make_scene(rng: np.random.Generator, size: int, templates: list, noise: float):
    """The image: smooth clutter (low-pass filtered white noise), the templates pasted at
    random positions (added), Gaussian noise of standard deviation ``noise``."""
    side = templates[0].pattern.shape[0]
    true = place(rng, size, side, len(templates))
    white = rng.standard_normal((size, size))
    f = np.fft.fftfreq(size)
    lowpass = np.exp(-(f[:, None] ** 2 + f[None, :] ** 2) / (2 * SMOOTH ** 2))
    clutter = np.fft.ifft2(np.fft.fft2(white) * lowpass).real
    image = clutter * (CLUTTER / clutter.std())
    for template, (y, x) in zip(templates, true):
        image[y:y + side, x:x + side] += template.pattern
    image += rng.standard_normal((size, size)) * noise
    return image.astype(np.float32), true


def template_spectra(templates: list, size: int) -> vd.RFFTBuffer:
    """rfft2 of each matched filter zero-padded to the image size, computed on the device:
    the kernel of ``vd.fft.convolve2DR`` (which multiplies by its conjugate: correlation)."""
    padded = np.zeros((len(templates), size, size), dtype=np.float32)
    for index, template in enumerate(templates):
        side = template.kernel.shape[0]
        padded[index, :side, :side] = template.kernel
    spectra = vd.asrfftbuffer(padded)
    vd.fft.rfft2(spectra)
    return spectra


def record_correlation(image: vd.RFFTBuffer, spectra: vd.RFFTBuffer,
                       work: vd.RFFTBuffer) -> vd.CommandGraph:
    """A graph that correlates the image with every template: copies the image into each
    slot of the batch ``work`` (device to device; convolve2DR works in place), then one
    batched convolve2DR: rfft, the fused multiply-by-conj(spectrum) convolution, irfft.
    Afterwards ``work[b]`` is the circular cross-correlation with template b:
    ``work[b][y, x] = sum_ij image[y + i, x + j] * kernel_b[i, j]`` (indices mod size).

    One batched call rather than one call per template: 3 dispatches in all instead of 3 per
    template, at the cost of B copies of the image on the device."""
    graph = vd.CommandGraph()
    for slot in range(spectra.real_shape[0]):
        vd.copy(work, image, dst_offset=slot * image.size, graph=graph)
    vd.fft.convolve2DR(work, spectra, graph=graph)
    return graph


def find_peaks(correlation: np.ndarray) -> tuple:
    """The position (y, x) and value of the maximum of each map of ``correlation`` (B, H, W),
    on the host: the reference :func:`device_peaks` is checked against."""
    count, height, width = correlation.shape
    flat = correlation.reshape(count, -1)
    index = flat.argmax(axis=1)
    found = np.stack(np.unravel_index(index, (height, width)), axis=1)
    return found, flat[np.arange(count), index]


def device_peaks(work: vd.RFFTBuffer) -> tuple:
    """:func:`find_peaks` on the device with ``vd.reduce``: the maximum of each map, then the
    first position holding it; reads back 2 x B numbers instead of B x H x W."""
    count, height, width = work.real_shape
    pairs = width // 2 + 1  # complex elements per padded real row (2 scalars each)
    per_map = height * pairs

    @vd.reduce.map_reduce(vd.reduce.SubgroupMax, axes=[1, 2])
    def peak_value(data: Buff[c64]) -> f32:
        i = vd.reduce.mapped_io_index()
        value = data[i]
        column = (i % pairs) * 2
        best = vc.new_float_register(vc.ninf_f32())
        with vc.if_block(column < width):
            best[:] = value.real
        with vc.if_block(column + 1 < width):
            best[:] = vc.max(best, value.imag)
        return best

    @vd.reduce.map_reduce(vd.reduce.SubgroupMin, axes=[1, 2])
    def peak_position(data: Buff[c64], peaks: Buff[f32]) -> u32:
        i = vd.reduce.mapped_io_index()
        value, peak = data[i], peaks[i // per_map]
        column = (i % pairs) * 2
        row = (i // pairs) % height
        position = vc.new_uint_register(0xFFFFFFFF)
        with vc.if_block(vc.all(column + 1 < width, value.imag == peak)):
            position[:] = row * width + column + 1
        with vc.if_block(vc.all(column < width, value.real == peak)):
            position[:] = row * width + column
        return position

    values = peak_value(work)
    scores = values.read(0).reshape(-1)[:count].copy()
    positions = peak_position(work, values).read(0).reshape(-1)[:count]
    found = np.stack(np.unravel_index(positions.astype(np.int64), (height, width)), axis=1)
    return found, scores


def run(size: int = 256, templates: int = 12, noise: float = 0.5, seed: int = 0,
        repeats: int = 3) -> Result:
    """Builds the scene, correlates on the current device, finds the peaks."""
    if vd.fft.pad_dim(size) != size:
        raise ValueError(f"--size {size} is not an FFT length vd.fft supports (prime factors "
                         f"2, 3, 5, 7, 11, 13); the next one is {vd.fft.pad_dim(size)}")
    rng = np.random.default_rng(seed)
    chosen = make_templates(rng, templates)
    image, true = make_scene(rng, size, chosen, noise)

    image_buffer = vd.asrfftbuffer(image)
    spectra = template_spectra(chosen, size)
    work = vd.RFFTBuffer((len(chosen), size, size))
    start = time.perf_counter()
    graph = record_correlation(image_buffer, spectra, work)
    graph.submit()
    vd.queue_wait_idle()
    first = time.perf_counter() - start
    best = float("inf")
    for _ in range(max(repeats, 1)):
        start = time.perf_counter()
        graph.submit()
        vd.queue_wait_idle()
        best = min(best, time.perf_counter() - start)

    found, scores = device_peaks(work)
    correlation = work.read_real(0)  # for the picture
    device = vd.get_context().device_infos[0].device_name
    for buffer in (image_buffer, spectra, work):
        buffer.destroy()
    graph.destroy()
    return Result(chosen, image, true, found, scores, correlation, best, first, device)


def print_report(result: Result, size: int, noise: float) -> None:
    count = len(result.templates)
    side = result.templates[0].pattern.shape[0]
    print(f"device: {result.device}")
    print(f"image {size} x {size}, {count} templates of {side} x {side}, noise sigma {noise}")
    print(f"\n{'template':<12} {'true (y, x)':>14} {'found (y, x)':>14} {'score':>8}")
    for template, true, found, score, hit in zip(result.templates, result.true, result.found,
                                                 result.scores, result.hits):
        mark = "" if hit else "   <- missed"
        print(f"{template.name:<12} {str(tuple(int(v) for v in true)):>14} "
              f"{str(tuple(int(v) for v in found)):>14} {score:8.3f}{mark}")
    print(f"\nfound {int(result.hits.sum())} of {count} templates")
    print(f"correlation on the device ({count} maps of {size} x {size}: image copies, rfft, "
          f"fused convolution, irfft): {result.gpu_seconds * 1e3:.2f} ms "
          f"(best of 3; the first, recording the graph and building its shaders: "
          f"{result.first_seconds * 1e3:.0f} ms)")


def save_plot(result: Result, path: str) -> bool:
    """The image with the true boxes and the found peaks, the templates, and the best
    correlation over all templates with the peaks marked; False without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Rectangle
    except ImportError:
        print("matplotlib is not installed: no plot saved (pip install -e '.[demo]', or "
              "`make demo`, installs it)")
        return False
    side = result.templates[0].pattern.shape[0]
    count = len(result.templates)
    columns = min(count, 3 if count <= 12 else 6)
    rows = -(-count // columns)
    figure = plt.figure(figsize=(18, 6.5))
    outer = figure.add_gridspec(1, 3, width_ratios=[1, 0.55, 1.1])

    image_axes = figure.add_subplot(outer[0])
    image_axes.imshow(result.image, cmap="gray", interpolation="nearest")
    image_axes.set_title("image: true boxes (green), found (red, dashed)")
    for template, (y, x), (fy, fx) in zip(result.templates, result.true, result.found):
        image_axes.add_patch(Rectangle((x - 0.5, y - 0.5), side, side, fill=False,
                                       edgecolor="lime", linewidth=1.2))
        image_axes.add_patch(Rectangle((fx - 1.5, fy - 1.5), side + 2, side + 2, fill=False,
                                       edgecolor="red", linewidth=1, linestyle="--"))
        image_axes.annotate(template.name, (x, y), xytext=(0, 3), textcoords="offset points",
                            color="yellow", fontsize=7)

    sheet = outer[1].subgridspec(rows, columns, hspace=0.45, wspace=0.15)
    for index, template in enumerate(result.templates):
        axes = figure.add_subplot(sheet[divmod(index, columns)])
        axes.imshow(template.kernel, cmap="gray", interpolation="nearest")
        axes.set_title(template.name, fontsize=8)
        axes.set_axis_off()

    map_axes = figure.add_subplot(outer[2])
    shown = map_axes.imshow(result.correlation.max(axis=0), cmap="magma",
                            interpolation="nearest")
    map_axes.plot(result.found[:, 1], result.found[:, 0], "o", markersize=11,
                  markerfacecolor="none", markeredgecolor="cyan")
    map_axes.set_title("correlation (max over the templates), peaks circled")
    figure.colorbar(shown, ax=map_axes, fraction=0.046)
    for axes in (image_axes, map_axes):
        axes.set_xticks([])
        axes.set_yticks([])
    figure.suptitle(f"template matching with vd.fft.convolve2DR on {result.device}: found "
                    f"{int(result.hits.sum())} of {count} templates")
    figure.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(figure)
    print(f"saved {path}")
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=256,
                        help="image side (default 256; 2048-4096 on a GPU)")
    parser.add_argument("--templates", type=int, default=12,
                        help="number of templates (default 12: 4 random shapes, each upright "
                             "and rotated by 90 and 180 degrees)")
    parser.add_argument("--noise", type=float, default=0.5,
                        help="standard deviation of the Gaussian noise; the templates have "
                             "contrast 1 (default 0.5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the scene (default 0)")
    parser.add_argument("--output", default="template_matching.png",
                        help="PNG path (default template_matching.png)")
    parser.add_argument("--no-plot", action="store_true", help="save no PNG")
    args = parser.parse_args(argv)
    try:
        result = run(args.size, args.templates, args.noise, args.seed)
    except ValueError as error:
        parser.error(str(error))
    print_report(result, args.size, args.noise)
    if not args.no_plot:
        save_plot(result, args.output)
    return 0 if result.hits.all() else 1


if __name__ == "__main__":
    sys.exit(main())
