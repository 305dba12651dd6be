#ifndef BTLENS_HEAP_USAGE_H
#define BTLENS_HEAP_USAGE_H
#include <stddef.h>

/// Bytes of heap in use now (glibc's mallinfo2 uordblks + hblkhd; macOS's zones' size_in_use): for the tests that bound memory.
size_t btlens_heap_in_use(void);

/// Gives the memory free in every thread's heap back to the system (glibc's malloc_trim; macOS's zone pressure relief).
void btlens_heap_trim(void);

#endif
