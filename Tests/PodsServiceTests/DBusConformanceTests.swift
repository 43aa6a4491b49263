import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// Every method and property through `gdbus` and `dbus-send`, with right
/// and wrong arguments; podsd answers each and stays alive.
@Suite(.timeLimit(.minutes(10))) struct DBusConformanceTests {
    static let object = ["--session", "--dest", MPRIS.busName, "--object-path", MPRIS.objectPath.rawValue]

    func gdbusCall(_ podsd: PodsdProcess, _ method: String, _ arguments: String...) async -> CommandResult {
        await podsd.run("gdbus", ["call"] + Self.object + ["--method", method] + arguments, timeout: .seconds(15))
    }

    func dbusSend(_ podsd: PodsdProcess, _ method: String, _ arguments: String...) async -> CommandResult {
        await podsd.run("dbus-send", ["--session", "--print-reply", "--dest=\(MPRIS.busName)",
                                      MPRIS.objectPath.rawValue, method] + arguments, timeout: .seconds(15))
    }

    @Test func everyPropertyHasTheSpecType() async throws {
        let podsd = try await PodsdProcess.start()
        try await podsd.client.open(uri: Fixtures.sampleMP3.absoluteString)
        let expected: [String: [String: String]] = [
            MPRIS.rootInterface: [
                "CanQuit": "b", "CanRaise": "b", "HasTrackList": "b", "Identity": "s", "DesktopEntry": "s",
                "SupportedUriSchemes": "as", "SupportedMimeTypes": "as", "Fullscreen": "b", "CanSetFullscreen": "b",
            ],
            MPRIS.playerInterface: [
                "PlaybackStatus": "s", "Rate": "d", "Metadata": "a{sv}", "Volume": "d", "Position": "x",
                "MinimumRate": "d", "MaximumRate": "d", "CanGoNext": "b", "CanGoPrevious": "b", "CanPlay": "b",
                "CanPause": "b", "CanSeek": "b", "CanControl": "b",
            ],
        ]
        // Pods' declarations name exactly the specification's properties.
        #expect(Set(MPRIS.PlayerProperty.all.map(\.name)) == Set(expected[MPRIS.playerInterface]?.keys ?? [:].keys))
        for (interface, properties) in expected {
            let all = try await podsd.connection.call(
                destination: MPRIS.busName, path: MPRIS.objectPath, interface: "org.freedesktop.DBus.Properties",
                member: "GetAll", arguments: [.string(interface)])
            let values = try #require(all.first?.stringKeyedDictionary)
            #expect(Set(values.keys) == Set(properties.keys), "\(interface)")
            for (name, signature) in properties {
                #expect(values[name]?.type.signature == signature, "\(name)")
            }
        }
        let root = try await podsd.connection.call(
            destination: MPRIS.busName, path: MPRIS.objectPath, interface: "org.freedesktop.DBus.Properties",
            member: "GetAll", arguments: [.string(MPRIS.rootInterface)]).first?.stringKeyedDictionary ?? [:]
        #expect(root["Identity"] == .string("Pods"))
        #expect(root["DesktopEntry"] == .string("pods"))
        #expect(root["SupportedUriSchemes"]?.stringArrayValue == ["file", "http", "https", "pods"])
        #expect(root["SupportedMimeTypes"]?.stringArrayValue?.contains("audio/mpeg") == true)
        let metadata = try await podsd.client.property("Metadata").stringKeyedDictionary ?? [:]
        #expect(metadata["mpris:trackid"]?.type == .objectPath)
        #expect(metadata["mpris:length"]?.type == .int64)
        #expect(metadata["xesam:artist"]?.type == .array(.string))
        let xml = await podsd.run("gdbus", ["introspect", "--session", "--dest", MPRIS.busName,
                                            "--object-path", MPRIS.objectPath.rawValue, "--xml"]).stdout
        for needle in ["<interface name=\"org.mpris.MediaPlayer2.Player\">", "<method name=\"SetPosition\">",
                       "<arg name=\"TrackId\" type=\"o\" direction=\"in\"/>", "<signal name=\"Seeked\">",
                       "<property name=\"Position\" type=\"x\" access=\"read\">",
                       "<property name=\"Rate\" type=\"d\" access=\"readwrite\"/>",
                       "<interface name=\"org.freedesktop.DBus.Peer\">"] {
            #expect(xml.contains(needle), "\(needle)")
        }
        #expect(xml.components(separatedBy: "EmitsChangedSignal\" value=\"false\"").count == 3)  // Position, CanControl
        let desktopFile = try String(contentsOf: Fixtures.data("pods.desktop.in"), encoding: .utf8)
        #expect(desktopFile.contains("Name=Pods"))
    }

    @Test func rightAndWrongCallsAllGetAnswers() async throws {
        let podsd = try await PodsdProcess.start()
        let player = MPRIS.playerInterface
        let uri = Fixtures.sampleOgg.absoluteString
        // Right arguments.
        for (method, arguments) in [
            ("\(player).OpenUri", [uri]), ("\(player).Pause", []), ("\(player).Play", []), ("\(player).PlayPause", []),
            ("\(player).PlayPause", []), ("\(player).Seek", ["5000000"]), ("\(player).Next", []), ("\(player).Previous", []),
            ("\(player).Stop", []), ("org.mpris.MediaPlayer2.Raise", []),
            ("org.freedesktop.DBus.Properties.Get", [player, "Position"]),
            ("org.freedesktop.DBus.Properties.GetAll", [player]),
            ("org.freedesktop.DBus.Properties.Set", [player, "Volume", "<0.5>"]),
            ("org.freedesktop.DBus.Properties.Set", [player, "Rate", "<1.25>"]),
            ("org.freedesktop.DBus.Introspectable.Introspect", []), ("org.freedesktop.DBus.Peer.Ping", []),
            ("org.freedesktop.DBus.Peer.GetMachineId", []),
        ] as [(String, [String])] {
            let result = await podsd.run("gdbus", ["call"] + Self.object + ["--method", method] + arguments, timeout: .seconds(15))
            #expect(result.status == 0, "\(method) \(arguments): \(result)")
        }
        let trackID = try #require(try await podsd.client.property("Metadata").stringKeyedDictionary?["mpris:trackid"]?.stringValue)
        #expect(await gdbusCall(podsd, "\(player).SetPosition", trackID, "1000000").status == 0)

        // Wrong arguments: each an error with the right name.
        let wrong: [(String, [String], String)] = [
            ("\(player).Seek", [], "InvalidArgs"),
            ("\(player).OpenUri", ["ftp://example.com/a.mp3"], "NotSupported"),
            ("\(player).OpenUri", ["file:///nonexistent.mp3"], "Failed"),
            ("\(player).Jump", [], "UnknownMethod"),
            ("org.mpris.MediaPlayer2.Nope.Play", [], "UnknownInterface"),
            ("org.freedesktop.DBus.Properties.Get", [player, "Loudness"], "UnknownProperty"),
            ("org.freedesktop.DBus.Properties.Set", [player, "PlaybackStatus", "<'Playing'>"], "PropertyReadOnly"),
            ("org.freedesktop.DBus.Properties.Set", [player, "Volume", "<'loud'>"], "InvalidArgs"),
            ("org.freedesktop.DBus.Properties.Set", [player, "Rate", "<-1.0>"], "InvalidArgs"),
            ("org.freedesktop.DBus.Properties.Set", [player, "Rate", "<2>"], "InvalidArgs"),
            ("org.freedesktop.DBus.Properties.GetAll", ["org.nope"], "UnknownInterface"),
        ]
        for (method, arguments, error) in wrong {
            let result = await podsd.run("gdbus", ["call"] + Self.object + ["--method", method] + arguments, timeout: .seconds(15))
            #expect(result.status != 0 && !result.timedOut, "\(method) \(arguments) should fail")
            #expect(result.stderr.contains("org.freedesktop.DBus.Error.\(error)"), "\(method): \(result.stderr)")
        }
        // Mistyped arguments (gdbus refuses to send these, dbus-send does not).
        #expect(await dbusSend(podsd, "\(player).Seek", "string:ten").stderr.contains("InvalidArgs"))
        #expect(await dbusSend(podsd, "\(player).SetPosition", "string:/x", "int64:1").stderr.contains("InvalidArgs"))
        #expect(await dbusSend(podsd, "\(player).Seek", "int64:1000000").status == 0)
        // Extreme values are clamped, never trapped on.
        #expect(await dbusSend(podsd, "\(player).SetPosition", "objpath:\(trackID)", "int64:9223372036854775807").status == 0)
        #expect(await dbusSend(podsd, "\(player).SetPosition", "objpath:\(trackID)", "int64:-9223372036854775808").status == 0)
        #expect(await dbusSend(podsd, "\(player).Seek", "int64:-9223372036854775808").status == 0)
        #expect(await dbusSend(podsd, "org.freedesktop.DBus.Properties.Set", "string:\(player)", "string:Rate",
                               "variant:double:1e308").status == 0)
        #expect(await dbusSend(podsd, "\(player).OpenUri", "string:\(uri)").status == 0)
        #expect(await dbusSend(podsd, "org.freedesktop.DBus.Properties.Set", "string:\(player)", "string:Volume",
                               "variant:double:-3").status == 0)
        #expect(try await podsd.client.property("Volume") == .double(0))
        #expect(podsd.isRunning)
        #expect(try await podsd.client.status().state == .playing)
    }

    @Test func seekAndSetPositionFollowTheSpec() async throws {
        let podsd = try await PodsdProcess.start()
        try await podsd.client.open(uri: Fixtures.sampleMP3.absoluteString)
        try await podsd.client.pause()
        try await podsd.client.setPosition(.seconds(30))
        try await podsd.client.seek(by: .seconds(-100))
        #expect(try await podsd.client.status().position < 0.2)  // clamped at 0
        try await podsd.client.setPosition(.seconds(30))
        // A stale track id, a negative and a past-the-end position are ignored.
        #expect(await gdbusCall(podsd, "\(MPRIS.playerInterface).SetPosition", "/org/pods/track/999", "1000000").status == 0)
        try await podsd.client.setPosition(.seconds(-5))
        try await podsd.client.setPosition(.seconds(5000))
        #expect(abs(try await podsd.client.status().position - 30) < 0.2)
        // Rate 0 pauses and keeps the rate.
        try await podsd.client.play()
        try await podsd.client.setRate(0)
        let status = try await podsd.client.status()
        #expect(status.state == .paused && status.rate == 1)
        // Seeking past the end ends the track.
        try await podsd.client.seek(by: .seconds(500))
        #expect(try await podsd.client.status().state == .stopped)
    }

    @Test func endOfStreamStopsAtTheStartWithTheTrackLoaded() async throws {
        let podsd = try await PodsdProcess.start()
        try await podsd.client.open(uri: Fixtures.sampleOgg.absoluteString)
        let duration = try #require(try await podsd.client.status().duration)
        try await podsd.client.setPosition(.milliseconds(Int64((duration - 1.5) * 1000)))
        let deadline = ContinuousClock.now + .seconds(6)
        var status = try await podsd.client.status()
        while status.state == .playing, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            status = try await podsd.client.status()
        }
        #expect(status.state == .stopped && status.position == 0)
        #expect(status.title == "Episode 2: Seeking and Speed")
    }
}

