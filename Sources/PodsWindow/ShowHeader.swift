import PodsClient
import PodsGtk

/// The top of a podcast's page: its artwork, the show's people, its
/// funding links, its trailers and the shows its podroll recommends (each
/// subscribed to with one press). At most a few of each, so the episodes
/// keep the room.
@MainActor
final class ShowHeader {
    /// What the listener asked for.
    enum Command { case open(String), subscribe(String), playTrailer(String) }

    static let mostOfEach = 3

    let root = Box(vertical: false, spacing: 12)
    private let artwork = Picture(size: 96)
    private let details = Box(vertical: true, spacing: 2)
    private let command: @MainActor (Command) -> Void
    private var podcast: Int64?

    init(_ command: @escaping @MainActor (Command) -> Void) {
        self.command = command
        root.margins(top: 0, bottom: 8, start: 12, end: 12)
        details.expand(horizontally: true)
        details.align(vertical: .center)
        root.append(artwork)
        root.append(details)
        root.isVisible = false
    }

    /// Shows `show` for podcast `id` (its artwork comes with `show(artwork:)`).
    func show(_ show: ShowDetails, of id: Int64, title: String) {
        if podcast != id { artwork.clear() }
        podcast = id
        details.removeAll()
        if !show.people.isEmpty {
            let people = Label(show.people.prefix(Self.mostOfEach * 2).joined(separator: ", "))
            people.style("dim-label")
            people.wrap()
            details.append(people)
        }
        for link in show.funding.filter({ EpisodeDetails.isOpenable($0.url) }).prefix(Self.mostOfEach) {
            let button = LinkButton(link.text.isEmpty ? "Support \(title)" : link.text, address: link.url)
            button.onActivate { [unowned self] in self.command(.open(link.url)) }
            details.append(button)
        }
        for trailer in show.trailers.prefix(Self.mostOfEach) {
            let button = Button("Play the trailer: \(trailer.title)")
            button.style("flat")
            button.ellipsize()
            button.onClick { [unowned self] in self.command(.playTrailer(trailer.url)) }
            details.append(button)
        }
        for recommended in show.recommended.prefix(Self.mostOfEach) {
            guard let subscribe = recommended.subscribe else {
                details.append(Label("Recommends \(recommended.name) (subscribed)"))
                continue
            }
            let button = Button("Subscribe to \(recommended.name), which this show recommends")
            button.style("flat")
            button.ellipsize()
            button.onClick { [unowned self] in self.command(.subscribe(subscribe)) }
            details.append(button)
        }
        root.isVisible = true
    }

    func show(artwork png: [UInt8], of id: Int64, title: String) {
        guard podcast == id else { return }
        artwork.show(png: png, alternative: "Artwork of \(title)")
    }
}
