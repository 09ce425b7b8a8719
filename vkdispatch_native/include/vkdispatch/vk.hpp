#pragma once
// The only header that includes the Vulkan API (through volk, which loads the entry points at
// run time so the extension never links against libvulkan).
#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <volk.h>
