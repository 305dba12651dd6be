#ifndef BTLENS_CZLIB_SHIM_H
#define BTLENS_CZLIB_SHIM_H
#include <zlib.h>
#endif
