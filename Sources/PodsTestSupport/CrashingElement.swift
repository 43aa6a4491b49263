import Foundation

/// A GStreamer plugin, built by the test with the system's C compiler,
/// whose element `podscrash` passes audio through until a trigger file
/// exists, then writes through a null pointer in the streaming thread: a
/// real crash where GStreamer crashes happen (a signal sent with kill(2)
/// is not one: Swift's backtracer prints a report for it and the process
/// goes on, since no instruction faults again).
public enum CrashingElement {
    /// Builds the plugin into `directory` (for `GST_PLUGIN_PATH`).
    public static func build(in directory: URL) async throws {
        let source = directory.appendingPathComponent("podscrash.c")
        try Data(code.utf8).write(to: source)
        let flags = await Subprocess.run("pkg-config", ["--cflags", "--libs", "gstreamer-1.0", "gstreamer-base-1.0"])
        guard flags.status == 0 else { throw TestSupportError("pkg-config: \(flags)") }
        let compiler = FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") ? "/usr/bin/cc" : "clang"
        let result = await Subprocess.run(compiler, ["-shared", "-fPIC", "-o", directory.appendingPathComponent("libgstpodscrash.so").path,
                                                     source.path] + flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init),
                                          timeout: .seconds(60))
        guard result.status == 0 else { throw TestSupportError("cc: \(result)") }
    }

    /// An audio sink description: the element ahead of `fakesink sync=true`,
    /// crashing once `trigger` exists.
    /// `overflow`: the crash is a stack overflow (endless recursion), not a write through a null pointer.
    public static func sink(trigger: URL, overflow: Bool = false) -> String {
        "podscrash trigger=\(trigger.path)\(overflow ? " overflow=true" : "") ! fakesink sync=true"
    }

    private static let code = #"""
    #define PACKAGE "pods-tests"
    #include <gst/gst.h>
    #include <gst/base/gstbasetransform.h>
    #include <unistd.h>

    typedef struct { GstBaseTransform parent; gchar *trigger; gboolean overflow; } PodsCrash;
    typedef struct { GstBaseTransformClass parent_class; } PodsCrashClass;
    G_DEFINE_TYPE(PodsCrash, pods_crash, GST_TYPE_BASE_TRANSFORM)

    static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
    static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

    static int deeper(volatile int depth) {
        volatile char frame[4096];
        frame[0] = (char)depth;
        return deeper(depth + 1) + frame[0];  /* not a tail call: every frame stays */
    }

    static GstFlowReturn transform_ip(GstBaseTransform *transform, GstBuffer *buffer) {
        PodsCrash *self = (PodsCrash *)transform;
        if (self->trigger != NULL && access(self->trigger, F_OK) == 0) {
            if (self->overflow) return deeper(0) == 0 ? GST_FLOW_OK : GST_FLOW_ERROR;
            volatile int *nowhere = NULL;
            *nowhere = 1;
        }
        return GST_FLOW_OK;
    }

    static void set_property(GObject *object, guint id, const GValue *value, GParamSpec *spec) {
        PodsCrash *self = (PodsCrash *)object;
        if (id == 2) { self->overflow = g_value_get_boolean(value); return; }
        g_free(self->trigger);
        self->trigger = g_value_dup_string(value);
    }

    static void get_property(GObject *object, guint id, GValue *value, GParamSpec *spec) {
        if (id == 2) { g_value_set_boolean(value, ((PodsCrash *)object)->overflow); return; }
        g_value_set_string(value, ((PodsCrash *)object)->trigger);
    }

    static void pods_crash_class_init(PodsCrashClass *klass) {
        GObjectClass *object_class = G_OBJECT_CLASS(klass);
        object_class->set_property = set_property;
        object_class->get_property = get_property;
        g_object_class_install_property(object_class, 1,
            g_param_spec_string("trigger", "Trigger", "Crash once this file exists", NULL, G_PARAM_READWRITE));
        g_object_class_install_property(object_class, 2,
            g_param_spec_boolean("overflow", "Overflow", "Crash by overflowing the stack", FALSE, G_PARAM_READWRITE));
        GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
        gst_element_class_add_static_pad_template(element_class, &sink_template);
        gst_element_class_add_static_pad_template(element_class, &src_template);
        gst_element_class_set_static_metadata(element_class, "Crash", "Filter", "Crashes on demand", "Pods tests");
        GST_BASE_TRANSFORM_CLASS(klass)->transform_ip = transform_ip;
    }

    static void pods_crash_init(PodsCrash *self) {
        gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), TRUE);
    }

    static gboolean plugin_init(GstPlugin *plugin) {
        return gst_element_register(plugin, "podscrash", GST_RANK_NONE, pods_crash_get_type());
    }

    GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, podscrash, "Crashes on demand", plugin_init,
                      "1.0", "LGPL", "pods-tests", "https://example.invalid/")
    """#
}
