import Foundation
internal import CCurl

/// One libcurl share handle for every transfer of the process: DNS answers
/// and TLS sessions outlive the easy handle that made them, so the cache's
/// range requests and the feeds' transfer loop resolve and handshake once
/// per host. (Connections are not shared: libcurl 7.88 does not support
/// sharing them between threads; the transfer loop keeps its own alive.)
///
/// libcurl calls the lock callbacks from whichever thread runs a transfer;
/// each kind of shared data has a mutex of its own.
final class SharedConnections: @unchecked Sendable {
    // @unchecked Sendable, proven: both pointers are set once in `init`,
    // before any transfer can see them, and never change; libcurl itself
    // serializes every use of the shared data through the lock callbacks.

    /// Made once for the process and never freed (transfers may run until exit).
    static let shared = SharedConnections()

    /// The share handle; nil if libcurl could not make one (then every
    /// transfer simply connects on its own).
    let handle: UnsafeMutableRawPointer?
    /// One mutex per `curl_lock_data` value.
    private let locks: UnsafeMutablePointer<pthread_mutex_t>

    private init() {
        HTTPClient.initializeLibrary()
        let count = Int(CURL_LOCK_DATA_LAST.rawValue) + 1
        locks = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: count)
        for index in 0..<count { pthread_mutex_init(locks + index, nil) }
        handle = curl_share_init()
        guard let handle else { return }
        pods_curl_share_set_pointer(handle, CURLSHOPT_USERDATA, UnsafeMutableRawPointer(locks))
        pods_curl_share_set_lock(handle, Self.lock)
        pods_curl_share_set_unlock(handle, Self.unlock)
        for data in [CURL_LOCK_DATA_DNS, CURL_LOCK_DATA_SSL_SESSION] {
            pods_curl_share_set_long(handle, CURLSHOPT_SHARE, Int(data.rawValue))
        }
    }

    private static let lock: curl_lock_function = { _, data, _, userData in
        guard let mutexes = userData?.assumingMemoryBound(to: pthread_mutex_t.self) else { return }
        pthread_mutex_lock(mutexes + Int(data.rawValue))
    }

    private static let unlock: curl_unlock_function = { _, data, userData in
        guard let mutexes = userData?.assumingMemoryBound(to: pthread_mutex_t.self) else { return }
        pthread_mutex_unlock(mutexes + Int(data.rawValue))
    }
}
