import PodsDBus

/// Marks `org.mpris.MediaPlayer2`'s methods.
public enum MPRISRootInterface {}
/// A method of `org.mpris.MediaPlayer2`, the root interface.
public typealias MPRISRootMethod = InterfaceMethod<MPRISRootInterface>

extension InterfaceMethod where Interface == MPRISRootInterface {
    /// Shows the window (`pods-gtk`), starting it if need be; nothing where it is not installed (`CanRaise` false).
    public static let raise = MPRISRootMethod("Raise")
    public static let quit = MPRISRootMethod("Quit")

    /// Every method, in introspection order.
    public static let all: [MPRISRootMethod] = [raise, quit]
}

extension MPRIS {
    /// `org.mpris.MediaPlayer2`'s properties.
    public enum RootProperty {
        public static let canQuit = MPRISProperty("CanQuit", .bool)
        /// Writable by the specification; Pods refuses `true`.
        public static let fullscreen = MPRISProperty("Fullscreen", .bool, writable: true)
        public static let canSetFullscreen = MPRISProperty("CanSetFullscreen", .bool)
        public static let canRaise = MPRISProperty("CanRaise", .bool)
        public static let hasTrackList = MPRISProperty("HasTrackList", .bool)
        public static let identity = MPRISProperty("Identity", .string)
        public static let desktopEntry = MPRISProperty("DesktopEntry", .string)
        public static let supportedUriSchemes = MPRISProperty("SupportedUriSchemes", .array(.string))
        public static let supportedMimeTypes = MPRISProperty("SupportedMimeTypes", .array(.string))

        /// Every one, in the specification's order.
        public static let all = [canQuit, fullscreen, canSetFullscreen, canRaise, hasTrackList, identity, desktopEntry,
                                 supportedUriSchemes, supportedMimeTypes]
    }
}
