"""The native extension that kp's objects wrap, loaded with vkdispatch's exception classes (so
a bad value is a ValueError, a failing Vulkan call a vkdispatch.VulkanError, a RuntimeError)."""
from vkdispatch.base.backend import load_native

native = load_native()
