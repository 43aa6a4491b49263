// swift-tools-version:6.1
import PackageDescription

/// The two programs a listener runs carry the Swift runtime and Foundation
/// inside them (`-static-stdlib`), in every build: the Debian package needs
/// no Swift on the listener's machine, and the package test packages the
/// very binaries the suites ran, so the code is compiled once. The modules
/// are compiled against the shared runtime's interfaces (the test libraries
/// exist only for it), whose autolink entries name only Foundation: the
/// static Foundation's own libraries are named here. (A test target that
/// depended on these programs would link their objects and these flags.)
///
/// They are linked by lld with packed relative relocations (DT_RELR, glibc
/// 2.36+): with the runtime inside, gold wrote 2.3 MB of relocation records
/// that were read at every start; lld's packed ones take 40 KB, and idle
/// podsd's resident code fell from 17 to 12 MiB (docs/benchmarks.md, idle RSS).
let standaloneLinking: [LinkerSetting] = [
    .unsafeFlags([
        "-static-stdlib",
        "-Xlinker", "-lCoreFoundation", "-Xlinker", "-l_FoundationICU", "-Xlinker", "-l_FoundationCShims",
        "-Xlinker", "-l_FoundationCollections",
        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
    ], .when(platforms: [.linux]))
]

let package = Package(
    name: "Pods",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "podsd", targets: ["podsd"]),
        .executable(name: "pods", targets: ["pods"]),
        .executable(name: "pods-gtk", targets: ["pods-gtk"]),
        .executable(name: "pods-mpris-bench", targets: ["MPRISBench"]),
        .executable(name: "pods-refresh-bench", targets: ["RefreshBench"]),
        .executable(name: "pods-cache-bench", targets: ["CacheBench"]),
        .executable(name: "pods-scale-bench", targets: ["ScaleBench"]),
        .executable(name: "pods-sync-bench", targets: ["SyncBench"]),
        .executable(name: "pods-soak-bench", targets: ["SoakBench"]),
        .executable(name: "pods-loudness-bench", targets: ["LoudnessBench"]),
        .executable(name: "pods-find-bench", targets: ["FindBench"]),
        .executable(name: "pods-ui-bench", targets: ["UIBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
    ],
    targets: [
        // MARK: - C libraries, each touched by exactly one wrapper module
        .systemLibrary(
            name: "CDBus", pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(
            name: "CGStreamer", pkgConfig: "gstreamer-1.0",
            providers: [.apt(["libgstreamer1.0-dev"])]),
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        // SHA-1 for Podcast Index's signature, from the libcrypto libcurl already brings.
        .systemLibrary(
            name: "CLibCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .target(name: "PodsDigest", dependencies: ["CLibCrypto"]),
        .systemLibrary(
            name: "CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        // EBU R 128 loudness (momentary, integrated, true peak): the library
        // ffmpeg's and GStreamer's own R 128 meters grew from; Debian 12's
        // GStreamer has no R 128 element of its own.
        .systemLibrary(
            name: "CEBUR128", pkgConfig: "libebur128",
            providers: [.apt(["libebur128-dev"])]),
        // No pkgConfig: ncursesw's .pc adds -D flags SwiftPM warns about; the header and library are in the default paths.
        .systemLibrary(name: "CNcurses", providers: [.apt(["libncurses-dev"])]),
        // GTK 4 and libadwaita as one module: adwaita.h includes gtk/gtk.h (see the header).
        .systemLibrary(name: "CGtk", pkgConfig: "libadwaita-1", providers: [.apt(["libgtk-4-dev", "libadwaita-1-dev"])]),
        // The little GTK needs from C: signal connection, accessible properties, the
        // main-queue hook (libdispatch's, which Foundation's RunLoop uses) and a row model.
        .target(name: "PodsGtkShims", dependencies: ["CGtk"], linkerSettings: [.linkedLibrary("dispatch")]),

        // MARK: - Libraries
        .target(name: "PodsDBus", dependencies: ["CDBus"]),
        .target(name: "PodsPlayback", dependencies: ["CGStreamer", "PodsLoudness"]),
        // Loudness measured (libebur128) and the levelling gain that follows it.
        .target(name: "PodsLoudness", dependencies: ["CEBUR128"]),
        .target(name: "PodsPlayer", dependencies: ["PodsChapters", "PodsLoudness", "PodsPlayback", "PodsSettings"]),
        .target(name: "PodsProtocol", dependencies: ["PodsDBus"]),
        .target(name: "PodsChapters"),
        .target(name: "PodsSync", dependencies: ["PodsFeedParser"]),
        .target(name: "PodsTranscripts", dependencies: ["PodsFeedParser"]),
        .target(name: "PodsDirectory", dependencies: ["PodsDigest", "PodsHTTP"]),
        .target(name: "PodsSettings", dependencies: [.product(name: "TOMLKit", package: "TOMLKit")]),
        .target(name: "PodsConcurrency"),
        .target(name: "PodsClient", dependencies: ["PodsDBus", "PodsFeedParser", "PodsProtocol"]),
        // The terminal through ncursesw: keys, colours and a screen drawn whole.
        .target(name: "PodsTerminal", dependencies: ["CNcurses", "PodsConcurrency"]),
        .target(name: "PodsGtk", dependencies: ["CGtk", "PodsGtkShims"]),
        .target(name: "PodsWindow", dependencies: ["PodsClient", "PodsGtk", "PodsProtocol"]),
        // `pods ui`: the library, show notes and player on one screen.
        .target(name: "PodsUI", dependencies: ["PodsClient", "PodsConcurrency", "PodsDBus", "PodsFeedParser", "PodsProtocol", "PodsTerminal"]),
        .target(name: "PodsFeedParser", dependencies: ["CLibXML2"]),
        .target(name: "PodsHTTP", dependencies: ["CCurl"]),
        .target(name: "PodsFeeds", dependencies: ["PodsConcurrency", "PodsFeedParser", "PodsHTTP", "PodsLibrary"]),
        .target(
            name: "PodsCache",
            dependencies: [
                "PodsConcurrency", "PodsHTTP", "PodsLibrary", "PodsPlayback", .product(name: "Logging", package: "swift-log"),
            ]),
        .target(name: "PodsLibrary", dependencies: [
            "PodsChapters", "PodsConcurrency", "PodsFeedParser", "PodsSettings", .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ]),
        // The listening session: the library joined to the player, and its services. No D-Bus.
        .target(
            name: "PodsSession",
            dependencies: [
                "PodsCache", "PodsChapters", "PodsConcurrency", "PodsFeedParser", "PodsFeeds", "PodsHTTP", "PodsLibrary",
                "PodsDirectory", "PodsLoudness", "PodsPlayback", "PodsPlayer", "PodsSettings", "PodsSync", "PodsTranscripts",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The only service code that speaks D-Bus: MPRIS, org.pods.*, and the bus clients the session needs.
        .target(
            name: "PodsInterfaces",
            dependencies: [
                "PodsCache", "PodsChapters", "PodsConcurrency", "PodsDBus", "PodsDirectory", "PodsFeedParser",
                "PodsLibrary", "PodsPlayback", "PodsPlayer", "PodsProtocol", "PodsSession", "PodsSettings",
                "PodsTranscripts", .product(name: "Logging", package: "swift-log"),
            ]),
        // The composition root: makes the parts, connects them, runs them.
        .target(
            name: "PodsService",
            dependencies: [
                "PodsCache", "PodsDBus", "PodsHTTP", "PodsInterfaces", "PodsLibrary", "PodsPlayer", "PodsProtocol",
                "PodsSession", "PodsSettings",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "PodsTestSupport",
            dependencies: [
                "PodsClient", "PodsConcurrency", "PodsDBus", "PodsFeedParser", "PodsLibrary", "PodsProtocol",
                "PodsDigest",
            ]),

        // MARK: - Executables
        .executableTarget(
            name: "podsd",
            dependencies: [
                "PodsPlayback", "PodsProtocol", "PodsService", "PodsSettings",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: standaloneLinking),
        .executableTarget(
            name: "pods",
            dependencies: [
                "PodsClient", "PodsDBus", "PodsFeedParser", "PodsHTTP", "PodsProtocol", "PodsSettings", "PodsTerminal", "PodsUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: standaloneLinking),
        .executableTarget(name: "pods-gtk", dependencies: ["PodsWindow"], linkerSettings: standaloneLinking),
        .executableTarget(
            name: "MPRISBench",
            dependencies: ["PodsClient", "PodsDBus", "PodsTestSupport"],
            path: "Benchmarks/MPRISBench"),
        .executableTarget(
            name: "RefreshBench",
            dependencies: ["PodsFeedParser", "PodsFeeds", "PodsLibrary", "PodsTestSupport"],
            path: "Benchmarks/RefreshBench"),

        .executableTarget(
            name: "CacheBench",
            dependencies: ["PodsClient", "PodsTestSupport"],
            path: "Benchmarks/CacheBench"),

        .executableTarget(
            name: "SyncBench",
            dependencies: ["PodsClient", "PodsTestSupport"],
            path: "Benchmarks/SyncBench"),

        .executableTarget(
            name: "SoakBench",
            dependencies: ["PodsClient", "PodsTestSupport"],
            path: "Benchmarks/SoakBench"),

        .executableTarget(
            name: "FindBench",
            dependencies: ["PodsClient", "PodsDBus", "PodsFeedParser", "PodsLibrary", "PodsProtocol", "PodsSettings", "PodsTestSupport"],
            path: "Benchmarks/FindBench"),

        .executableTarget(
            name: "LoudnessBench",
            dependencies: ["PodsClient", "PodsTestSupport"],
            path: "Benchmarks/LoudnessBench"),

        .executableTarget(
            name: "UIBench",
            dependencies: ["PodsLibrary", "PodsTestSupport"],
            path: "Benchmarks/UIBench",
            exclude: ["castero_library.py"]),

        .executableTarget(
            name: "ScaleBench",
            dependencies: ["PodsClient", "PodsDBus", "PodsTestSupport"],
            path: "Benchmarks/ScaleBench"),

        // MARK: - Tests
        .testTarget(name: "PodsSettingsTests", dependencies: ["PodsSettings", "PodsTestSupport"]),
        .testTarget(name: "PodsDirectoryTests", dependencies: ["PodsDirectory", "PodsTestSupport"]),
        .testTarget(name: "PodsDigestTests", dependencies: ["PodsDigest"]),
        .testTarget(name: "PodsLoudnessTests", dependencies: ["PodsLoudness"]),
        .testTarget(name: "PodsTranscriptsTests", dependencies: ["PodsTranscripts", "PodsFeedParser"]),
        .testTarget(name: "PodsSyncTests", dependencies: ["PodsSync"]),
        .testTarget(name: "PodsChaptersTests", dependencies: ["PodsChapters", "PodsTestSupport"]),
        .testTarget(name: "PodsCacheTests", dependencies: ["PodsCache", "PodsLibrary", "PodsPlayback", "PodsTestSupport"]),
        .testTarget(name: "PodsConcurrencyTests", dependencies: ["PodsConcurrency"]),
        .testTarget(name: "PodsClientTests", dependencies: ["PodsClient", "PodsDBus", "PodsProtocol", "PodsTestSupport"]),
        .testTarget(name: "PodsDBusTests", dependencies: ["PodsDBus", "PodsTestSupport"]),
        .testTarget(name: "PodsFeedParserTests", dependencies: ["PodsFeedParser", "PodsTestSupport"]),
        .testTarget(name: "PodsFeedsTests", dependencies: ["PodsFeeds", "PodsHTTP", "PodsLibrary", "PodsTestSupport"]),
        .testTarget(name: "PodsHTTPTests", dependencies: ["PodsHTTP", "PodsTestSupport"]),
        .testTarget(
            name: "PodsLibraryTests",
            dependencies: ["PodsLibrary", "PodsSettings", "PodsTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "PodsInterfacesTests", dependencies: [
            "PodsChapters", "PodsDBus", "PodsDirectory", "PodsFeedParser", "PodsInterfaces", "PodsLibrary", "PodsPlayback", "PodsPlayer",
            "PodsProtocol", "PodsSession", "PodsSettings", "PodsTranscripts",
        ]),
        .testTarget(name: "PodsPlaybackTests", dependencies: ["PodsPlayback", "PodsTestSupport"]),
        .testTarget(name: "PodsWindowTests", dependencies: ["PodsDBus", "PodsProtocol", "PodsTestSupport"]),
        .testTarget(name: "PodsUITests", dependencies: ["PodsClient", "PodsTerminal", "PodsUI"]),
        .testTarget(name: "PodsPlayerTests", dependencies: ["PodsChapters", "PodsPlayback", "PodsPlayer", "PodsSettings", "PodsTestSupport"]),
        .testTarget(
            name: "PodsSessionTests",
            dependencies: [
                "PodsFeedParser", "PodsFeeds", "PodsHTTP", "PodsLibrary", "PodsPlayback", "PodsPlayer", "PodsSession", "PodsSettings", "PodsTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "PodsServiceTests",
            dependencies: [
                "PodsClient", "PodsFeedParser", "PodsLibrary", "PodsProtocol", "PodsService", "PodsDBus", "PodsTerminal", "PodsTestSupport",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
