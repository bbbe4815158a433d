// xxHash (Debian's libxxhash-dev, 0.8.1): XXH3-128, the content fingerprint's hash.
#include <xxhash.h>
