#include "heap_usage.h"
#include <malloc.h>

size_t btlens_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
