import Foundation
import Synchronization
internal import CGStreamer

/// Reads a pipeline's bus on a thread of its own and turns the messages that
/// matter into `PlaybackEvent`s.
///
/// The thread blocks in `gst_bus_timed_pop_filtered` until a message comes,
/// so a paused or stopped pipeline costs no wakeups. Each message carries
/// the load generation current when it was *posted* (a sync handler stamps
/// it on the posting thread), so a message of the previous source that was
/// already waiting when a new one loaded is never taken for the new one's.
final class PipelineBusReader: @unchecked Sendable {
    // @unchecked Sendable, proven: `stopped` and `endsEvents` are atomic, `lastOutput` is touched by the bus thread alone, and the stamp is
    // read and written only with g_atomic; `bus` is a GstObject, whose
    // reference counting and `gst_bus_*` calls GStreamer documents as MT safe.
    private let bus: UnsafeMutablePointer<GstBus>
    /// Owned by the bus (freed with it), which this object keeps alive.
    private let stamp: UnsafeMutablePointer<PodsBusStamp>
    private let continuation: AsyncStream<PipelineMessage>.Continuation
    private let stopped = Atomic<Bool>(false)
    private let endsEvents = Atomic<Bool>(true)
    private let explainNetworkFailure: (@Sendable (String) -> PlaybackError?)?
    /// The output the sink last said it plays on; read and written on the bus thread only.
    private var lastOutput: String?

    init(pipeline: UnsafeMutablePointer<GstElement>, continuation: AsyncStream<PipelineMessage>.Continuation,
         explainNetworkFailure: (@Sendable (String) -> PlaybackError?)?) {
        // gst_element_get_bus returns a new reference, released in `deinit`.
        self.bus = gst_element_get_bus(pipeline)
        self.stamp = pods_bus_stamp_install(bus)
        self.continuation = continuation
        self.explainNetworkFailure = explainNetworkFailure
    }

    /// Messages posted from now on belong to `generation`.
    func setGeneration(_ generation: UInt64) {
        pods_bus_stamp_set(stamp, Int32(truncatingIfNeeded: generation))
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "pods.gst-bus"
        thread.start()
    }

    /// Ends the thread, and with it the events unless `endingEvents` is
    /// false (the engine goes on with another pipeline); later calls do
    /// nothing. Call after the pipeline reached NULL: that state flushes the
    /// bus, which would drop the wakeup, so flushing is turned off first.
    func stop(endingEvents: Bool = true) {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        endsEvents.store(endingEvents, ordering: .releasing)
        gst_bus_set_flushing(bus, 0)
        gst_bus_post(bus, pods_message_new_wakeup())
    }

    /// The bus reference lives as long as this object (the thread keeps it
    /// alive while it runs), so a late `stop()` never touches a freed bus.
    deinit { gst_object_unref(bus) }

    private func run() {
        let wanted = GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ASYNC_DONE.rawValue
            | GST_MESSAGE_DURATION_CHANGED.rawValue | GST_MESSAGE_TAG.rawValue | GST_MESSAGE_BUFFERING.rawValue
            | GST_MESSAGE_APPLICATION.rawValue | GST_MESSAGE_ELEMENT.rawValue | GST_MESSAGE_PROPERTY_NOTIFY.rawValue
        while true {
            guard let message = gst_bus_timed_pop_filtered(bus, GstClockTime.max, GstMessageType(rawValue: wanted)) else {
                continue
            }
            defer { gst_message_unref(message) }
            if pods_message_is_wakeup(message) != 0 { break }
            if let event = translate(message, type: pods_message_type(message)) {
                continuation.yield(PipelineMessage(event: event, generation: Int32(pods_message_generation(message))))
            }
        }
        if endsEvents.load(ordering: .acquiring) { continuation.finish() }
    }

