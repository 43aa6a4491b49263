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

    /// Plays `id` from `seconds`: a seek when it is loaded.
    func play(_ id: Int64, from seconds: Double) {
        // A time from a transcript file (through podsd): range-checked before it becomes a Duration.
        guard let backend, seconds.isFinite, seconds >= 0, seconds < 10_000_000 else { return }
        let start = seconds
        let loaded = player.status?.episodeId == id
        Task {
            do throws(PlayerClient.Failure) {
                if loaded { try await backend.player.setPosition(.seconds(start)) } else { try await backend.library.play(episode: id, at: start) }
            } catch { report(error) }
        }
    }

    func play(_ episode: EpisodeRow) {
        guard let backend else { return }
        Task {
            do throws(PlayerClient.Failure) { try await backend.library.play(episode: episode.id) } catch { report(error) }
        }
    }

    func perform(_ command: ShowHeader.Command) {
        guard let backend else { return }
        switch command {
        case .open(let address): if EpisodeDetails.isOpenable(address) { window?.open(address: address) }
        case .subscribe(let feed): subscribe(feed)
        case .playTrailer(let url):
            Task { do throws(PlayerClient.Failure) { try await backend.player.open(uri: url) } catch { report(error) } }
        }
    }

    func perform(_ command: EpisodePage.Command, on id: Int64) {
        guard let backend else { return }
        let library = backend.library, pods = backend.pods
        let loaded = player.status?.episodeId == id
        if case .open(let address) = command {
            guard EpisodeDetails.isOpenable(address) else { return }
            return window?.open(address: address) ?? ()
        }
        Task {
            do throws(PlayerClient.Failure) {
                switch command {
                case .play: try await library.play(episode: id)
                case .playFrom(let seconds): try await library.play(episode: id, at: seconds)
                case .chapter(let index, let start):
                    if loaded { try await pods.goToChapter(String(index)) } else { try await library.play(episode: id, at: start) }
                case .enqueue:
                    try await library.enqueue([id], at: nil)
                    window?.toast("Added to Up Next")
                case .download:
                    try await library.download(id)
                    window?.toast("Downloading")
                case .mark(let played): try await library.mark(episode: id, played: played)
                case .bookmark:
                    _ = try await pods.bookmark(note: "")
                    window?.toast("Bookmarked at \(Clock.text(player.position))")
                case .open: break
                case .transcript: openTranscript(id)
                }
            } catch { report(error) }
        }
    }

    func perform(_ command: PlayerBar.Command) {
        guard let backend else { return }
        switch command {
        case .seek(let seconds):
            seek.request(seconds) { target throws(PlayerClient.Failure) in try await backend.player.setPosition(.seconds(target)) }
        case .volume(let level):
            volume.request(level) { target throws(PlayerClient.Failure) in try await backend.player.setVolume(target) }
        default:
            Task {
                do throws(PlayerClient.Failure) {
                    switch command {
                    case .playPause: try await backend.player.playPause()
                    case .skipBack: try await backend.pods.skip("back", seconds: nil)
                    case .skipForward: try await backend.pods.skip("forward", seconds: nil)
                    case .rate(let rate): try await backend.player.setRate(rate)
                    case .sleep(let timer):
                        try await backend.pods.setSleepTimer(timer)
                        readStatus()  // the timer is no MPRIS property: no PropertiesChanged tells of it
                    case .seek, .volume: break
                    }
                } catch { report(error) }
            }
        }
    }
}
