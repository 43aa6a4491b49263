import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// A show whose feed names its artwork, on a loopback server.
struct ArtworkShow {
    let server: LoopbackHTTPServer
    let podsd: PodsdProcess
    /// The show's one episode.
    let episode: Int64

    /// `artwork`: the image's bytes (nil: the feed names none).
    static func start(artwork: Data?, description: String = "Notes.") async throws -> ArtworkShow {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        if let artwork { server.setFile("/art.jpg", artwork, type: "image/jpeg") }
        let image = artwork == nil ? "" : #"<itunes:image href="\#(server.url("/art.jpg"))"/>"#
        server.setFile("/feed.xml", Data("""
            <?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
            <title>Picture Show</title>\(image)
            <item><title>Seen episode</title><guid>p1</guid><pubDate>01 Nov 2026 08:00:00 GMT</pubDate>
            <description><![CDATA[\(description)]]></description>
            <enclosure url="\(server.url("/a.mp3"))" type="audio/mpeg"/></item></channel></rss>
            """.utf8))
        let podsd = try await PodsdProcess.start()
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        let episodes = try JSONSerialization.jsonObject(with: Data(await podsd.pods("episodes", "--json").stdout.utf8)) as? [[String: Any]]
        let id = try #require(episodes?.first?["id"] as? Int)
        return ArtworkShow(server: server, podsd: podsd, episode: Int64(id))
    }

    /// A `width`×`height` JPEG of one colour, made with ffmpeg.
    static func jpeg(colour: String = "red", width: Int = 300, height: Int = 300) async throws -> Data {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("art.jpg")
        let made = await Subprocess.run("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=\(colour):s=\(width)x\(height)",
                                                   "-frames:v", "1", file.path])
        guard made.status == 0, let data = FileManager.default.contents(atPath: file.path) else {
            throw TestSupportError("ffmpeg could not make a JPEG: \(made)")
        }
        return data
    }

    /// A PNG's width and height, from its header.
    static func size(ofPNG png: [UInt8]) -> (Int, Int)? {
        guard png.count > 24, png.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
        func number(_ at: Int) -> Int { png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }

    /// The RGB of the pixel at `x`, `y` of a PNG (decoded by ffmpeg).
    static func pixel(ofPNG png: [UInt8], x: Int, y: Int) async throws -> [UInt8] {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("picture.png")
        try Data(png).write(to: file)
        let raw = try Fixtures.temporaryDirectory().appendingPathComponent("picture.rgb")
        let decoded = await Subprocess.run("ffmpeg", ["-loglevel", "error", "-y", "-i", file.path, "-f", "rawvideo", "-pix_fmt", "rgb24", raw.path])
        let bytes = [UInt8](FileManager.default.contents(atPath: raw.path) ?? Data())
        guard decoded.status == 0, let (width, _) = size(ofPNG: png), bytes.count >= (y * width + x + 1) * 3 else {
            throw TestSupportError("ffmpeg could not read the PNG: \(decoded)")
        }
        return Array(bytes[(y * width + x) * 3..<(y * width + x) * 3 + 3])
    }
}

/// `org.pods.Library2.Artwork`: an episode's artwork as a PNG of the size
/// asked, rendered in a helper process, never in podsd.
@Suite(.timeLimit(.minutes(10))) struct ArtworkServiceTests {
    @Test func anEpisodesArtworkComesAsASquarePNGRenderedOncePerSize() async throws {
        let show = try await ArtworkShow.start(artwork: try await ArtworkShow.jpeg(width: 300, height: 150))
        defer { show.server.stop() }
        let library = LibraryClient(show.podsd.client)
        let png = try await library.artworkPNG(episode: show.episode, pixels: 64)
        #expect(ArtworkShow.size(ofPNG: png)! == (64, 64))
        // Letterboxed: red in the middle, black above and below (the picture is twice as wide as tall).
        let middle = try await ArtworkShow.pixel(ofPNG: png, x: 32, y: 32)
        #expect(middle[0] > 200 && middle[1] < 40 && middle[2] < 40, "\(middle)")
        let top = try await ArtworkShow.pixel(ofPNG: png, x: 32, y: 2)
        #expect(top.allSatisfy { $0 < 30 }, "\(top)")
        // Asked again (or for a size that rounds to it): the same file, no new fetch; another size is another render.
        #expect(try await library.artworkPNG(episode: show.episode, pixels: 50) == png)
        #expect(try await library.artworkPNG(episode: show.episode, pixels: 64) == png)
        // Sizes round up to 64, 128, 256, 512 or 1024: one file each, whatever sizes clients ask for.
        #expect(ArtworkShow.size(ofPNG: try await library.artworkPNG(episode: show.episode, pixels: 200))! == (256, 256))
        #expect(ArtworkShow.size(ofPNG: try await library.artworkPNG(episode: show.episode, pixels: 1000))! == (1024, 1024))
        #expect(show.server.requests(for: "/art.jpg") == 1)
        // Sizes out of range, an unknown episode: one clear error each.
        for pixels in [0, 8, 5000] {
            await #expect(throws: PlayerClient.Failure.self) { _ = try await library.artworkPNG(episode: show.episode, pixels: pixels) }
        }
        await #expect(throws: PlayerClient.Failure.self) { _ = try await library.artworkPNG(episode: 999_999, pixels: 64) }
        #expect(show.podsd.isRunning)
    }

    /// What is no picture (text, a truncated file, nothing at all) is one error, and podsd goes on.
    @Test func whatIsNoPictureIsOneErrorAndPodsdGoesOn() async throws {
        let show = try await ArtworkShow.start(artwork: Data("<html>not a picture</html>".utf8))
        defer { show.server.stop() }
        let library = LibraryClient(show.podsd.client)
        do {
            _ = try await library.artworkPNG(episode: show.episode, pixels: 64)
            Issue.record("text came back as a picture")
        } catch {
            #expect(error.description.contains("could not be read as a picture"), "\(error)")
        }
        #expect(show.podsd.isRunning)
        let bare = try await ArtworkShow.start(artwork: nil)
        defer { bare.server.stop() }
        do {
            _ = try await LibraryClient(bare.podsd.client).artworkPNG(episode: bare.episode, pixels: 64)
            Issue.record("an episode without artwork gave a picture")
        } catch {
            #expect(error.description.contains("has no artwork"), "\(error)")
        }
        #expect(bare.podsd.isRunning)
    }
}
