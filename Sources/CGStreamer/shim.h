#ifndef PODS_CGSTREAMER_SHIM_H
#define PODS_CGSTREAMER_SHIM_H
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <signal.h>
#include <string.h>

/// `g_object_set` is variadic, which Swift cannot call.
static inline void pods_object_set_string(gpointer object, const char *name, const char *value) {
    g_object_set(object, name, value, NULL);
}

/// `g_object_set` is variadic, which Swift cannot call.
static inline void pods_object_set_double(gpointer object, const char *name, double value) {
    g_object_set(object, name, value, NULL);
}

/// `g_object_set` is variadic, which Swift cannot call.
static inline void pods_object_set_object(gpointer object, const char *name, gpointer value) {
    g_object_set(object, name, value, NULL);
}

/// `g_object_set` is variadic, which Swift cannot call.
static inline void pods_object_set_int(gpointer object, const char *name, int value) {
    g_object_set(object, name, value, NULL);
}

/// `g_object_set` is variadic, which Swift cannot call.
static inline void pods_object_set_uint(gpointer object, const char *name, guint value) {
    g_object_set(object, name, value, NULL);
}

/// `g_object_get` is variadic, which Swift cannot call.
static inline int pods_object_get_int(gpointer object, const char *name) {
    int value = 0;
    g_object_get(object, name, &value, NULL);
    return value;
}

/// Whether `object` has a property called `name` (so a setter cannot warn).
static inline gboolean pods_object_has_property(gpointer object, const char *name) {
    return g_object_class_find_property(G_OBJECT_GET_CLASS(object), name) != NULL;
}

/// Reads a `level` element's message: the loudest channel's peak (dB) and
/// the stream time the measured interval ends at. The peaks are a
/// `GValueArray`, whose accessors GLib deprecates (so Swift would warn); its
/// fields are read directly here. Returns FALSE for other messages.
static inline gboolean pods_level_read(GstMessage *message, double *peak, guint64 *streamTime, guint64 *duration) {
    const GstStructure *structure = gst_message_get_structure(message);
    if (GST_MESSAGE_TYPE(message) != GST_MESSAGE_ELEMENT || structure == NULL || !gst_structure_has_name(structure, "level")) {
        return FALSE;
    }
    const GValue *peaks = gst_structure_get_value(structure, "peak");
    if (peaks == NULL || !G_VALUE_HOLDS_BOXED(peaks)) return FALSE;
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    const GValueArray *array = g_value_get_boxed(peaks);
    double loudest = -G_MAXDOUBLE;
    for (guint i = 0; array != NULL && i < array->n_values; i++) {
        if (G_VALUE_HOLDS_DOUBLE(&array->values[i])) {
            double value = g_value_get_double(&array->values[i]);
            if (value > loudest) loudest = value;
        }
    }
    G_GNUC_END_IGNORE_DEPRECATIONS
    *peak = loudest;
    if (!gst_structure_get_uint64(structure, "stream-time", streamTime)) return FALSE;
    if (!gst_structure_get_uint64(structure, "duration", duration)) *duration = 0;
    return TRUE;
}

/// `GST_MESSAGE_TYPE` is a function-like macro.
static inline GstMessageType pods_message_type(GstMessage *message) {
    return GST_MESSAGE_TYPE(message);
}

/// `GST_MESSAGE_SRC` is a function-like macro.
static inline GstObject *pods_message_source(GstMessage *message) {
    return GST_MESSAGE_SRC(message);
}

/// The device a sink now plays on, from a `property-notify` message of its
/// `current-device` (pulsesink's: the sound server's sink name, which
/// changes when the server moves the stream, as when the device goes away);
/// NULL for any other message. Free with g_free.
static inline gchar *pods_message_current_device(GstMessage *message) {
    if (GST_MESSAGE_TYPE(message) != GST_MESSAGE_PROPERTY_NOTIFY) return NULL;
    const gchar *name = NULL;
    const GValue *value = NULL;
    gst_message_parse_property_notify(message, NULL, &name, &value);
    if (name == NULL || g_strcmp0(name, "current-device") != 0 || value == NULL || !G_VALUE_HOLDS_STRING(value)) return NULL;
    const gchar *device = g_value_get_string(value);
    return device != NULL && device[0] != 0 ? g_strdup(device) : NULL;
}

