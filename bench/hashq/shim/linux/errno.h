/* The C library includes this one too: the real one. */
#include_next <linux/errno.h>
#include "../kshim.h"
