"""Image rotation by hardware sampling: a non-square test picture goes into a ``vd.Image2D``,
and one shader call per angle writes the picture rotated about its centre, each output pixel
sampling the source (bilinear filtering, zero outside the picture) at the inversely rotated
position. The angles are replayed from one recorded graph, the angle a ``Var`` set per replay.

Every rotation is checked against a numpy bilinear model of the same mapping (and against
``scipy.ndimage.rotate`` when scipy is installed). A PNG (the picture, then each rotation) is
saved with the standard library alone.

    python examples/image_rotation.py                       # 240 x 320, angles 30, 90, 135
    python examples/image_rotation.py --angles 10 45 -60 --rows 480 --cols 640
    python examples/image_rotation.py --output rotated.png

The exit status is 1 when a rotation differs from the model by more than the sampler's
precision allows.
"""
from __future__ import annotations

import argparse
import struct
import sys
import zlib
from dataclasses import dataclass

import numpy as np

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, Img2, Var, f32, i32, v2

# Filtering weights have 8 bits of precision on common GPUs (at least 4 by Vulkan's rules):
# a rotated value may differ from the exact bilinear one by this fraction of the value range.
TOLERANCE = 1 / 16


@dataclass
class Result:
    picture: np.ndarray           # (rows, cols) float32, the source
    angles: list[float]           # degrees, counterclockwise as displayed
    rotated: np.ndarray           # (len(angles), rows, cols) from the GPU
    model: np.ndarray             # the same from the numpy model
    max_error: float              # the largest |rotated - model|


def test_picture(rows: int, cols: int) -> np.ndarray:
    """A picture whose rotation is easy to see: a diagonal gradient, a bright frame, a disc
    and an off-centre bar, so that the orientation is unambiguous."""
    y, x = np.mgrid[0:rows, 0:cols].astype(np.float32)
    picture = 0.25 * (x / cols + y / rows)
    picture[(x < 4) | (x >= cols - 4) | (y < 4) | (y >= rows - 4)] = 1.0
    picture[(x - 0.3 * cols) ** 2 + (y - 0.4 * rows) ** 2 < (0.15 * min(rows, cols)) ** 2] = 0.8
    picture[int(0.7 * rows):int(0.78 * rows), int(0.45 * cols):int(0.9 * cols)] = 0.6
    return picture