/// Whether an audio output called `name` (a sound server's sink name) still
/// exists, as the desktop's device monitor lists them: the PulseAudio
/// provider's `internal-name`, the PipeWire provider's `node.name`. -1 when
/// no device monitor can tell.
static inline gint pods_audio_output_exists(const char *name) {
    GstDeviceMonitor *monitor = gst_device_monitor_new();
    gst_device_monitor_add_filter(monitor, "Audio/Sink", NULL);
    if (!gst_device_monitor_start(monitor)) { gst_object_unref(monitor); return -1; }
    GList *devices = gst_device_monitor_get_devices(monitor);
    gint found = 0;
    for (GList *each = devices; each != NULL && !found; each = each->next) {
        GstDevice *device = GST_DEVICE(each->data);
        if (g_object_class_find_property(G_OBJECT_GET_CLASS(device), "internal-name") != NULL) {
            gchar *internal = NULL;
            g_object_get(device, "internal-name", &internal, NULL);
            found = g_strcmp0(internal, name) == 0;
            g_free(internal);
        }
        GstStructure *properties = gst_device_get_properties(device);
        if (properties != NULL) {
            found = found || g_strcmp0(gst_structure_get_string(properties, "node.name"), name) == 0;
            gst_structure_free(properties);
        }
    }
    g_list_free_full(devices, gst_object_unref);
    gst_device_monitor_stop(monitor);
    gst_object_unref(monitor);
    return found;
}

/// `gst_structure_new_empty` plus `gst_message_new_application`, to wake the bus reader.
static inline GstMessage *pods_message_new_wakeup(void) {
    return gst_message_new_application(NULL, gst_structure_new_empty("pods-wakeup"));
}

/// Whether `message` is the one `pods_message_new_wakeup` made.
static inline gboolean pods_message_is_wakeup(GstMessage *message) {
    const GstStructure *structure = gst_message_get_structure(message);
    return GST_MESSAGE_TYPE(message) == GST_MESSAGE_APPLICATION && GST_MESSAGE_SRC(message) == NULL
        && structure != NULL && gst_structure_has_name(structure, "pods-wakeup");
}

/// The load generation that a bus's sync handler stamps on each message as
/// it is posted (on the posting thread), read and written atomically.
typedef struct { gint generation; } PodsBusStamp;

static inline GQuark pods_generation_quark(void) {
    return g_quark_from_static_string("pods-load-generation");
}

static void pods_free_alternate_stack(gpointer stack) {
    stack_t none = { .ss_sp = NULL, .ss_flags = SS_DISABLE, .ss_size = 0 };
    sigaltstack(&none, NULL);
    g_free(stack);
}

static GPrivate pods_alternate_stack = G_PRIVATE_INIT(pods_free_alternate_stack);

/// Gives the calling thread an alternate signal stack, unless it has one,
/// freed as the thread ends: a stack overflow on a streaming thread then
/// reaches the crash handler (SA_ONSTACK) instead of faulting again in it
/// and killing podsd with nothing marked (REVIEW-4, N9).
static inline void pods_thread_alternate_stack(void) {
    if (g_private_get(&pods_alternate_stack) != NULL) return;
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return;
    size_t size = 64 * 1024;
    void *stack = g_malloc(size);
    stack_t alternate = { .ss_sp = stack, .ss_flags = 0, .ss_size = size };
    if (sigaltstack(&alternate, NULL) != 0) { g_free(stack); return; }
    g_private_set(&pods_alternate_stack, stack);
}

static GstBusSyncReply pods_stamp_message(GstBus *bus, GstMessage *message, gpointer data) {
    (void)bus;
    PodsBusStamp *stamp = data;
    // A streaming thread says it has started on itself, before it streams anything.
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_STREAM_STATUS) {
        GstStreamStatusType type;
        GstElement *owner = NULL;
        gst_message_parse_stream_status(message, &type, &owner);
        if (type == GST_STREAM_STATUS_TYPE_ENTER) pods_thread_alternate_stack();
    }
    // Stored plus one, so that an unstamped message reads as -1.
    gst_mini_object_set_qdata(GST_MINI_OBJECT_CAST(message), pods_generation_quark(),
                              GINT_TO_POINTER(g_atomic_int_get(&stamp->generation) + 1), NULL);
    return GST_BUS_PASS;
}

/// Installs the stamping sync handler on `bus`; the bus frees the stamp.
static inline PodsBusStamp *pods_bus_stamp_install(GstBus *bus) {
    PodsBusStamp *stamp = g_new0(PodsBusStamp, 1);
    gst_bus_set_sync_handler(bus, pods_stamp_message, stamp, g_free);
    return stamp;
}