/// Calls podsd did not ask for cost it a bounded amount: the signature is
/// checked before any argument is read, and reading stops after
/// `DBusRouter.maximumArgumentValues` values.
@Suite(.timeLimit(.minutes(10))) struct HostileCallTests {
    /// Sends a call with a 50 MB `ay` through GLib's D-Bus client (it marshals
    /// the bytes as one block), printing the error podsd answers with.
    static let sender = """
        import sys, gi
        gi.require_version('Gio', '2.0')
        from gi.repository import Gio, GLib
        path, interface, member, shape = sys.argv[1:5]
        blob = GLib.Variant.new_from_bytes(GLib.VariantType.new('ay'), GLib.Bytes.new(b'\\x01' * 50_000_000), True)
        args = {
            'bare': lambda: GLib.Variant.new_tuple(blob),
            'filter': lambda: GLib.Variant.new_tuple(GLib.Variant('a{sv}', {'podcast': blob}), GLib.Variant('s', ''), GLib.Variant('u', 10)),
            'set': lambda: GLib.Variant.new_tuple(GLib.Variant('s', interface), GLib.Variant('s', 'Volume'), GLib.Variant('v', blob)),
        }[shape]()
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        try:
            bus.call_sync('org.pods.Pods' if path.startswith('/org/pods/') else 'org.mpris.MediaPlayer2.pods', path, 'org.freedesktop.DBus.Properties' if shape == 'set' else interface,
                          'Set' if shape == 'set' else member, args, None, 0, 60000, None)
            print('no error')
        except GLib.Error as error:
            print(error.message)
        """

    @Test func aFiftyMegabyteArgumentIsAnErrorThatCostsLittle() async throws {
        let podsd = try await PodsdProcess.start()
        let peakBefore = try #require(ProcessMemory.kibibytes("VmHWM", of: podsd.processIdentifier))
        let cases: [(path: String, interface: String, member: String, shape: String, error: String)] = [
            (MPRIS.objectPath.rawValue, MPRIS.playerInterface, "OpenUri", "bare", "OpenUri takes arguments of type 's', not 'ay'"),
            (LibraryNames.objectPath.rawValue, LibraryNames.interface, "ListEpisodes", "filter", "the arguments hold too many values"),
            (MPRIS.objectPath.rawValue, MPRIS.playerInterface, "Set", "set", "the arguments hold too many values"),
        ]
        for call in cases {
            let result = await podsd.run("/usr/bin/python3", ["-c", Self.sender, call.path, call.interface, call.member, call.shape],
                                         timeout: .seconds(60))
            #expect(result.stdout.contains("org.freedesktop.DBus.Error.InvalidArgs: \(call.error)"), "\(call.member): \(result.stdout) \(result.stderr)")
        }
        let peakAfter = try #require(ProcessMemory.kibibytes("VmHWM", of: podsd.processIdentifier))
        // libdbus itself holds such a message twice while reading it (its read buffer and the message): ~95 MB.
        #expect(peakAfter - peakBefore < 100 * 1024, "podsd's peak RSS grew by \(peakAfter - peakBefore) KiB")
        #expect(podsd.isRunning)
        #expect(try await podsd.client.property("PlaybackStatus") == .string("Stopped"))
    }
}
