import PodsLibrary
import PodsPlayer
import PodsTranscripts

/// The loaded episode's timed transcript, for the line that plays
/// (`PlayerController.setTranscript`): kept, or fetched once as the
/// episode loads (a download fetches it too: `Session`).
extension Playback {
    package func loadTranscript(_ episode: LibraryEpisode, load: Int) async {
        guard episode.episode.transcriptURL != nil else { return }
        let cues: [TranscriptCue]
        do throws(SessionError) { cues = try await TranscriptLoader(library: library).cues(of: episode.id) } catch {
            logger.info("episode \(episode.id)'s transcript will not follow playback: \(error)")
            return
        }
        guard controller.loads.isLatest(load) else { return }
        let lines = cues.compactMap { cue in cue.start.map { TranscriptLine(start: $0, end: cue.end, text: cue.text) } }
        guard !lines.isEmpty else { return }
        await controller.setTranscript(lines, for: .episode(episode.id))
    }
}
