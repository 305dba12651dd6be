#ifndef BTLENS_HEAP_USAGE_H
#define BTLENS_HEAP_USAGE_H
#include <stddef.h>

/// Bytes of heap in use now (glibc's mallinfo2 uordblks + hblkhd): for the tests that bound memory.
size_t btlens_heap_in_use(void);

#endif
