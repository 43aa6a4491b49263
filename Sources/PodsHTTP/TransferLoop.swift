import Foundation
import Synchronization
internal import CCurl

/// Every `HTTPClient.get` of the process on one libcurl multi handle, run by
/// one thread: connections are kept alive and reused across requests to a
/// host, HTTP/2 streams are multiplexed where a server offers them, and a
/// refresh of 200 feeds takes one thread, not 200.
///
/// Callers hand transfers over with `submit`, which wakes the thread; the
/// thread sleeps in `curl_multi_poll` until there is I/O or work, so an
/// idle loop costs nothing.
final class TransferLoop: @unchecked Sendable {
    // @unchecked Sendable, proven: `multi` is set once in `init`; `running`
    // is read and written only on the loop's thread; other threads touch
    // only `pending` (a Mutex) and call `curl_multi_wakeup`, which libcurl
    // documents as callable from any thread.

    static let shared = TransferLoop()

    private let multi: UnsafeMutableRawPointer?
    private let pending = Mutex<[HTTPClient.Transfer]>([])
    private var running: [UnsafeMutableRawPointer: HTTPClient.Transfer] = [:]

    /// Connections open at once, in all and to one host (the refresher's own limits).
    static let connectionLimit = 16
    static let connectionsPerHost = 6

    private init() {
        HTTPClient.initializeLibrary()
        multi = curl_multi_init()
        guard let multi else { return }
        // Idle connections kept for reuse: enough for a refresh's hosts
        // (libcurl's default follows the number of transfers under way).
        pods_curl_multi_set_long(multi, CURLMOPT_MAXCONNECTS, 64)
        // Every transfer of the loop (feeds, artwork, chapters, transcripts,
        // directories, sync) within one global and one per-host limit; libcurl
        // queues the rest. Episode audio has its own (MediaCache.downloadLimit).
        pods_curl_multi_set_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, Self.connectionLimit)
        pods_curl_multi_set_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, Self.connectionsPerHost)
        let thread = Thread { [self] in run() }
        thread.name = "pods.http"
        thread.start()
    }

    /// Starts `transfer`; its `completion` runs on the loop's thread when it ends.
    func submit(_ transfer: HTTPClient.Transfer) {
        guard let multi else { return transfer.completion(.failure(HTTPError(.other, "libcurl could not start"))) }
        pending.withLock { $0.append(transfer) }
        curl_multi_wakeup(multi)
    }

    private func run() {
        guard let multi else { return }
        while true {
            for transfer in pending.withLock({ queue in defer { queue.removeAll() }; return queue }) {
                guard let handle = transfer.makeHandle() else {
                    transfer.completion(.failure(HTTPError(.other, "libcurl could not start")))
                    continue
                }
                running[handle] = transfer
                curl_multi_add_handle(multi, handle)
            }
            var active: Int32 = 0
            curl_multi_perform(multi, &active)
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
                let code = message.pointee.data.result
                curl_multi_remove_handle(multi, handle)
                if let transfer = running.removeValue(forKey: handle) {
                    let result = transfer.result(handle, code)
                    curl_easy_cleanup(handle)
                    transfer.completion(result)
                } else {
                    curl_easy_cleanup(handle)
                }
            }
            // Idle: sleep until `submit` wakes us (no periodic wake-up).
            let timeout: Int32 = running.isEmpty ? 86_400_000 : 1000
            curl_multi_poll(multi, nil, 0, timeout, nil)
        }
    }
}
