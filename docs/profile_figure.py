"""Makes the picture of docs/profile.rst: a real ``vd.profile()`` trace of a small FFT
convolution pipeline, drawn as a timeline (``_static/profile_trace.png``) beside the trace
file itself (``_static/profile_trace.json``, which Perfetto opens).

Run by hand after changing what the picture shows: ``.venv/bin/python docs/profile_figure.py``
(needs matplotlib, the ``demo`` extra).
"""
from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np

import vkdispatch as vd
import vkdispatch.codegen as vc
from vkdispatch.codegen.abbreviations import Buff, Const, c64, f32

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)

STATIC = Path(__file__).parent / "_static"


@vd.shader("signal.size")
def taper(signal: Buff[c64], strength: Const[f32]):
    i = vc.global_invocation_id().x
    signal[i] = signal[i] * (1.0 - strength * vc.to_dtype(f32, i % 1024) / 1024.0)


@vd.reduce.reduce(0)
def total(a: f32, b: f32) -> f32:
    return a + b


def pipeline(rng) -> vd.Profile:
    signal = vd.asbuffer(rng.standard_normal((16, 1024)).astype(np.complex64))
    kernel = vd.asbuffer(rng.standard_normal((16, 1024)).astype(np.complex64))
    level = vd.asbuffer(rng.standard_normal(1 << 16).astype(np.float32))
    taper(signal, 0.5)  # every kernel built before the profile
    vd.fft.convolve(signal, kernel)
    total(level)
    with vd.profile() as prof:
        for _ in range(3):
            taper(signal, 0.5)
            vd.fft.convolve(signal, kernel)
            total(level).read(0)
    return prof


def draw(prof: vd.Profile, path: Path) -> None:
    names = sorted({event.name for event in prof.events})
    colours = {name: plt.cm.tab10(i % 10) for i, name in enumerate(names)}
    tracks = sorted({event.queue for event in prof.events})
    fig, ax = plt.subplots(figsize=(10, 2.6), dpi=100)
    for row, track in enumerate(tracks):
        for event in (e for e in prof.events if e.queue == track):
            ax.broken_barh([(event.start_us / 1e3, max(event.duration_us / 1e3, 0.01))],
                           (row - 0.4, 0.8), color=colours[event.name])
    ax.set_yticks(range(len(tracks)),
                  ["host" if track == -1 else f"queue {track}" for track in tracks])
    ax.set_xlabel("ms since the first event")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[name]) for name in names]
    ax.legend(handles, names, loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=3,
              fontsize=8, frameon=False)
    ax.set_title(f"vd.profile() on {vd.get_context().device_infos[0].device_name}", fontsize=9)
    fig.savefig(path, bbox_inches="tight")


def main() -> None:
    prof = pipeline(np.random.default_rng(0))
    print(prof)
    STATIC.mkdir(exist_ok=True)
    prof.save(STATIC / "profile_trace.json")
    draw(prof, STATIC / "profile_trace.png")


if __name__ == "__main__":
    main()
