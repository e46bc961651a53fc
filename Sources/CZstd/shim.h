// The frame-level functions the archive reader uses to decompress a whole frame in one
// call (ZSTD_getFrameHeader, ZSTD_decompressBound) are in zstd.h's "static linking only"
// section; Debian's libzstd exports them from the shared library as well.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
