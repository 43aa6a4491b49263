#ifndef PODS_CLIBCRYPTO_SHIM_H
#define PODS_CLIBCRYPTO_SHIM_H
#include <openssl/evp.h>
#endif
