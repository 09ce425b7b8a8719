"""``python -m vkdispatch`` / ``vdlist``: lists the Vulkan devices vkdispatch can see."""
from __future__ import annotations

import argparse
import sys

import vkdispatch as vd
from vkdispatch.errors import VkDispatchError


def main(argv: list[str] | None = None) -> int:
    # No prefix matching: 0.1.0's --vulkan must not resolve to --vulkan_loader_debug_logs.
    parser = argparse.ArgumentParser(prog="vdlist", allow_abbrev=False,
                                     description="Lists the Vulkan devices vkdispatch can see.")
    backends = parser.add_mutually_exclusive_group()
    backends.add_argument("--vulkan", action="store_true", help="the Vulkan backend (default)")
    backends.add_argument("--cuda", action="store_true", help="not in this build")
    backends.add_argument("--opencl", action="store_true", help="not in this build")
    parser.add_argument("--verbose", action="store_true", help="print every limit")
    parser.add_argument("--log_info", action="store_true", help="log at INFO level")
    parser.add_argument("--vulkan_loader_debug_logs", "--loader_debug", action="store_true",
                        dest="loader_debug", help="set VK_LOADER_DEBUG=all")
    parser.add_argument("--debug", action="store_true",
                        help="validation layers + INFO logs + loader logs")
    parser.add_argument("--version", action="version", version=f"vkdispatch {vd.__version__}")
    args = parser.parse_args(argv)
    if args.cuda or args.opencl:
        name = "CUDA" if args.cuda else "OpenCL"
        print(f"vdlist: the {name} backend is not in this build (Vulkan only)", file=sys.stderr)
        return 2
    level = vd.LogLevel.INFO if (args.log_info or args.debug) else vd.LogLevel.WARNING
    try:
        vd.initialize(debug_mode=args.debug, log_level=level,
                      loader_debug_logs=args.loader_debug or args.debug)
        devices = vd.get_devices()
    except VkDispatchError as error:
        print(f"vkdispatch: {error}", file=sys.stderr)
        return 1
    if not devices:
        print("No Vulkan devices found: install a Vulkan driver (mesa-vulkan-drivers for Mesa's "
              "drivers and lavapipe, the CPU device, or your GPU vendor's driver).")
    for device in devices:
        print(device.get_info_string(args.verbose))
        print()
    return 0
