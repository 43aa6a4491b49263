import Foundation
import PodsClient
import PodsGtk

/// The player, always at the bottom: what plays, play/pause, skips and a
/// slider that seeks. Its state is MPRIS's, read again at each
/// `PropertiesChanged` or `Seeked`; between them the slider moves from the
/// last `Position` at the last `Rate`, as GNOME Shell's does, redrawn twice
/// a second while playing and not at all otherwise.
@MainActor
final class PlayerBar {
    let root = Box(vertical: false, spacing: 8)
    private let title = Label("Nothing playing")
    private let time = Label("")
    private let slider = Slider(name: "Position")
    private let playPause = Button(icon: "media-playback-start-symbolic", name: "Play")
    private let back = Button(icon: "media-seek-backward-symbolic", name: "Skip back")
    private let forward = Button(icon: "media-seek-forward-symbolic", name: "Skip forward")
    private(set) var status: PlayerStatus?
    private var readAt = ContinuousClock.now
    private var ticking: Task<Void, Never>?

    /// What the listener asked for.
    enum Command { case playPause, skipBack, skipForward, seek(Double) }

    init(_ command: @escaping @MainActor (Command) -> Void) {
        root.margins(8)
        root.style("toolbar")
        playPause.onClick { command(.playPause) }
        back.onClick { command(.skipBack) }
        forward.onClick { command(.skipForward) }
        slider.onMove { command(.seek($0)) }
        slider.expand(horizontally: true)
        title.ellipsize()
        time.style("numeric")
        let middle = Box(vertical: true, spacing: 2)
        middle.expand(horizontally: true)
        middle.append(title)
        middle.append(slider)
        for button in [back, playPause, forward] { root.append(button) }
        root.append(middle)
        root.append(time)
        show(nil)
    }

    func show(_ status: PlayerStatus?) {
        self.status = status
        readAt = .now
        let loaded = status.map { $0.state != .stopped || $0.title != nil } ?? false
        title.text = status?.title ?? "Nothing playing"
        for control in [slider, back, forward] as [Widget] { control.isSensitive = loaded }
        if status?.state == .playing {
            playPause.icon("media-playback-pause-symbolic", name: "Pause")
        } else {
            playPause.icon("media-playback-start-symbolic", name: "Play")
        }
        moveSlider()
        ticking?.cancel()
        ticking = nil
        if status?.state == .playing {
            ticking = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(500))
                    self?.moveSlider()
                }
            }
        }
    }

    /// The position now: the last one read, moved on at the rate while playing.
    var position: Double {
        guard let status else { return 0 }
        guard status.state == .playing else { return status.position }
        let elapsed = (ContinuousClock.now - readAt) / .seconds(1)
        let moved = status.position + elapsed * (status.rate.isFinite ? status.rate : 1)
        return status.duration.map { min(moved, $0) } ?? moved
    }

    private func moveSlider() {
        let now = position, end = status?.duration ?? 0
        let words = end > 0 ? "\(Clock.text(now)) of \(Clock.text(end))" : Clock.text(now)
        slider.set(now, of: end, saying: words)
        time.text = words
    }
}
