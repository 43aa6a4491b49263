#ifndef PODS_CCURL_SHIM_H
#define PODS_CCURL_SHIM_H
#include <curl/curl.h>

/// `curl_easy_setopt` is variadic, which Swift cannot call.
static inline CURLcode pods_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// `curl_easy_setopt` is variadic, which Swift cannot call.
static inline CURLcode pods_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// `curl_easy_setopt` is variadic, which Swift cannot call.
static inline CURLcode pods_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// `curl_easy_setopt` with a write or header callback (variadic).
static inline CURLcode pods_curl_set_write_function(CURL *handle, CURLoption option,
                                                    size_t (*function)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(handle, option, function);
}

/// `curl_easy_setopt` with a transfer-progress callback (variadic).
static inline CURLcode pods_curl_set_xferinfo_function(CURL *handle,
                                                       int (*function)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, function);
}

/// `curl_easy_getinfo` is variadic, which Swift cannot call.
static inline CURLcode pods_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// `curl_easy_getinfo` is variadic, which Swift cannot call.
static inline CURLcode pods_curl_get_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// `curl_easy_getinfo` is variadic, which Swift cannot call.
static inline CURLcode pods_curl_get_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}
/// `curl_share_setopt` is variadic, which Swift cannot call.
static inline CURLSHcode pods_curl_share_set_long(CURLSH *share, CURLSHoption option, long value) {
    return curl_share_setopt(share, option, value);
}

/// `curl_share_setopt` with the lock callback (variadic).
static inline CURLSHcode pods_curl_share_set_lock(CURLSH *share, curl_lock_function function) {
    return curl_share_setopt(share, CURLSHOPT_LOCKFUNC, function);
}

/// `curl_share_setopt` with the unlock callback (variadic).
static inline CURLSHcode pods_curl_share_set_unlock(CURLSH *share, curl_unlock_function function) {
    return curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, function);
}

/// `curl_share_setopt` with the callbacks' user data (variadic).
static inline CURLSHcode pods_curl_share_set_pointer(CURLSH *share, CURLSHoption option, void *value) {
    return curl_share_setopt(share, option, value);
}
/// `curl_multi_setopt` is variadic, which Swift cannot call.
static inline CURLMcode pods_curl_multi_set_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
/// `CURLAUTH_BASIC | CURLAUTH_DIGEST`: the macros carry casts Swift cannot import.
static inline long pods_curl_auth_basic_or_digest(void) {
    return (long)(CURLAUTH_BASIC | CURLAUTH_DIGEST);
}

#endif