    private func translate(_ message: UnsafeMutablePointer<GstMessage>, type: GstMessageType) -> PlaybackEvent? {
        switch type {
        case GST_MESSAGE_EOS:
            return .endOfStream
        case GST_MESSAGE_ASYNC_DONE:
            return .asyncDone
        case GST_MESSAGE_DURATION_CHANGED:
            return .durationChanged
        case GST_MESSAGE_BUFFERING:
            var percent: Int32 = 100
            gst_message_parse_buffering(message, &percent)
            return .buffering(percent: Int(percent))
        case GST_MESSAGE_TAG:
            var list: UnsafeMutablePointer<GstTagList>?
            gst_message_parse_tag(message, &list)
            guard let list else { return nil }
            defer { gst_tag_list_unref(list) }
            let tags = MediaTags(title: string(list, "title"), artist: string(list, "artist"), album: string(list, "album"))
            return tags == MediaTags() ? nil : .tags(tags)
        case GST_MESSAGE_ERROR:
            return .error(parseError(message))
        case GST_MESSAGE_PROPERTY_NOTIFY:
            guard let device = pods_message_current_device(message) else { return nil }
            defer { g_free(device) }
            let name = String(cString: device)
            let previous = lastOutput
            lastOutput = name
            guard let previous, previous != name else { return .outputDevice(name, previousGone: false) }
            // The sound server moved the stream: because its device went away, or by hand? (No monitor: say gone.)
            return .outputDevice(name, previousGone: pods_audio_output_exists(previous) != 1)
        case GST_MESSAGE_ELEMENT:
            var peak = 0.0
            var streamTime: guint64 = 0, duration: guint64 = 0
            guard pods_level_read(message, &peak, &streamTime, &duration) != 0 else { return nil }
            return .level(peak: peak, end: .nanoseconds(Int64(clamping: streamTime &+ duration)))
        default:
            return nil
        }
    }

    private func string(_ list: UnsafeMutablePointer<GstTagList>, _ tag: String) -> String? {
        var value: UnsafeMutablePointer<gchar>?
        guard gst_tag_list_get_string(list, tag, &value) != 0, let value else { return nil }
        defer { g_free(value) }
        let text = String(cString: value).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    private func parseError(_ message: UnsafeMutablePointer<GstMessage>) -> PlaybackError {
        var error: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        gst_message_parse_error(message, &error, &debug)
        defer {
            if let error { g_error_free(error) }
            if let debug { g_free(debug) }
        }
        guard let error else { return PlaybackError(.other, "playback failed") }
        let text = error.pointee.message.map { String(cString: $0) } ?? "playback failed"
        let domain = error.pointee.domain
        let code = error.pointee.code
        // An error posted by the element reading the network: what it says depends on the plugins
        // installed (with libsoup 3, souphttpsrc says only "Internal data stream error" for a dead
        // server), so the server itself is asked why, the same way on every desktop. This thread
        // blocks for that answer (bounded by the probe's limits); the messages behind it wait on the bus.
        if let uri = pods_message_network_source_uri(message) {
            let text = String(cString: uri)
            g_free(uri)
            if let explained = explainNetworkFailure?(text) { return explained }
            if domain == gst_stream_error_quark() { return PlaybackError(.network, "could not read \(text) (\(error.pointee.message.map { String(cString: $0) } ?? "playback failed"))") }
        }
        if domain == gst_resource_error_quark() {
            switch GstResourceError(rawValue: UInt32(code)) {
            case GST_RESOURCE_ERROR_NOT_FOUND:
                return PlaybackError(.notFound, text)
            case GST_RESOURCE_ERROR_OPEN_READ, GST_RESOURCE_ERROR_READ, GST_RESOURCE_ERROR_OPEN_READ_WRITE:
                let isFile = debugText(debug).contains("filesrc")
                return PlaybackError(isFile ? .notFound : .network, text)
            case GST_RESOURCE_ERROR_BUSY, GST_RESOURCE_ERROR_OPEN_WRITE, GST_RESOURCE_ERROR_WRITE:
                return PlaybackError(.audioOutput, text)
            default:
                return PlaybackError(.network, text)
            }
        }
        if domain == gst_stream_error_quark() { return PlaybackError(.undecodable, text) }
        if domain == gst_core_error_quark() && GstCoreError(rawValue: UInt32(code)) == GST_CORE_ERROR_MISSING_PLUGIN {
            return PlaybackError(.undecodable, text)
        }
        return PlaybackError(.other, text)
    }

    private func debugText(_ debug: UnsafeMutablePointer<gchar>?) -> String {
        debug.map { String(cString: $0) } ?? ""
    }
}
