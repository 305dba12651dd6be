#ifndef BTLENS_COUNTING_FILE_H
#define BTLENS_COUNTING_FILE_H
#include <stdio.h>

/// A FILE that reads descriptor `fd` (a pipe) and whose ftell() is the number of bytes read from it
/// so far, as for a file: libpcap reads a followed stream through it, and a record's file offset is
/// then where it is in the stream, not -1. fclose() closes `fd`. NULL with errno set on failure.
FILE *btlens_counting_fdopen(int fd);

#endif
