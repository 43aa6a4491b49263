import PodsLibrary
import PodsLoudness
import PodsPlayer

/// Loudness levelling's part of playback: a download's measured loudness
/// goes to the player with the episode, or as soon as it is measured.
extension Playback {
    /// Episode `id`'s kept measurement, if its download was measured.
    func knownLoudness(_ id: Int64) -> LoudnessMeasurement? {
        guard let kept = try? library.episodeLoudness(id) else { return nil }
        return LoudnessMeasurement(checking: kept.integrated, truePeak: kept.truePeak)
    }

    /// Episode `id`'s download was just measured: the player levels by it, if it is loaded.
    package func loudnessMeasured(_ id: Int64) async {
        guard let loaded, loaded.id == id, playing.loudnessTarget != nil, let measurement = knownLoudness(id) else { return }
        await controller.setLoudnessMeasurement(measurement, for: .episode(id))
    }
}
