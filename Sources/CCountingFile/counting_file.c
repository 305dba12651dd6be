#define _GNU_SOURCE
#include "counting_file.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

struct counting { int fd; int64_t read; };

static ssize_t counting_read(void *cookie, char *buffer, size_t size) {
    struct counting *c = cookie;
    ssize_t n;
    do { n = read(c->fd, buffer, size); } while (n < 0 && errno == EINTR);
    if (n > 0) c->read += n;
    return n;
}

/* Only "where am I" is answered (ftell's SEEK_CUR 0): a stream cannot move. glibc has
   fopencookie, macOS funopen, whose callbacks differ only in their types. */
#if defined(__APPLE__)
static int counting_read_int(void *cookie, char *buffer, int size) {
    return (int)counting_read(cookie, buffer, size < 0 ? 0 : (size_t)size);
}

static fpos_t counting_seek(void *cookie, fpos_t offset, int whence) {
    struct counting *c = cookie;
    if (whence != SEEK_CUR || offset != 0) { errno = ESPIPE; return -1; }
    return c->read;
}
#else
static int counting_seek(void *cookie, off64_t *offset, int whence) {
    struct counting *c = cookie;
    if (whence != SEEK_CUR || *offset != 0) { errno = ESPIPE; return -1; }
    *offset = c->read;
    return 0;
}
#endif

static int counting_close(void *cookie) {
    struct counting *c = cookie;
    int result = close(c->fd);
    free(c);
    return result;
}

FILE *btlens_counting_fdopen(int fd) {
    struct counting *c = malloc(sizeof *c);
    if (!c) return NULL;
    c->fd = fd;
    c->read = 0;
#if defined(__APPLE__)
    FILE *f = funopen(c, counting_read_int, NULL, counting_seek, counting_close);
#else
    cookie_io_functions_t io = { counting_read, NULL, counting_seek, counting_close };
    FILE *f = fopencookie(c, "rb", io);
#endif
    if (!f) free(c);
    return f;
}
