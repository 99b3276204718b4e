#include "../../../../build/linux/include/linux/xxhash.h"
