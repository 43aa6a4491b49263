import Foundation
import PodsClient
import PodsGtk

/// The player, always at the bottom: what plays and its chapter, the
/// transcript line playing, a slider that seeks, play/pause and skips, and
/// the speed, sleep timer and volume; in words, why it paused by itself
/// (the output went away), that it waits for bytes, and the levelling's
/// gain. Its state is MPRIS's, read again at each `PropertiesChanged` or
/// `Seeked`; between them the slider moves from the last `Position` at the
/// last `Rate`, as GNOME Shell's does, redrawn twice a second while playing
/// and not at all otherwise.
@MainActor
final class PlayerBar {
    let root = Box(vertical: true, spacing: 2)
    private let title = Label("Nothing playing")
    private let detail = Label("")
    private let cue = Label("")
    private let time = Label("")
    private let slider = Slider(name: "Position")
    private let playPause = Button(icon: "media-playback-start-symbolic", name: "Play")
    private let back = Button(icon: "media-seek-backward-symbolic", name: "Skip back")
    private let forward = Button(icon: "media-seek-forward-symbolic", name: "Skip forward")
    private let volumeSlider = Slider(name: "Volume")
    private var speed: MenuButton!
    private var sleep: MenuButton!
    private var volume: MenuButton!
    private(set) var status: PlayerStatus?
    private var readAt = ContinuousClock.now
    private var ticking: Task<Void, Never>?

    /// What the listener asked for.
    enum Command { case playPause, skipBack, skipForward, seek(Double), rate(Double), sleep(String), volume(Double) }

    /// The speeds offered (podsd takes 0.5× to 3×).
    static let rates: [Double] = [0.8, 1, 1.1, 1.2, 1.3, 1.5, 1.75, 2, 2.5, 3]
    /// The sleep timer's choices, as `SetSleepTimer` takes them.
    static let sleeps: [(title: String, timer: String)] = [
        ("In 15 minutes", "15m"), ("In 30 minutes", "30m"), ("In 45 minutes", "45m"), ("In an hour", "60m"),
        ("At the end of the episode", "end"), ("At the end of the chapter", "chapter"), ("Off", "off"),
    ]

    init(_ command: @escaping @MainActor (Command) -> Void) {
        root.margins(top: 4, bottom: 6, start: 12, end: 12)
        root.style("toolbar")
        playPause.onClick { command(.playPause) }
        back.onClick { command(.skipBack) }
        forward.onClick { command(.skipForward) }
        slider.onMove { command(.seek($0)) }
        slider.expand(horizontally: true)
        volumeSlider.onMove { command(.volume($0)) }
        volumeSlider.size(width: 180)
        volumeSlider.step(0.05)
        speed = MenuButton(label: "1×", name: "Speed, 1×", content: Self.choices(Self.rates.map { (Self.rateText($0) , $0) }) { [unowned self] rate in
            self.speed.close()
            command(.rate(rate))
        })
        sleep = MenuButton(icon: "alarm-symbolic", name: "Sleep timer, off", content: Self.choices(Self.sleeps.map { ($0.title, $0.timer) }) { [unowned self] timer in
            self.sleep.close()
            command(.sleep(timer))
        })
        volume = MenuButton(icon: "audio-volume-high-symbolic", name: "Volume", content: volumeSlider)
        for label in [title, detail, cue] { label.ellipsize() }
        detail.style("dim-label")
        detail.style("caption")
        cue.style("caption")
        time.style("numeric")
        let words = Box(vertical: true, spacing: 0)
        words.expand(horizontally: true)
        words.append(title)
        words.append(detail)
        words.append(cue)
        let top = Box(vertical: false, spacing: 8)
        top.append(words)
        time.align(vertical: .end)
        top.append(time)
        let controls = Box(vertical: false, spacing: 4)
        for button in [back, playPause, forward] { controls.append(button) }
        let gap = Box(vertical: false)
        gap.expand(horizontally: true)
        controls.append(gap)
        for button in [speed, sleep, volume] as [Widget] {
            button.style("flat")
            controls.append(button)
        }
        root.append(top)
        root.append(slider)
        root.append(controls)
        show(nil)
    }

