/* volk's loader, compiled into the extension (Debian ships volk.c beside volk.h). */
#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <volk.c>
