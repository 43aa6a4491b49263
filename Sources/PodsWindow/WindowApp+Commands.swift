import Foundation
import PodsClient
import PodsGtk

/// What the listener pressed, sent to podsd: the player bar's, an
/// episode's page's and a show's header's commands.
extension WindowApp {
    /// The episode's whole transcript, on a page after its own.
    func openTranscript(_ id: Int64) {
        guard let backend else { return }
        transcript.show(episode: id, title: episode.details?.title ?? "")
        pages.push(transcript.root, after: episode.root)
        Task {
            do throws(PlayerClient.Failure) {
                transcript.show(try await Self.transcriptRows(backend.library, id), of: id)
            } catch { report(error) }
        }
    }

    /// Read off the main actor, page by page, at most `TranscriptPage.maximumLines`.
    nonisolated static func transcriptRows(_ library: LibraryClient, _ id: Int64) async throws(PlayerClient.Failure) -> [EpisodeRow] {
        var rows: [EpisodeRow] = []
        try await library.transcript(episode: id) { page in
            for cue in page where rows.count < TranscriptPage.maximumLines {
                rows.append(Items.transcriptRow(cue, episode: id, number: rows.count + 1))
            }
        }
        return rows
    }

    /// Plays `id` from `seconds` (a soundbite, a chapter, a transcript line,
    /// a moment found; podsd checks the time); nil, from where it was left.
    func play(_ id: Int64, from seconds: Double?) {
        guard let library = backend?.library else { return }
        ask { () throws(PlayerClient.Failure) in
            if let seconds { try await library.play(episode: id, at: seconds) } else { try await library.play(episode: id) }
        }
    }

    /// A link from a feed, opened by the desktop when it is a web or mail link.
    func openLink(_ address: String) {
        if EpisodeDetails.isOpenable(address) { window?.open(address: address) }
    }

    func play(_ episode: EpisodeRow) { play(episode.id, from: nil) }

    func perform(_ command: ShowHeader.Command) {
        guard let backend else { return }
        switch command {
        case .open(let address): openLink(address)
        case .subscribe(let feed): subscribe(feed)
        case .playTrailer(let url): ask { () throws(PlayerClient.Failure) in try await backend.player.open(uri: url) }
        }
    }

    func perform(_ command: EpisodePage.Command, on id: Int64) {
        guard let backend else { return }
        let library = backend.library, pods = backend.pods
        switch command {
        case .open(let address): openLink(address)
        case .transcript: openTranscript(id)
        case .play: play(id, from: nil)
        case .playFrom(let seconds): play(id, from: seconds)
        case .chapter(let index, let start):
            // Within the loaded episode a jump by number; else the episode played from the chapter's start.
            guard player.status?.episodeId == id else { return play(id, from: start) }
            ask { () throws(PlayerClient.Failure) in try await pods.goToChapter(String(index)) }
        case .enqueue:
            ask { () throws(PlayerClient.Failure) in
                try await library.enqueue([id], at: nil)
                self.window?.toast("Added to Up Next")
            }
        case .download:
            ask { () throws(PlayerClient.Failure) in
                try await library.download(id)
                self.window?.toast("Downloading")
            }
        case .mark(let played): ask { () throws(PlayerClient.Failure) in try await library.mark(episode: id, played: played) }
        case .bookmark:
            ask { () throws(PlayerClient.Failure) in
                _ = try await pods.bookmark(note: "")
                self.window?.toast("Bookmarked at \(Clock.text(self.player.position))")
            }
        }
    }

    func perform(_ command: PlayerBar.Command) {
        guard let backend else { return }
        let player = backend.player, pods = backend.pods
        switch command {
        case .seek(let seconds):
            seek.request(seconds) { target throws(PlayerClient.Failure) in try await player.setPosition(.seconds(target)) }
        case .volume(let level):
            volume.request(level) { target throws(PlayerClient.Failure) in try await player.setVolume(target) }
        case .playPause: ask { () throws(PlayerClient.Failure) in try await player.playPause() }
        case .skipBack: ask { () throws(PlayerClient.Failure) in try await pods.skip("back", seconds: nil) }
        case .skipForward: ask { () throws(PlayerClient.Failure) in try await pods.skip("forward", seconds: nil) }
        case .rate(let rate): ask { () throws(PlayerClient.Failure) in try await player.setRate(rate) }
        case .sleep(let timer):
            ask { () throws(PlayerClient.Failure) in
                try await pods.setSleepTimer(timer)
                self.readStatus()  // the timer is no MPRIS property: no PropertiesChanged tells of it
            }
        }
    }

    /// Asks podsd for something; a refusal is said over the window in the listener's words.
    func ask(_ body: @escaping @MainActor () async throws(PlayerClient.Failure) -> Void) {
        Task { do throws(PlayerClient.Failure) { try await body() } catch { report(error) } }
    }
}