    func show(_ status: PlayerStatus?) {
        self.status = status
        readAt = .now
        let loaded = status.map { $0.state != .stopped || $0.title != nil } ?? false
        title.text = status?.title ?? "Nothing playing"
        cue.text = status?.cue?.text.split(whereSeparator: \.isNewline).joined(separator: " ") ?? ""
        cue.isVisible = !cue.text.isEmpty
        for control in [slider, back, forward] as [Widget] { control.isSensitive = loaded }
        if status?.state == .playing {
            playPause.icon("media-playback-pause-symbolic", name: "Pause")
        } else {
            playPause.icon("media-playback-start-symbolic", name: "Play")
        }
        let rate = status?.rate ?? 1
        speed.set(label: Self.rateText(rate), name: "Speed, \(Self.rateText(rate))")
        sleep.name(status?.sleep.map { "Sleep timer, \(Self.sleepText($0))" } ?? "Sleep timer, off")
        let level = status?.volume ?? 1
        volumeSlider.set(level, of: 1, saying: "\(Int((min(max(level, 0), 1) * 100).rounded()))%")
        volume.name("Volume, \(Int((min(max(level, 0), 1) * 100).rounded()))%")
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
        detail.text = status.map { Self.detail($0, sleepRemaining: sleepRemaining) } ?? ""
        detail.isVisible = !detail.text.isEmpty
        let now = position, end = status?.duration ?? 0
        let words = end > 0 ? "\(Clock.text(now)) of \(Clock.text(end))" : Clock.text(now)
        slider.set(now, of: end, saying: words)
        time.text = words
    }

    /// The sleep timer's time left now, counted down while playing.
    private var sleepRemaining: Double? {
        guard let status, let remaining = status.sleep?.remaining else { return nil }
        guard status.state == .playing else { return remaining }
        return max(0, remaining - (ContinuousClock.now - readAt) / .seconds(1))
    }

    /// "Chapter 3: The middle · paused: the output went away · levelling +3.1 dB · sleeps in 12:00".
    static func detail(_ status: PlayerStatus, sleepRemaining: Double?) -> String {
        var parts = [String]()
        if let chapter = status.chapter { parts.append("Chapter \(chapter.index): \(chapter.title)") }
        if let reason = status.pausedBecause { parts.append("paused: \(reason)") }
        if status.buffering { parts.append("waiting for the network") }
        if let gain = status.loudnessGain, gain.isFinite { parts.append(String(format: "levelling %+.1f dB", gain)) }
        if var sleep = status.sleep {
            sleep.remaining = sleepRemaining ?? sleep.remaining
            parts.append("sleeps \(sleepText(sleep))")
        }
        if let error = status.lastError { parts.append(error) }
        return parts.joined(separator: " · ")
    }

    static func sleepText(_ sleep: PlayerStatus.Sleep) -> String {
        switch sleep.mode {
        case "episode": "at the end of the episode"
        case "chapter": "at the end of the chapter"
        default: sleep.remaining.map { "in \(Clock.text($0))" } ?? "soon"
        }
    }

    static func rateText(_ rate: Double) -> String {
        guard rate.isFinite else { return "1×" }
        let text = String(format: "%.2f", rate).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression)
        return "\(text)×"
    }

    /// A column of flat buttons, one per choice.
    private static func choices<Value>(_ choices: [(String, Value)], _ chosen: @escaping @MainActor (Value) -> Void) -> Widget {
        let column = Box(vertical: true, spacing: 0)
        for (title, value) in choices {
            let button = Button(title)
            button.style("flat")
            button.onClick { chosen(value) }
            column.append(button)
        }
        return column
    }
}
