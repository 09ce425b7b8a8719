"""The vkdispatch demo: lists the devices, then round-trips random data through a buffer."""
import numpy as np

import vkdispatch as vd


def main() -> None:
    print(f"vkdispatch {vd.__version__}\n")
    for device in vd.get_devices():
        print(device.get_info_string())
    context = vd.get_context()
    print(f"\nUsing: {', '.join(info.device_name for info in context.device_infos)} "
          f"({context.queue_count} queue(s))\n")

    rng = np.random.default_rng()
    data = rng.standard_normal((512, 256)).astype(np.float32)
    buffer = vd.asbuffer(data)
    back = buffer.read(0)
    assert np.array_equal(back, data), "buffer round trip returned different data"
    print(f"Buffer round trip of {data.nbytes / 2**20:.1f} MiB ({buffer.shape}, "
          f"{buffer.var_type.name}): verified against numpy")

    points = vd.Buffer((1000,), vd.vec3)
    xyz = rng.standard_normal((1000, 3)).astype(np.float32)
    points.write(xyz)
    assert np.array_equal(points.read(0), xyz)
    print(f"Vector buffer {points.shape} of {points.var_type.name} reads back as "
          f"{points.read(0).shape} {points.read(0).dtype}: verified")


if __name__ == "__main__":
    main()
