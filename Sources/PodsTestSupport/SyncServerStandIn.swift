import Foundation
import Synchronization

/// A loopback stand-in for a sync server, following what the real ones do
/// (shared/design/SYNC.md), quirks included:
///
/// - gpodder.net (mygpo): Basic auth on `/api/2/`; devices; subscriptions
///   per device (devices linked with `sync-devices` share them), uploaded
///   as deltas whose URLs the server sanitises and reports in `update_urls`
///   (here: whitespace trimmed, `utm_*` parameters dropped); a log of every
///   episode action, handed out by the action's OWN timestamp (`>= since`,
///   `< now`), at most 1000 at once, the answer's `timestamp` that of the
///   last action returned (now when none), timestamps without a zone.
/// - Nextcloud GPodder Sync: Basic auth under `/index.php/apps/gpoddersync/`;
///   one row per episode (found by guid first, else by episode URL; a stored
///   guid never nulled), the last upload wins whatever its timestamp; only
///   plays kept; actions out in upper case with `+00:00` timestamps; `since`
///   strict (`>`) on the action's timestamp; the answer's `timestamp` is now.
///
/// Every answer carries a `Date` header, as real servers' do.
public final class SyncServerStandIn: Sendable {
    public enum API: String, Sendable { case gpodder, nextcloud }

    /// One stored episode action, as the server keeps it.
    public struct StoredAction: Sendable, Equatable {
        public var podcast: String
        public var episode: String
        public var guid: String?
        public var action: String
        public var timestamp: Int64
        public var started: Int?
        public var position: Int?
        public var total: Int?
        public var device: String?
    }

    private struct State {
        var devices: [String: String] = [:]  // id → caption
        var groups: [[String]] = []
        /// (device, url, subscribed, server time) per change.
        var subscriptionEvents: [(device: String, url: String, subscribed: Bool, at: Int64)] = []
        var actions: [StoredAction] = []
        /// Every upload body, for checking what clients send.
        var uploads: [Data] = []
        var episodeUploads = 0
    }

    public let api: API
    public let http: LoopbackHTTPServer
    public let user: String
    private let state = Mutex(State())
    /// Answers one request instead of the API (a 500 mid-batch, say); nil: the API answers.
    private let interceptor = Mutex<(@Sendable (LoopbackHTTPServer.Request, Int) -> LoopbackHTTPServer.Response?)?>(nil)

    public init(api: API, user: String = "alice", password: String = "s3cret-app-pw") throws {
        self.api = api
        self.user = user
        http = try LoopbackHTTPServer(files: [:])
        switch api {
        case .gpodder:
            http.requireCredentials("/api/2/", user: user, password: password)
            http.setHandler("/api/2/") { [self] request in answer(request) { gpodder($0) } }
        case .nextcloud:
            http.requireCredentials("/index.php/apps/gpoddersync/", user: user, password: password)
            http.setHandler("/index.php/apps/gpoddersync/") { [self] request in answer(request) { nextcloud($0) } }
        }
    }

    /// The address to give `pods sync setup`.
    public var url: String { http.url("") }

    public func stop() { http.stop() }

    // MARK: - What tests look at

    public var storedActions: [StoredAction] { state.withLock { $0.actions } }
    /// Every body uploaded to the episode-action endpoint, as sent.
    public var uploadedActionBodies: [Data] { state.withLock { $0.uploads } }
    public var episodeUploadCount: Int { state.withLock { $0.episodeUploads } }
    public var devices: [String] { state.withLock { Array($0.devices.keys).sorted() } }

    /// The URLs `device`'s subscription list holds now (Nextcloud: the user's).
    public func subscriptions(device: String = "") -> [String] {
        state.withLock { state in
            let group = Self.group(of: device, in: state)
            var latest: [String: Bool] = [:]
            for event in state.subscriptionEvents where api == .nextcloud || group.contains(event.device) { latest[event.url] = event.subscribed }
            return latest.filter(\.value).keys.sorted()
        }
    }

    /// Every feed URL any subscription change ever named (added or removed).
    public var subscriptionURLsSeen: Set<String> { state.withLock { Set($0.subscriptionEvents.map(\.url)) } }

    /// `handler(request, episodeUploadNumber)` answers instead of the API when it returns a response.
    public func intercept(_ handler: (@Sendable (LoopbackHTTPServer.Request, Int) -> LoopbackHTTPServer.Response?)?) {
        interceptor.withLock { $0 = handler }
    }

    /// Stores an action as another device's client would upload it (`json` as sent).
    public func upload(_ json: [[String: Any]]) {
        guard let body = try? JSONSerialization.data(withJSONObject: json) else { return }
        _ = storeActions(body, device: nil)
    }

    /// Subscribes or unsubscribes as another device would (gpodder: `device`).
    public func changeSubscriptions(device: String = "phone", add: [String], remove: [String] = []) {
        state.withLock { state in
            let now = Self.now()
            for url in add { state.subscriptionEvents.append((device, url, true, now)) }
            for url in remove { state.subscriptionEvents.append((device, url, false, now)) }
        }
    }

