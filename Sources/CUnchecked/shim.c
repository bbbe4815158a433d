// The header holds everything (static inline); SwiftPM wants one source file per C target.
#include "unchecked_convert.h"
