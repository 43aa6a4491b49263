import PodsDBus

/// Names of Pods' own library interface, served under `PodsBus.name`.
public enum LibraryNames {
    public static let objectPath = DBusObjectPath(validLiteral: "/org/pods/Library")
    /// Typed and paged; replaces `org.pods.Library1`, whose lists were one
    /// JSON string each and grew with the library.
    public static let interface = "org.pods.Library2"

    /// Error names the library interface replies with.
    public enum Error {
        public static let notFound = "org.pods.Error.NotFound"
        public static let ambiguous = "org.pods.Error.Ambiguous"
        public static let duplicate = "org.pods.Error.Duplicate"
        public static let failed = "org.pods.Error.Failed"
    }
}
