import Foundation

/// Audio files made on demand with `gst-launch-1.0` (gstreamer1.0-tools):
/// pink noise of any length in the three formats podcasts use.
public enum AudioFixtures {
    public enum Format: String, Sendable, CaseIterable {
        /// MP3, 64 kbit/s CBR.
        case mp3
        /// Ogg Vorbis.
        case ogg
        /// AAC in MP4 with the `moov` atom at the end (not "fast start").
        case m4a
    }

    /// Makes (once per directory) `tone-<seconds>s.<format>` in `directory`.
    public static func make(_ format: Format, seconds: Int, in directory: URL) async throws -> URL {
        let url = directory.appendingPathComponent("noise-\(seconds)s.\(format.rawValue)")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        // 10 buffers a second of 4410 samples at 44.1 kHz mono.
        let source = ["audiotestsrc", "num-buffers=\(seconds * 10)", "samplesperbuffer=4410", "wave=pink-noise", "volume=0.3", "!",
                      "audio/x-raw,rate=44100,channels=1", "!", "audioconvert", "!"]
        let encoder: [String] = switch format {
        case .mp3: ["lamemp3enc", "target=bitrate", "bitrate=64", "cbr=true", "!", "xingmux"]
        case .ogg: ["vorbisenc", "bitrate=64000", "!", "oggmux"]
        case .m4a: ["avenc_aac", "bitrate=64000", "!", "mp4mux", "faststart=false"]
        }
        let partial = url.path + ".\(UUID().uuidString).part"
        defer { unlink(partial) }
        let result = await Subprocess.run("gst-launch-1.0", ["-q"] + source + encoder + ["!", "filesink", "location=\(partial)"],
                                          timeout: .seconds(60))
        guard result.status == 0, keepFirst(partial, as: url.path) else {
            throw TestSupportError("gst-launch-1.0 could not make \(url.lastPathComponent): \(result)")
        }
        return url
    }

    /// Puts the finished file `partial` in place at `path` unless a test
    /// running alongside got there first (then its file stays): made under a
    /// name of its own and linked whole, a file is never read half written,
    /// and never replaced while a server serves it. (Renamed, a second
    /// maker's pink noise, which differs each time, replaced the bytes under
    /// the first test.) The caller removes `partial`.
    static func keepFirst(_ partial: String, as path: String) -> Bool {
        link(partial, path) == 0 || errno == EEXIST
    }
}
