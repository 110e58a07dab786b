#ifndef WSPIPE_CZLIB_SHIM_H
#define WSPIPE_CZLIB_SHIM_H
#include <zlib.h>
#endif