static inline void pods_bus_stamp_set(PodsBusStamp *stamp, gint generation) {
    g_atomic_int_set(&stamp->generation, generation);
}

/// The generation stamped on `message` when it was posted; -1 for none.
static inline gint pods_message_generation(GstMessage *message) {
    return GPOINTER_TO_INT(gst_mini_object_get_qdata(GST_MINI_OBJECT_CAST(message), pods_generation_quark())) - 1;
}

/// `GST_OBJECT_CAST` is a macro; playbin's `source-setup` hands over a GstElement.
static inline void pods_object_unref(gpointer object) {
    gst_object_unref(object);
}

/// `g_signal_connect` is a macro.
static inline gulong pods_signal_connect(gpointer instance, const char *signal, GCallback handler, gpointer data) {
    return g_signal_connect(instance, signal, handler, data);
}

/// `GST_IS_APP_SRC` is a macro: is playbin's new source our `appsrc://`?
static inline gboolean pods_is_app_source(gpointer element) {
    return GST_IS_APP_SRC(element);
}

/// `GST_EVENT_TYPE` and `GST_PAD_PROBE_INFO_EVENT` are macros.
static inline gboolean pods_probe_is_flush_start(GstPadProbeInfo *info) {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
    return event != NULL && GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_START;
}

/// The shape of raw audio a probe's CAPS event announces: 1 with
/// `channels`, `rate` and `bytesPerSample` set for interleaved S16LE (2),
/// F32LE (4) or F64LE (8); 0 for any other event or format.
static inline gboolean pods_probe_audio_caps(GstPadProbeInfo *info, gint *channels, gint *rate, gint *bytesPerSample) {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
    if (event == NULL || GST_EVENT_TYPE(event) != GST_EVENT_CAPS) return 0;
    GstCaps *caps = NULL;
    gst_event_parse_caps(event, &caps);
    if (caps == NULL || gst_caps_get_size(caps) < 1) return 0;
    GstStructure *structure = gst_caps_get_structure(caps, 0);
    const gchar *format = gst_structure_get_string(structure, "format");
    const gchar *layout = gst_structure_get_string(structure, "layout");
    if (format == NULL || (layout != NULL && g_strcmp0(layout, "interleaved") != 0)) return 0;
    if (g_strcmp0(format, "S16LE") == 0) *bytesPerSample = 2;
    else if (g_strcmp0(format, "F32LE") == 0) *bytesPerSample = 4;
    else if (g_strcmp0(format, "F64LE") == 0) *bytesPerSample = 8;
    else return 0;
    if (!gst_structure_get_int(structure, "channels", channels) || !gst_structure_get_int(structure, "rate", rate)) return 0;
    return 1;
}

/// Whether a probe's event starts a new stream (an episode).
static inline gboolean pods_probe_is_stream_start(GstPadProbeInfo *info) {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
    return event != NULL && GST_EVENT_TYPE(event) == GST_EVENT_STREAM_START;
}

/// A probe's buffer (`GST_PAD_PROBE_INFO_BUFFER` is a macro); NULL for an event.
static inline GstBuffer *pods_probe_buffer(GstPadProbeInfo *info) {
    return GST_PAD_PROBE_INFO_BUFFER(info);
}

/// A probe's buffer made writable (copied if shared, and put back in
/// `info`) and mapped for reading and writing; NULL when it cannot be.
/// Unmap with `gst_buffer_unmap(buffer, map)`.
static inline GstBuffer *pods_probe_map_writable(GstPadProbeInfo *info, GstMapInfo *map) {
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
    if (buffer == NULL) return NULL;
    buffer = gst_buffer_make_writable(buffer);
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
    if (!gst_buffer_map(buffer, map, GST_MAP_READWRITE)) return NULL;
    return buffer;
}

/// decodebin's autoplug-select: skips adaptive demuxers (HLS, DASH,
/// Smooth Streaming), which would fetch the URLs a file names. (Its
/// GstAutoplugSelectResult is in no installed header: TRY 0, SKIP 2.)
static gint pods_skip_adaptive(GstElement *bin, GstPad *pad, GstCaps *caps, GstElementFactory *factory, gpointer data) {
    const gchar *klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
    return (klass != NULL && strstr(klass, "Adaptive") != NULL) ? 2 : 0;
}

/// Makes `decodebin` decode only what is in its input: no adaptive demuxer.
static inline void pods_decodebin_refuse_adaptive(GstElement *decodebin) {
    g_signal_connect(decodebin, "autoplug-select", G_CALLBACK(pods_skip_adaptive), NULL);
}

