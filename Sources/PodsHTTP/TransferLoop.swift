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
    /// Submitted, waiting for the scheduler's slot (loop thread only).
    private var waiting: [HTTPClient.Transfer] = []
    private var running: [UnsafeMutableRawPointer: HTTPClient.Transfer] = [:]
    private let scheduler = TransferScheduler.shared

    private init() {
        HTTPClient.initializeLibrary()
        multi = curl_multi_init()
        guard let multi else { return }
        // Idle connections kept for reuse: enough for a refresh's hosts
        // (libcurl's default follows the number of transfers under way).
        pods_curl_multi_set_long(multi, CURLMOPT_MAXCONNECTS, 64)
        // Transfers start within the process's limits (TransferScheduler),
        // shared with the episode caches; a slot freed anywhere wakes the loop.
        scheduler.onRelease { [self] in wake() }
        let thread = Thread { [self] in
            Thread.current.name = "pods.http"  // from inside: the kernel's name too (top, perf)
            run()
        }
        thread.start()
    }

    /// Wakes the loop's thread from `curl_multi_poll` (any thread may call it).
    private func wake() {
        if let multi { curl_multi_wakeup(multi) }
    }

    /// Starts `transfer`; its `completion` runs on the loop's thread when it ends.
    func submit(_ transfer: HTTPClient.Transfer) {
        guard let multi else { return transfer.completion(.failure(HTTPError(.other, "libcurl could not start"))) }
        pending.withLock { $0.append(transfer) }
        curl_multi_wakeup(multi)
    }

    /// Ends `transfer` early: its task was cancelled (any thread may call it).
    func cancel(_ transfer: HTTPClient.Transfer) {
        transfer.cancelRequested.store(true, ordering: .releasing)
        wake()
    }

    private func run() {
        guard let multi else { return }
        while true {
            waiting += pending.withLock { queue in defer { queue.removeAll() }; return queue }
            dropCancelled(on: multi)
            startWaiting(on: multi)
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
                    scheduler.end(server: transfer.server)
                    transfer.completion(result)
                } else {
                    curl_easy_cleanup(handle)
                }
            }
            // Idle: sleep until `submit` or a freed slot wakes us (no periodic wake-up).
            let timeout: Int32 = running.isEmpty ? 86_400_000 : 1000
            curl_multi_poll(multi, nil, 0, timeout, nil)
        }
    }

    /// Answers the transfers whose callers were cancelled, waiting or running.
    private func dropCancelled(on multi: UnsafeMutableRawPointer) {
        func isCancelled(_ transfer: HTTPClient.Transfer) -> Bool { transfer.cancelRequested.load(ordering: .acquiring) }
        let cancelledWaiting = waiting.filter(isCancelled)
        if !cancelledWaiting.isEmpty {
            waiting.removeAll(where: isCancelled)
            for transfer in cancelledWaiting { transfer.completion(.failure(HTTPError(.cancelled, "\(transfer.url): cancelled"))) }
        }
        for (handle, transfer) in running where isCancelled(transfer) {
            running[handle] = nil
            curl_multi_remove_handle(multi, handle)
            curl_easy_cleanup(handle)
            scheduler.end(server: transfer.server)
            transfer.completion(.failure(HTTPError(.cancelled, "\(transfer.url): cancelled")))
        }
    }

    /// Starts the waiting transfers the scheduler has room for, in the order submitted.
    private func startWaiting(on multi: UnsafeMutableRawPointer) {
        guard !waiting.isEmpty else { return }
        var stillWaiting: [HTTPClient.Transfer] = []
        for transfer in waiting {
            guard scheduler.tryStart(server: transfer.server, priority: transfer.options.priority) else {
                stillWaiting.append(transfer)
                continue
            }
            guard let handle = transfer.makeHandle() else {
                scheduler.end(server: transfer.server)
                transfer.completion(.failure(HTTPError(.other, "libcurl could not start")))
                continue
            }
            running[handle] = transfer
            curl_multi_add_handle(multi, handle)
        }
        waiting = stillWaiting
    }
}
