"""A decorated kernel, then a command graph replayed with a push constant changed per submit."""
import numpy as np

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, Var, f32, v2


@vd.shader("src.size")
def norm_and_clip(dst: Buff[f32], src: Buff[v2], limit: Const[f32], gain: Var[f32]):
    """dst[i] = gain * min(|src[i]|, limit)"""
    i = vc.global_invocation_id().x
    p = src[i].to_register("p")
    n = vc.sqrt(p.x * p.x + p.y * p.y).to_register("n")
    with vc.if_block(n > limit):
        n[:] = limit
    dst[i] = n * gain


def main() -> None:
    context = vd.get_context()
    print(f"running on: {context.device_infos[0].device_name}")
    rng = np.random.default_rng(7)
    points = rng.standard_normal((100_000, 2)).astype(np.float32)
    src = vd.Buffer((len(points),), vd.vec2)
    src.write(points)
    dst = vd.Buffer((len(points),), vd.float32)

    norm_and_clip(dst, src, 1.5, 2.0)  # immediate: recorded and submitted at once
    expected = 2.0 * np.minimum(np.hypot(points[:, 0], points[:, 1]), 1.5)
    np.testing.assert_allclose(dst.read(0), expected, rtol=1e-5)
    print("immediate call: verified against numpy")

    graph = vd.CommandGraph()
    norm_and_clip(dst, src, 0.5, graph.bind_var("gain"), graph=graph)
    for gain in (1.0, 10.0):
        graph.set_var("gain", gain)
        graph.submit()
        expected = gain * np.minimum(np.hypot(points[:, 0], points[:, 1]), 0.5)
        np.testing.assert_allclose(dst.read(0), expected, rtol=1e-5)
        print(f"graph replay with gain={gain}: verified against numpy")

    print()
    norm_and_clip.print_src(line_numbers=True)


if __name__ == "__main__":
    main()