/// `GST_BUFFER_OFFSET` is a macro (an lvalue).
static inline void pods_buffer_set_offset(GstBuffer *buffer, guint64 offset) {
    GST_BUFFER_OFFSET(buffer) = offset;
}

/// `GST_ELEMENT_ERROR` is a macro: posts a read error from `element` on its bus.
static inline void pods_element_post_read_error(GstElement *element, const char *text) {
    GST_ELEMENT_ERROR(element, RESOURCE, READ, ("%s", text), (NULL));
}

/// The http(s) URI that `message`'s sender reads, when the sender is a
/// source element doing so (souphttpsrc); NULL otherwise. Free with g_free.
/// With libsoup 3, souphttpsrc reports a refused connection or an unknown
/// host only as the stream error its loop posts when it stops.
static inline gchar *pods_message_network_source_uri(GstMessage *message) {
    GstObject *sender = GST_MESSAGE_SRC(message);
    if (sender == NULL || !GST_IS_ELEMENT(sender) || !GST_OBJECT_FLAG_IS_SET(sender, GST_ELEMENT_FLAG_SOURCE)
        || !GST_IS_URI_HANDLER(sender)) return NULL;
    gchar *uri = gst_uri_handler_get_uri(GST_URI_HANDLER(sender));
    if (uri != NULL && (g_ascii_strncasecmp(uri, "http://", 7) == 0 || g_ascii_strncasecmp(uri, "https://", 8) == 0)) return uri;
    g_free(uri);
    return NULL;
}

/// Replaces the element called `name` in `bin` with a new one from the same
/// factory, linked where the old one was: after the element feeding its
/// sink pad, and as the target of the bin's "src" ghost pad when it fed
/// that. Call only while no data flows (the bin at READY or below); the new
/// element takes the bin's state. Returns FALSE (and changes nothing) when
/// `bin` has no such element.
///
/// For `scaletempo`: GStreamer 1.22's (and upstream's, to at least
/// 2026-08) `stop()` frees its sample queue but keeps the queue's fill
/// count, so the next stream's first buffer makes `reinit_buffers()`
/// memmove from the freed (NULL) queue whenever the new format needs a
/// smaller queue than the old one had filled: a segfault in a streaming
/// thread. A new element starts with nothing queued.
static inline gboolean pods_bin_renew_element(GstBin *bin, const char *name) {
    GstElement *old = gst_bin_get_by_name(bin, name);
    if (old == NULL) return FALSE;
    GstElementFactory *factory = gst_element_get_factory(old);
    GstElement *fresh = factory != NULL ? gst_element_factory_create(factory, NULL) : NULL;
    if (fresh == NULL) { gst_object_unref(old); return FALSE; }
    GstPad *oldSink = gst_element_get_static_pad(old, "sink");
    GstPad *oldSource = gst_element_get_static_pad(old, "src");
    GstPad *upstream = oldSink != NULL ? gst_pad_get_peer(oldSink) : NULL;
    GstPad *ghost = gst_element_get_static_pad(GST_ELEMENT(bin), "src");
    GstPad *ghostTarget = ghost != NULL && GST_IS_GHOST_PAD(ghost) ? gst_ghost_pad_get_target(GST_GHOST_PAD(ghost)) : NULL;
    gboolean fedGhost = ghostTarget != NULL && ghostTarget == oldSource;
    gst_element_set_state(old, GST_STATE_NULL);
    gst_bin_remove(bin, old);  /* unlinks it */
    gst_element_set_name(fresh, name);
    gst_bin_add(bin, fresh);
    GstPad *freshSink = gst_element_get_static_pad(fresh, "sink");
    GstPad *freshSource = gst_element_get_static_pad(fresh, "src");
    if (upstream != NULL && freshSink != NULL) gst_pad_link(upstream, freshSink);
    if (fedGhost && freshSource != NULL) gst_ghost_pad_set_target(GST_GHOST_PAD(ghost), freshSource);
    gst_element_sync_state_with_parent(fresh);
    if (freshSink) gst_object_unref(freshSink);
    if (freshSource) gst_object_unref(freshSource);
    if (ghostTarget) gst_object_unref(ghostTarget);
    if (ghost) gst_object_unref(ghost);
    if (upstream) gst_object_unref(upstream);
    if (oldSource) gst_object_unref(oldSource);
    if (oldSink) gst_object_unref(oldSink);
    gst_object_unref(old);
    return TRUE;
}

#endif
