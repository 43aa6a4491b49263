import Foundation
import Logging
import PodsConcurrency
import PodsLibrary
import PodsLoudness
import PodsPlayback
import PodsSettings

/// Measures the downloads of podcasts whose `loudness` is on, each file
/// once, so levelling knows an episode's loudness from its first second:
/// after a download completes, at start, and when a setting changes.
///
/// One file at a time, each in a helper process (`LoudnessAnalyzer`, by
/// default podsd itself) at a low priority, killed after `timeLimit`: a file
/// that fails is not tried again in this run of podsd.
package actor LoudnessSurvey {
    private let library: Library
    private let preferences: PreferenceStore
    private let mediaDirectory: URL
    /// Where the helper writes its figures.
    private let scratchDirectory: URL
    private let playback: Playback
    private let helper: [String]
    private let timeLimit: Duration
    private let logger: Logger
    private var running = false
    private var again = false
    /// Files that could not be measured (by episode, with their length): not tried again.
    private var failed: Set<[Int64]> = []

    package init(library: Library, preferences: PreferenceStore, mediaDirectory: URL, scratchDirectory: URL, playback: Playback,
                 helper: [String] = ["/proc/self/exe", LoudnessAnalyzer.helperArgument], timeLimit: Duration = .seconds(600),
                 logger: Logger) {
        self.library = library
        self.preferences = preferences
        self.mediaDirectory = mediaDirectory
        self.scratchDirectory = scratchDirectory
        self.playback = playback
        self.helper = helper
        self.timeLimit = timeLimit
        self.logger = logger
    }

    /// Measures what is not measured yet; returns at once (a survey under
    /// way goes round once more).
    package nonisolated func poke() {
        Task { await survey() }
    }

    private func survey() async {
        if running {
            again = true
            return
        }
        running = true
        repeat {
            again = false
            await measureAll()
        } while again
        running = false
    }

    private func measureAll() async {
        while !Task.isCancelled {
            let podcasts = levelledPodcasts()
            let batch: [UnmeasuredDownload]
            do {
                let failed = failed
                batch = try await LibraryWork.run { [library] () throws(LibraryError) in
                    try library.unmeasuredDownloads(of: podcasts, limit: 32, excluding: failed)
                }
            } catch {
                logger.error("could not read which downloads to measure: \(error)")
                return
            }
            guard !batch.isEmpty else { return }
            for download in batch { await measure(download) }
        }
    }

    /// The podcasts whose episodes are levelled.
    private func levelledPodcasts() -> [Int64] {
        let values = preferences.everyPodcast([.loudness])
        let ids = (try? library.podcastIDs()) ?? []
        return ids.filter { values.value(.loudness, podcast: $0).textValue == "on" }
    }

    private func measure(_ download: UnmeasuredDownload) async {
        let file = mediaDirectory.appendingPathComponent(download.fileName).path
        let output = scratchDirectory.appendingPathComponent("loudness-\(download.episodeId).part").path
        defer { unlink(output) }
        let started = ContinuousClock.now
        guard let pid = ChildProcess.spawn(helper + [file, output]) else {
            failed.insert([download.episodeId, download.length])
            logger.error("could not measure episode \(download.episodeId)'s loudness: no helper")
            return
        }
        let status = await ChildProcess.exit(of: pid, killAfter: timeLimit)
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0,
              let text = FileManager.default.contents(atPath: output).map({ String(decoding: $0.prefix(200), as: UTF8.self) }),
              let measurement = LoudnessAnalyzer.readResult(text) else {
            failed.insert([download.episodeId, download.length])
            logger.warning("episode \(download.episodeId)'s download could not be measured for loudness; it is levelled as it plays")
            return
        }
        do {
            try await LibraryWork.run { [library] () throws(LibraryError) in
                try library.setEpisodeLoudness(EpisodeLoudness(integrated: measurement.integrated, truePeak: measurement.truePeak),
                                               for: download)
            }
        } catch {
            logger.error("could not keep episode \(download.episodeId)'s loudness: \(error)")
            return
        }
        let took = (ContinuousClock.now - started) / .seconds(1)
        logger.info("episode \(download.episodeId): \(String(format: "%.1f", measurement.integrated)) LUFS, true peak \(String(format: "%.1f", measurement.truePeak)) dBTP (measured in \(String(format: "%.1f", took)) s)")
        await playback.loudnessMeasured(download.episodeId)
    }
}
