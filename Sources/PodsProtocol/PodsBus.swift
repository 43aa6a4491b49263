import PodsDBus

/// The bus name podsd serves Pods' own interfaces under (`org.pods.Library2`,
/// `org.pods.Player1`), on a connection of its own.
///
/// The MPRIS name is granted widely (sandboxes give "talk" access to
/// `org.mpris.MediaPlayer2.*` so a media applet works), and a grant reaches
/// every object of the connection that owns the name. So the connection
/// owning `org.mpris.MediaPlayer2.pods` serves MPRIS and nothing else, and
/// the library, settings and sync, which reach the user's files, answer
/// only under this name.
public enum PodsBus {
    public static let name = "org.pods.Pods"
}

/// The window, `pods-gtk`: a GApplication under this id, which the bus
/// starts from its activation file (`data/org.pods.Pods.Window.service.in`)
/// when podsd asks it to show itself (MPRIS `Raise`).
public enum PodsWindowBus {
    public static let applicationID = "org.pods.Pods.Window"
    /// Where GApplication serves `org.freedesktop.Application` for that id.
    public static let objectPath = DBusObjectPath(validLiteral: "/org/pods/Pods/Window")
    public static let applicationInterface = "org.freedesktop.Application"
}
