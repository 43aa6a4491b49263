import PodsChapters
import PodsDBus
import PodsPlayer
import PodsSession
import PodsSettings

/// `org.pods.Player1`'s items (keys in `PlayerItems`).
package enum PlayerItemEncoding {
    package static func chapter(_ chapter: EpisodeChapter, index: Int, skipped: Bool) -> DBusValue {
        var item = ItemBuilder()
        item.set("index", index)
        item.set("start", chapter.start)
        item.set("end", chapter.end)
        item.set("title", chapter.title)
        item.set("url", chapter.url)
        item.set("image", chapter.image)
        item.set("source", chapter.source.rawValue)
        item.set("skipped", skipped)
        return item.value
    }

    package static func setting(_ entry: SettingEntry) -> DBusValue {
        var item = ItemBuilder()
        item.set("key", entry.key.name)
        item.set("value", entry.key.isSecret && entry.value.text.isEmpty == false ? "(set)" : entry.value.text)
        item.set("default", entry.key.defaultValue.text)
        item.set("source", entry.source)
        item.set("help", entry.key.help)
        return item.value
    }

    package static func extras(_ state: PlayerState, sleep: (mode: String, remaining: Double?)?, silenceSkipped: Double,
                               loudnessGain: Double?) -> DBusValue {
        var item = ItemBuilder()
        if let chapter = state.chapter {
            var playing = ItemBuilder()
            playing.set("index", chapter.index)
            playing.set("title", chapter.title)
            playing.set("start", chapter.start)
            item.set("chapter", playing.value)
        }
        if let sleep {
            var timer = ItemBuilder()
            timer.set("mode", sleep.mode)
            timer.set("remaining", sleep.remaining)
            item.set("sleep", timer.value)
        }
        item.set("silenceSkipped", silenceSkipped)
        item.set("loudnessGain", loudnessGain)
        item.set("lastError", state.lastError)
        item.set("pausedBecause", state.pausedBecause)
        return item.value
    }
}
