// OpenSSL's libcrypto (Debian's libssl-dev): SHA-256, the content hash of stored assets.
#include <openssl/evp.h>
