import Synchronization
internal import CGStreamer

/// playbin's `source-setup` handler: when it makes an `appsrc` for
/// `appsrc://`, a new `AppSourceFeeder` attaches it to the loaded media.
///
/// The handler runs on whichever thread changes the pipeline's state; the
/// engine sets `media` before that, so both sides meet under a mutex.
final class SourceSetup: Sendable {
    private struct State {
        var media: (any RandomAccessMedia)?
        var feeders: [AppSourceFeeder] = []
    }

    private let state = Mutex(State())

    /// The media the next appsrc reads.
    var media: (any RandomAccessMedia)? {
        get { state.withLock { $0.media } }
        set { state.withLock { $0.media = newValue } }
    }

    /// Connects the handler; the pipeline keeps this object alive.
    func connect(to playbin: UnsafeMutablePointer<GstElement>) {
        let handler: @convention(c) (gpointer?, gpointer?, gpointer?) -> Void = { _, element, pointer in
            guard let element, let pointer, pods_is_app_source(element) != 0 else { return }
            let setup = Unmanaged<SourceSetup>.fromOpaque(pointer).takeUnretainedValue()
            setup.attach(element.assumingMemoryBound(to: GstElement.self))
        }
        let release: @convention(c) (gpointer?, UnsafeMutablePointer<GClosure>?) -> Void = { pointer, _ in
            guard let pointer else { return }
            Unmanaged<SourceSetup>.fromOpaque(pointer).release()
        }
        g_signal_connect_data(playbin, "source-setup", unsafeBitCast(handler, to: GCallback.self),
                              Unmanaged.passRetained(self).toOpaque(), release, GConnectFlags(rawValue: 0))
    }

    /// Ends every read of the sources made so far (before the pipeline's
    /// state goes down, which waits for a streaming thread blocked in one).
    func stopFeeding() {
        let feeders = state.withLock { state in
            defer { state.feeders.removeAll() }
            return state.feeders
        }
        for feeder in feeders { feeder.stop() }
    }

    private func attach(_ element: UnsafeMutablePointer<GstElement>) {
        guard let media = state.withLock({ $0.media }) else { return }
        let feeder = AppSourceFeeder(media: media)
        state.withLock { $0.feeders.append(feeder) }
        feeder.attach(to: element)
    }
}
