#ifndef PODS_CCURL_SHIM_H
#define PODS_CCURL_SHIM_H
#include <curl/curl.h>
#endif
