internal import CGStreamer
import Foundation

/// Turns a picture (PNG, JPEG or WebP, by its first bytes) into a
/// square PNG of a given size, letterboxed: artwork for terminals that show
/// pictures (`pods ui`).
///
/// Pictures come from the internet, so podsd never decodes one itself: it
/// runs its own executable in `helperArgument` mode, under limits
/// (`runAsHelper`), and a picture that crashes or floods a decoder takes
/// only that process with it.
public enum ImageRenderer {
    /// The first argument of the helper process: `podsd --render-artwork IN OUT PIXELS`.
    public static let helperArgument = "--render-artwork"
    /// The largest side asked for.
    public static let pixelRange = 16...1024

    /// The helper's whole life: limits, render, exit status (0 written, 1 not).
    public static func runAsHelper(_ arguments: [String]) -> Int32 {
        guard arguments.count == 3, let pixels = Int(arguments[2]), pixelRange.contains(pixels) else {
            FileHandle.standardError.write(Data("podsd \(helperArgument) INPUT OUTPUT PIXELS\n".utf8))
            return 2
        }
        HelperLimits.apply(memoryBytes: 768 << 20, cpuSeconds: 15)
        do {
            try render(arguments[0], to: arguments[1], pixels: pixels)
            return 0
        } catch {
            FileHandle.standardError.write(Data("podsd: \(error.message)\n".utf8))
            return 1
        }
    }

    /// The decoding part of the pipeline for a picture that starts with
    /// `head`, by its magic bytes; nil for anything else.
    static func decoder(forHead head: [UInt8]) -> String? {
        // typefind only names the type; the one decoder after it is ours to choose.
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "typefind ! pngdec" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "typefind ! jpegdec" }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) {
            return "typefind ! webpdec"
        }
        return nil
    }

    private static func head(of path: String) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        return Array((try? handle.read(upToCount: 16)) ?? Data())
    }

    /// Renders `input` as a `pixels`×`pixels` PNG at `output`, in this process.
    public static func render(_ input: String, to output: String, pixels: Int) throws(PlaybackError) {
        guard pixelRange.contains(pixels) else { throw PlaybackError(.other, "a picture is \(pixelRange) pixels wide") }
        gst_init(nil, nil)
        guard let decoder = decoder(forHead: head(of: input)) else {
            throw PlaybackError(.undecodable, "the artwork is not a PNG, JPEG or WebP picture")
        }
        // One image decoder, named: never decodebin, which would autoplug any demuxer for what
        // the bytes claim to be (an HLS or DASH playlist makes hlsdemux or dashdemux fetch URLs).
        let description = "filesrc name=source ! \(decoder) ! videoconvert ! videoscale add-borders=true "
            + "! capsfilter name=size ! pngenc snapshot=true ! filesink name=sink"
        var error: UnsafeMutablePointer<GError>?
        let parsed = gst_parse_launch(description, &error)
        if let error {
            let message = error.pointee.message.map { String(cString: $0) } ?? "no pipeline"
            g_error_free(error)
            if let parsed { gst_object_unref(parsed) }
            throw PlaybackError(.setup, "pictures cannot be read here (\(message): is gstreamer1.0-plugins-good installed?)")
        }
        guard let pipeline = parsed else { throw PlaybackError(.setup, "pictures cannot be read here") }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(pipeline)
        }
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        func element(_ name: String) -> UnsafeMutablePointer<GstElement>? { gst_bin_get_by_name(bin, name) }
        guard let source = element("source"), let size = element("size"), let sink = element("sink") else {
            throw PlaybackError(.setup, "pictures cannot be read here")
        }
        defer { for element in [source, size, sink] { gst_object_unref(element) } }
        pods_object_set_string(source, "location", input)
        pods_object_set_string(sink, "location", output)
        guard let caps = gst_caps_from_string("video/x-raw,format=RGB,width=\(pixels),height=\(pixels),pixel-aspect-ratio=1/1") else {
            throw PlaybackError(.setup, "pictures cannot be read here")
        }
        pods_object_set_object(size, "caps", caps)  // a boxed value: g_object_set takes its pointer (and copies it)
        gst_caps_unref(caps)
        guard gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE else {
            throw PlaybackError(.undecodable, "the picture could not be read")
        }
        let bus = gst_element_get_bus(pipeline)
        defer { gst_object_unref(bus) }
        let wanted = GstMessageType(rawValue: GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_EOS.rawValue)
        guard let message = gst_bus_timed_pop_filtered(bus, 10_000_000_000, wanted) else {
            throw PlaybackError(.undecodable, "the picture took too long to read")
        }
        defer { gst_message_unref(message) }
        guard pods_message_type(message) == GST_MESSAGE_EOS else {
            throw PlaybackError(.undecodable, "the picture could not be read")
        }
    }
}
