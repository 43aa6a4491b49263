import PodsConcurrency
import PodsDBus

/// The threads D-Bus services that tests stand up (a Secret Service, a
/// notification daemon, echo and page services) answer on. Not the
/// cooperative pool: a test run keeps both of its threads busy with
/// synchronous work for seconds at a time, and a stand-in that waited for
/// them answered after its caller's timeout.
public enum StandInLane {
    public static let executor = BlockingLane("pods.stand-in", width: 2)
}

extension DBusConnection {
    /// Exports a stand-in's object with its calls answered on `StandInLane`.
    public func exportStandIn(_ object: DBusExportedObject) {
        var object = object
        object.executor = StandInLane.executor
        export(object)
    }
}