    /// Links gpodder.net devices so they share subscriptions (what a user does on the website).
    public func linkDevices(_ devices: [String]) {
        state.withLock { $0.groups.append(devices) }
    }

    // MARK: - Answering

    /// What the API itself answers (for an interceptor that passes a request on).
    public func apiAnswer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        api == .gpodder ? gpodder(request) : nextcloud(request)
    }

    private func answer(_ request: LoopbackHTTPServer.Request,
                        _ api: (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response) -> LoopbackHTTPServer.Response {
        let isEpisodeUpload = request.method == "POST" && (request.path.contains("/episodes/") || request.path.hasSuffix("/episode_action/create"))
        let number = isEpisodeUpload ? state.withLock { state in
            state.episodeUploads += 1
            return state.episodeUploads
        } : 0
        var response = interceptor.withLock({ $0 })?(request, number) ?? api(request)
        response.headers.append((name: "Date", value: Self.httpDate(Date())))
        return response
    }

    private static func json(_ object: Any, status: Int = 200) -> LoopbackHTTPServer.Response {
        LoopbackHTTPServer.Response(status: status, body: (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])) ?? Data())
    }

    private static func text(_ text: String, status: Int) -> LoopbackHTTPServer.Response {
        LoopbackHTTPServer.Response(status: status, type: "text/plain", body: Data(text.utf8))
    }

    private func gpodder(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        let parts = request.path.split(separator: "/").map(String.init)  // api, 2, kind, user, [device.json]
        guard parts.count >= 4, parts[3].replacingOccurrences(of: ".json", with: "") == user else {
            return Self.text("wrong user", status: 401)
        }
        switch (request.method, parts[2]) {
        case ("POST", "auth"):
            return Self.json([:])
        case ("POST", "devices") where parts.count == 5:
            let id = parts[4].replacingOccurrences(of: ".json", with: "")
            guard id.range(of: "^[\\w.-]+$", options: .regularExpression) != nil else { return Self.text("invalid device id", status: 400) }
            let caption = ((try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any])?["caption"] as? String ?? ""
            state.withLock { $0.devices[id] = caption }
            return Self.json([:])
        case ("GET", "subscriptions") where parts.count == 5:
            guard let since = request.query["since"].flatMap(Int64.init), since >= 0 else {
                return Self.text("parameter 'since' missing", status: 400)
            }
            let device = parts[4].replacingOccurrences(of: ".json", with: "")
            return Self.json(subscriptionChanges(device: device, since: since, strict: false))
        case ("POST", "subscriptions") where parts.count == 5:
            let device = parts[4].replacingOccurrences(of: ".json", with: "")
            guard let body = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] else {
                return Self.text("invalid JSON", status: 400)
            }
            let add = body["add"] as? [String] ?? [], remove = body["remove"] as? [String] ?? []
            guard Set(add).isDisjoint(with: remove) else { return Self.text("can not add and remove the same podcast", status: 400) }
            var updates: [[String]] = []
            state.withLock { state in
                let now = Self.now()
                for (urls, subscribed) in [(add, true), (remove, false)] {
                    for url in urls {
                        let clean = Self.sanitized(url)
                        if clean != url { updates.append([url, clean]) }
                        if !clean.isEmpty { state.subscriptionEvents.append((device, clean, subscribed, now)) }
                    }
                }
            }
            return Self.json(["timestamp": Self.now(), "update_urls": updates])
        case ("POST", "episodes"):
            guard storeActions(request.body, device: nil) else { return Self.text("invalid episode actions", status: 400) }
            return Self.json(["timestamp": Self.now(), "update_urls": []])
        case ("GET", "episodes"):
            // The action's own timestamp decides, >= since and < now; 1000 at most.
            let since = request.query["since"].flatMap(Int64.init) ?? 0
            let now = Self.now()
            let page = state.withLock { $0.actions }.filter { $0.timestamp >= since && $0.timestamp < now }
                .sorted { $0.timestamp < $1.timestamp }.prefix(1000)
            let actions = page.map { action -> [String: Any] in
                var object: [String: Any] = ["podcast": action.podcast, "episode": action.episode, "action": action.action,
                                             "timestamp": Self.naive(action.timestamp)]
                if let guid = action.guid { object["guid"] = guid }
                if let device = action.device { object["device"] = device }
                if let started = action.started { object["started"] = started }
                if let position = action.position { object["position"] = position }
                if let total = action.total { object["total"] = total }
                return object
            }
            return Self.json(["actions": actions, "timestamp": page.last?.timestamp ?? now])
        default:
            return Self.text("not found", status: 404)
        }
    }

    private func nextcloud(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        let endpoint = request.path.replacingOccurrences(of: "/index.php/apps/gpoddersync", with: "")
        let since = request.query["since"].flatMap(Int64.init) ?? 0
        switch (request.method, endpoint) {
        case ("GET", "/subscriptions"):
            return Self.json(subscriptionChanges(device: "", since: since, strict: true))
        case ("POST", "/subscription_change/create"):
            guard let body = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] else {
                return Self.text("invalid JSON", status: 400)
            }
            changeSubscriptions(device: "", add: body["add"] as? [String] ?? [], remove: body["remove"] as? [String] ?? [])
            return Self.json(["timestamp": Self.now()])
        case ("POST", "/episode_action/create"):
            guard storeActions(request.body, device: nil) else { return Self.text("invalid episode actions", status: 400) }
            return Self.json(["timestamp": Self.now()])
        case ("GET", "/episode_action"):
            let actions = state.withLock { $0.actions }.filter { $0.timestamp > since }.map { action -> [String: Any] in
                var object: [String: Any] = ["podcast": action.podcast, "episode": action.episode, "action": action.action.uppercased(),
                                             "timestamp": Self.naive(action.timestamp) + "+00:00",
                                             "started": action.started ?? -1, "position": action.position ?? -1, "total": action.total ?? -1]
                if let guid = action.guid { object["guid"] = guid }
                return object
            }
            return Self.json(["actions": actions, "timestamp": Self.now()])
        default:
            return LoopbackHTTPServer.Response(status: 404, type: "text/html", body: Data("<html><body>Page not found</body></html>".utf8))
        }
    }

    /// Each URL changed after `since` once, as its latest state.
    private func subscriptionChanges(device: String, since: Int64, strict: Bool) -> [String: Any] {
        state.withLock { state in
            let group = Self.group(of: device, in: state)
            var latest: [String: Bool] = [:]
            for event in state.subscriptionEvents where (api == .nextcloud || group.contains(event.device))
                && (strict ? event.at > since : event.at >= since) {
                latest[event.url] = event.subscribed
            }
            return ["add": latest.filter(\.value).keys.sorted(), "remove": latest.filter { !$0.value }.keys.sorted(),
                    "timestamp": Self.now()]
        }
    }

    /// Stores an upload as the server would; false for a body it refuses (400).
    private func storeActions(_ body: Data, device: String?) -> Bool {
        guard let list = (try? JSONSerialization.jsonObject(with: body)) as? [[String: Any]] else { return false }
        var parsed: [StoredAction] = []
        for object in list {
            guard let podcast = object["podcast"] as? String, let episode = object["episode"] as? String,
                  let action = (object["action"] as? String)?.lowercased() else { return false }
            let timestamp: Int64
            if let text = object["timestamp"] as? String {
                guard let parsedTime = Self.parse(text) else { return false }
                timestamp = parsedTime
            } else {
                // gpodder.net uses now; the Nextcloud app requires one.
                guard api == .gpodder else { return false }
                timestamp = Self.now()
            }
            parsed.append(StoredAction(podcast: podcast, episode: episode, guid: object["guid"] as? String, action: action,
                                       timestamp: timestamp, started: object["started"] as? Int, position: object["position"] as? Int,
                                       total: object["total"] as? Int, device: object["device"] as? String ?? device))
        }
        state.withLock { state in
            state.uploads.append(body)
            for action in parsed {
                switch api {
                case .gpodder:
                    state.actions.append(action)
                case .nextcloud:
                    guard action.action == "play" else { continue }  // 3.13.3: DELETE, DOWNLOAD and NEW are dropped
                    let row = action.guid.flatMap { guid in state.actions.firstIndex { $0.guid == guid } }
                        ?? state.actions.firstIndex { $0.episode == action.episode }
                    if let row {
                        let keptGuid = state.actions[row].guid
                        state.actions[row] = action
                        if action.guid == nil { state.actions[row].guid = keptGuid }
                    } else {
                        state.actions.append(action)
                    }
                }
            }
        }
        return true
    }

    // MARK: - Pieces

    private static func group(of device: String, in state: State) -> Set<String> {
        Set(state.groups.first { $0.contains(device) } ?? [device])
    }

    /// mygpo's sanitising, in part: whitespace trimmed, `utm_*` dropped, non-http(s) refused ("").
    static func sanitized(_ url: String) -> String {
        let trimmed = url.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("http://") || trimmed.hasPrefix("https://") else { return "" }
        guard var parts = URLComponents(string: trimmed) else { return trimmed }
        if let items = parts.queryItems {
            let kept = items.filter { !$0.name.hasPrefix("utm_") }
            parts.queryItems = kept.isEmpty ? nil : kept
        }
        return parts.string ?? trimmed
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    private static func naive(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// ISO 8601 with or without a zone (naive is UTC), as dateutil and PHP read it.
    private static func parse(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return Int64(date.timeIntervalSince1970) }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return Int64(date.timeIntervalSince1970) }
        return formatter.date(from: text + "Z").map { Int64($0.timeIntervalSince1970) }
            ?? ISO8601DateFormatter().date(from: String(text.prefix(19)) + "Z").map { Int64($0.timeIntervalSince1970) }
    }

    private static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
