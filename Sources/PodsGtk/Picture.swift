import CGtk

/// A picture (`GtkPicture`) shown from PNG bytes, with the alternative text
/// a screen reader says of it. Bytes that are no picture show nothing.
@MainActor
public final class Picture: Widget {
    public init(size: Int) {
        super.init(taking: gtk_picture_new())
        gtk_picture_set_content_fit(pods_picture(raw), GTK_CONTENT_FIT_CONTAIN)
        gtk_picture_set_can_shrink(pods_picture(raw), 1)
        self.size(width: size, height: size)
        isVisible = false
    }

    /// Shows `png` (made by podsd from the feed's artwork) and says `alternative` of it.
    public func show(png: [UInt8], alternative: String) {
        let texture = png.withUnsafeBytes { buffer -> OpaquePointer? in
            guard let bytes = g_bytes_new(buffer.baseAddress, gsize(buffer.count)) else { return nil }
            defer { g_bytes_unref(bytes) }
            var error: UnsafeMutablePointer<GError>?
            let texture = gdk_texture_new_from_bytes(bytes, &error)
            if let error { g_error_free(error) }
            return texture
        }
        guard let texture else { return clear() }
        gtk_picture_set_paintable(pods_picture(raw), pods_paintable(UnsafeMutableRawPointer(texture)))
        g_object_unref(UnsafeMutableRawPointer(texture))
        gtk_picture_set_alternative_text(pods_picture(raw), DisplaySafe.text(alternative))
        name(alternative)
        isVisible = true
    }

    public func clear() {
        gtk_picture_set_paintable(pods_picture(raw), nil)
        isVisible = false
    }
}
