import Foundation

/// Which server API a sync account speaks (SYNC.md).
public enum SyncAPIKind: String, Sendable, CaseIterable {
    /// gpodder.net API v2 and its self-hosted peers (mygpo, opodsync, …): devices, per-device subscriptions.
    case gpodder
    /// The Nextcloud "GPodder Sync" app: no devices, one row per episode, plays only.
    case nextcloud
}

/// One HTTP request of a sync.
public struct SyncRequest: Sendable, Equatable {
    public var url: String
    /// nil: a GET.
    public var body: Data?
}

/// The URLs and bodies of both APIs for one account.
public struct SyncEndpoints: Sendable {
    public var api: SyncAPIKind
    /// The server's address without a trailing slash (Nextcloud's may carry a path).
    public var server: String
    public var user: String
    public var device: String

    public init(api: SyncAPIKind, server: String, user: String, device: String) {
        self.api = api
        var base = server.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        self.server = base
        self.user = user
        self.device = device
    }

    private var userPart: String { Self.pathSegment(user) }
    private var devicePart: String { Self.pathSegment(device) }
    private var nextcloud: String { server + "/index.php/apps/gpoddersync" }

    /// A request that needs the credentials and answers quickly: gpodder.net's
    /// login, Nextcloud's subscription changes from now.
    public func check(now: Date) -> SyncRequest {
        switch api {
        case .gpodder: SyncRequest(url: "\(server)/api/2/auth/\(userPart)/login.json", body: Data())
        case .nextcloud: SyncRequest(url: "\(nextcloud)/subscriptions?since=\(Int(now.timeIntervalSince1970))")
        }
    }

    /// gpodder.net only: registers (or renames) this device.
    public func registerDevice(caption: String) -> SyncRequest? {
        guard api == .gpodder else { return nil }
        let body = try? JSONSerialization.data(withJSONObject: ["caption": caption, "type": "desktop"])
        return SyncRequest(url: "\(server)/api/2/devices/\(userPart)/\(devicePart).json", body: body ?? Data())
    }

    public func subscriptionChanges(since: Int64) -> SyncRequest {
        switch api {
        case .gpodder: SyncRequest(url: "\(server)/api/2/subscriptions/\(userPart)/\(devicePart).json?since=\(max(0, since))")
        case .nextcloud: SyncRequest(url: "\(nextcloud)/subscriptions?since=\(max(0, since))")
        }
    }

    public func uploadSubscriptions(add: [String], remove: [String]) -> SyncRequest {
        let body = (try? JSONSerialization.data(withJSONObject: ["add": add, "remove": remove], options: [.withoutEscapingSlashes])) ?? Data()
        return switch api {
        case .gpodder: SyncRequest(url: "\(server)/api/2/subscriptions/\(userPart)/\(devicePart).json", body: body)
        case .nextcloud: SyncRequest(url: "\(nextcloud)/subscription_change/create", body: body)
        }
    }

    public func actions(since: Int64) -> SyncRequest {
        switch api {
        case .gpodder: SyncRequest(url: "\(server)/api/2/episodes/\(userPart).json?since=\(max(0, since))")
        case .nextcloud: SyncRequest(url: "\(nextcloud)/episode_action?since=\(max(0, since))")
        }
    }

    /// At most `ActionBatches.size` actions. gpodder.net's carry the device;
    /// Nextcloud keeps plays alone, so an episode marked unplayed goes as a
    /// play at 0 (which AntennaPod ignores and Pods reads as unplayed).
    public func uploadActions(_ actions: [EpisodeAction]) -> SyncRequest {
        let objects = actions.map { action -> [String: Any] in
            var action = action
            switch api {
            case .gpodder:
                action.device = device
            case .nextcloud:
                if action.kind == .new {
                    action.kind = .play
                    action.started = 0
                    action.position = 0
                    action.total = action.total ?? 0
                }
            }
            return action.jsonObject
        }
        let body = (try? JSONSerialization.data(withJSONObject: objects, options: [.withoutEscapingSlashes])) ?? Data()
        return switch api {
        case .gpodder: SyncRequest(url: "\(server)/api/2/episodes/\(userPart).json", body: body)
        case .nextcloud: SyncRequest(url: "\(nextcloud)/episode_action/create", body: body)
        }
    }

    /// Which actions the server keeps: Nextcloud drops all but plays.
    public func keeps(_ kind: EpisodeAction.Kind) -> Bool {
        api == .gpodder || kind == .play || kind == .new
    }

    private static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    /// A device id as gpodder.net allows them (`[\w.-]+`): `pods-` and the host name.
    public static func defaultDevice(hostName: String) -> String {
        let kept = hostName.lowercased().unicodeScalars.map { scalar -> Character in
            CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "-" || scalar == "_" ? Character(scalar) : "-"
        }
        return "pods-" + (kept.isEmpty ? "desktop" : String(kept))
    }
}
