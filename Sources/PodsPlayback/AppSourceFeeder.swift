import Synchronization
internal import CGStreamer

/// Feeds one `appsrc` from a `RandomAccessMedia`: `seek-data` stores the
/// offset, `need-data` reads exactly the bytes asked for (blocking the
/// streaming thread while they download) and pushes them.
///
/// A flushing seek sends FLUSH_START upstream through the appsrc's pad;
/// a probe there bumps `flushGeneration` and interrupts the media, so a read
/// started for the old position returns without pushing.
final class AppSourceFeeder: Sendable {
    let media: any RandomAccessMedia
    private let offset = Atomic<Int64>(0)
    private let flushGeneration = Atomic<UInt64>(0)
    private let stopped = Atomic<Bool>(false)

    init(media: any RandomAccessMedia) {
        self.media = media
    }

    /// Ends every read, now and later; call before taking the pipeline
    /// down, whose state change waits for the streaming thread.
    func stop() {
        stopped.store(true, ordering: .releasing)
        media.interruptReads()
    }

    // MARK: - Wiring an appsrc

    /// Configures `source` (an appsrc) and installs the callbacks, which
    /// keep this feeder alive until the appsrc is gone.
    func attach(to source: UnsafeMutablePointer<GstElement>) {
        let appSource = UnsafeMutableRawPointer(source).assumingMemoryBound(to: GstAppSrc.self)
        gst_app_src_set_stream_type(appSource, media.supportsRandomAccess ? GST_APP_STREAM_TYPE_RANDOM_ACCESS
                                                                          : GST_APP_STREAM_TYPE_SEEKABLE)
        gst_app_src_set_size(appSource, gint64(media.length))
        var callbacks = GstAppSrcCallbacks()
        callbacks.need_data = Self.needData
        callbacks.seek_data = Self.seekData
        let retained = Unmanaged.passRetained(self).toOpaque()
        gst_app_src_set_callbacks(appSource, &callbacks, retained, Self.release)
        if let pad = gst_element_get_static_pad(source, "src") {
            let probeMask = GST_PAD_PROBE_TYPE_EVENT_UPSTREAM.rawValue | GST_PAD_PROBE_TYPE_EVENT_FLUSH.rawValue
            gst_pad_add_probe(pad, GstPadProbeType(rawValue: probeMask), Self.flushProbe,
                              Unmanaged.passRetained(self).toOpaque(), Self.release)
            gst_object_unref(pad)
        }
    }

    private static let release: @convention(c) (gpointer?) -> Void = { pointer in
        guard let pointer else { return }
        Unmanaged<AppSourceFeeder>.fromOpaque(pointer).release()
    }

    private static func feeder(_ pointer: gpointer?) -> AppSourceFeeder? {
        pointer.map { Unmanaged<AppSourceFeeder>.fromOpaque($0).takeUnretainedValue() }
    }

    // MARK: - Callbacks (GStreamer's streaming threads)

    private static let seekData: @convention(c) (UnsafeMutablePointer<GstAppSrc>?, guint64, gpointer?) -> gboolean = { _, offset, pointer in
        feeder(pointer)?.offset.store(Int64(clamping: offset), ordering: .releasing)
        return 1
    }

    private static let needData: @convention(c) (UnsafeMutablePointer<GstAppSrc>?, guint, gpointer?) -> Void = { source, length, pointer in
        guard let source, let feeder = feeder(pointer) else { return }
        feeder.feed(source, wanted: Int(length))
    }

    private static let flushProbe: @convention(c) (UnsafeMutablePointer<GstPad>?, UnsafeMutablePointer<GstPadProbeInfo>?, gpointer?) -> GstPadProbeReturn = { _, info, pointer in
        if let info, pods_probe_is_flush_start(info) != 0, let feeder = feeder(pointer) {
            feeder.flushGeneration.add(1, ordering: .acquiringAndReleasing)
            feeder.media.interruptReads()
        }
        return GST_PAD_PROBE_OK
    }

    private func feed(_ source: UnsafeMutablePointer<GstAppSrc>, wanted: Int) {
        let start = offset.load(ordering: .acquiring)
        let remaining = media.length - start
        guard remaining > 0 else {
            gst_app_src_end_of_stream(source)
            return
        }
        // Random access must get exactly what it asked for (shorter only at
        // the end); a push-mode reader takes any size.
        let size = Int(min(Int64(wanted > 0 ? wanted : 65536), remaining))
        guard let buffer = gst_buffer_new_allocate(nil, gsize(size), nil) else { return }
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_WRITE) != 0, let data = map.data else {
            gst_buffer_unref(buffer)
            return
        }
        let generation = flushGeneration.load(ordering: .acquiring)
        let result = media.read(at: start, into: UnsafeMutableRawBufferPointer(start: data, count: size)) {
            stopped.load(ordering: .acquiring) || flushGeneration.load(ordering: .acquiring) != generation
        }
        gst_buffer_unmap(buffer, &map)
        switch result {
        case .bytes(let count) where count > 0:
            if count < size { gst_buffer_set_size(buffer, gssize(count)) }
            pods_buffer_set_offset(buffer, guint64(start))
            // The offset moves on only if no seek came in meanwhile.
            _ = offset.compareExchange(expected: start, desired: start + Int64(count), ordering: .acquiringAndReleasing)
            gst_app_src_push_buffer(source, buffer)  // takes the buffer
        case .bytes:
            gst_buffer_unref(buffer)
            gst_app_src_end_of_stream(source)
        case .interrupted:
            gst_buffer_unref(buffer)
        case .failed(let message):
            gst_buffer_unref(buffer)
            UnsafeMutableRawPointer(source).withMemoryRebound(to: GstElement.self, capacity: 1) { element in
                pods_element_post_read_error(element, message)
            }
        }
    }
}
