import CGtk

/// An image shown from PNG bytes (artwork podsd rendered), with the text
/// a screen reader says for it.
@MainActor
public final class Picture: Widget {
    public init(alternative: String, pixels: Int) {
        super.init(taking: gtk_picture_new())
        gtk_picture_set_alternative_text(pods_picture(raw), alternative)
        gtk_picture_set_can_shrink(pods_picture(raw), 1)
        size(width: pixels, height: pixels)
    }

    public func alternative(_ text: String) { gtk_picture_set_alternative_text(pods_picture(raw), DisplaySafe.text(text)) }

    /// Shows `png`; bytes GTK cannot read leave the picture empty.
    public func show(png: [UInt8]) {
        let bytes = png.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        guard let texture = gdk_texture_new_from_bytes(bytes, nil) else { return clear() }
        gtk_picture_set_paintable(pods_picture(raw), texture)
        g_object_unref(UnsafeMutableRawPointer(texture))
    }

    public func clear() { gtk_picture_set_paintable(pods_picture(raw), nil) }
}
