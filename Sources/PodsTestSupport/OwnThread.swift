import Foundation

/// Runs long blocking test work (building a 50,000-episode library) on a
/// thread of its own: on the cooperative pool it would hold one of its two
/// threads for seconds, and the suite's other tests, which share the pool,
/// would time out waiting.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let result: Result<T, any Error> = await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: Result { try body() }) }.start()
    }
    return try result.get()
}
