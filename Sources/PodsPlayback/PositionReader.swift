internal import CGStreamer

/// Reads a pipeline's position from any thread, for answers that must not
/// wait for the pipeline's owner (MPRIS `Position` on the bus thread).
///
/// It knows nothing of seeks the owner has asked for but the pipeline has
/// not made yet; the owner says when its answer is the one to use.
public final class PositionReader: @unchecked Sendable {
    // @unchecked Sendable, proven: `playbin` is a reference this object holds
    // until deinit and never changes; it only calls gst_element_get_state
    // with a zero timeout and gst_element_query_position, which GStreamer
    // documents as MT safe and which change nothing.
    private let playbin: UnsafeMutablePointer<GstElement>

    init(_ playbin: UnsafeMutablePointer<GstElement>) {
        self.playbin = playbin
        _ = gst_object_ref(playbin)
    }

    deinit { gst_object_unref(playbin) }

    /// The position the pipeline reports, or nil when it has none (below
    /// PAUSED, counting a state change under way as done).
    public func position() -> Duration? {
        var state = GST_STATE_NULL, pending = GST_STATE_VOID_PENDING
        gst_element_get_state(playbin, &state, &pending, 0)
        if pending != GST_STATE_VOID_PENDING { state = pending }
        var nanoseconds: gint64 = 0
        guard state.rawValue >= GST_STATE_PAUSED.rawValue,
              gst_element_query_position(playbin, GST_FORMAT_TIME, &nanoseconds) != 0, nanoseconds >= 0
        else { return nil }
        return .nanoseconds(Int64(nanoseconds))
    }
}
