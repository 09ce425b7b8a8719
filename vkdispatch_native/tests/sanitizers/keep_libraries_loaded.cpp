// Linked into the test executable of `make test-sanitize` only (VKDISPATCH_SANITIZE=ON).
//
// The Vulkan loader dlclose()s the ICD (lavapipe, and libLLVM with it) in vkDestroyInstance.
// Lavapipe keeps some allocations reachable only from its own static data; once the library is
// unmapped LeakSanitizer sees them as leaks from "<unknown module>", a frame no suppression can
// name. Making dlclose a no-op keeps every library mapped until exit, so such memory stays
// reachable and any real leak inside a driver is reported with its library's name (which
// lsan.supp can then match). Our own code never calls dlclose, so nothing of ours is hidden.
extern "C" int dlclose(void* /*handle*/) noexcept { return 0; }