@vd.shader("out.size")
def rotate(out: Buff[f32], picture: Img2[f32], cols: Const[i32], centre: Const[v2],
           angle: Var[f32]):
    """out[y, x] = the picture at (x, y) turned back by ``angle`` (radians) about the centre:
    the picture turns counterclockwise as displayed (rows down)."""
    i = vc.global_invocation_id().x
    x = vc.to_float(i % cols) - centre.x
    y = vc.to_float(i // cols) - centre.y
    c, s = vc.cos(angle), vc.sin(angle)
    source = vc.new_register(v2, c * x - s * y + centre.x, s * x + c * y + centre.y)
    out[i] = picture.sample(source).x


def model_rotation(picture: np.ndarray, angle: float) -> np.ndarray:
    """The numpy reference: the same inverse mapping, bilinear, zero outside the picture."""
    rows, cols = picture.shape
    cy, cx = (rows - 1) / 2, (cols - 1) / 2
    y, x = np.mgrid[0:rows, 0:cols].astype(np.float64)
    c, s = np.cos(angle), np.sin(angle)
    sx = c * (x - cx) - s * (y - cy) + cx
    sy = s * (x - cx) + c * (y - cy) + cy
    x0, y0 = np.floor(sx).astype(int), np.floor(sy).astype(int)
    fx, fy = sx - x0, sy - y0

    def at(yy, xx):
        inside = (yy >= 0) & (yy < rows) & (xx >= 0) & (xx < cols)
        return np.where(inside, picture[np.clip(yy, 0, rows - 1), np.clip(xx, 0, cols - 1)], 0)

    return ((1 - fx) * (1 - fy) * at(y0, x0) + fx * (1 - fy) * at(y0, x0 + 1)
            + (1 - fx) * fy * at(y0 + 1, x0) + fx * fy * at(y0 + 1, x0 + 1))


def run(rows: int = 240, cols: int = 320, angles=(30.0, 90.0, 135.0)) -> Result:
    picture = test_picture(rows, cols)
    image = vd.Image2D((rows, cols))
    image.write(picture)
    sampler = image.sample(address_mode=vd.AddressMode.CLAMP_TO_BORDER,
                           border_color=vd.BorderColor.FLOAT_TRANSPARENT_BLACK)
    out = vd.Buffer((rows * cols,), vd.float32)
    graph = vd.CommandGraph()
    rotate(out, sampler, cols, ((cols - 1) / 2, (rows - 1) / 2), graph.bind_var("angle"),
           graph=graph)
    rotated, model = [], []
    for angle in angles:
        graph.set_var("angle", np.radians(angle))
        graph.submit()
        rotated.append(out.read(0).reshape(rows, cols).copy())
        model.append(model_rotation(picture, np.radians(angle)))
    graph.destroy()
    rotated, model = np.array(rotated), np.array(model)
    return Result(picture, list(angles), rotated, model, float(np.abs(rotated - model).max()))


def scipy_difference(result: Result) -> float | None:
    """The largest difference from scipy.ndimage.rotate (bilinear, same size, zeros around the
    picture blended in at its edges as a border-clamped sampler does: mode "grid-constant"),
    or None without scipy."""
    try:
        from scipy import ndimage
    except ImportError:
        return None
    worst = 0.0
    for angle, rotated in zip(result.angles, result.rotated):
        reference = ndimage.rotate(result.picture.astype(np.float64), angle, reshape=False,
                                   order=1, mode="grid-constant", cval=0.0)
        worst = max(worst, float(np.abs(rotated - reference).max()))
    return worst


def write_png(path: str, gray: np.ndarray) -> None:
    """Saves ``gray`` (values in [0, 1]) as an 8-bit grayscale PNG."""
    pixels = np.round(np.clip(gray, 0, 1) * 255).astype(np.uint8)
    rows = b"".join(b"\x00" + row.tobytes() for row in pixels)  # filter type 0 per row

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    header = struct.pack(">IIBBBBB", pixels.shape[1], pixels.shape[0], 8, 0, 0, 0, 0)
    with open(path, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                   + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))


def montage(result: Result) -> np.ndarray:
    """The picture and its rotations side by side, 8 dark pixels apart."""
    panels = [result.picture, *result.rotated]
    gap = np.full((result.picture.shape[0], 8), 0.1, np.float32)
    return np.concatenate([p for panel in panels for p in (panel, gap)][:-1], axis=1)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=240, help="picture height (default 240)")
    parser.add_argument("--cols", type=int, default=320, help="picture width (default 320)")
    parser.add_argument("--angles", type=float, nargs="+", default=[30.0, 90.0, 135.0],
                        help="degrees, counterclockwise (default 30 90 135)")
    parser.add_argument("--output", default="image_rotation.png",
                        help="PNG path (default image_rotation.png)")
    args = parser.parse_args(argv)
    result = run(args.rows, args.cols, args.angles)
    print(f"rotated a {args.rows} x {args.cols} picture by {args.angles} degrees on "
          f"{vd.get_context().device_infos[0].device_name}")
    print(f"largest difference from the numpy bilinear model: {result.max_error:.2e} "
          f"(allowed {TOLERANCE:.2e})")
    scipy = scipy_difference(result)
    if scipy is not None:
        print(f"largest difference from scipy.ndimage.rotate: {scipy:.2e}")
    write_png(args.output, montage(result))
    print(f"saved {args.output}")
    return 0 if result.max_error <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
