import PodsChapters
import PodsDBus
import PodsPlayer
import PodsProtocol
import PodsSession
import PodsSettings

/// `org.pods.Player1`'s items (keys in `PlayerItems`).
package enum PlayerItemEncoding {
    package static func chapter(_ chapter: EpisodeChapter, index: Int, skipped: Bool) -> ItemBuilder {
        var item = ItemBuilder(PlayerItems.chapter)
        item.set("index", index)
        item.set("start", chapter.start)
        item.set("end", chapter.end)
        item.set("title", chapter.title)
        item.set("url", chapter.url)
        item.set("image", chapter.image)
        item.set("source", chapter.source.rawValue)
        item.set("skipped", skipped)
        return item
    }

    package static func setting(_ entry: SettingEntry) -> ItemBuilder {
        var item = ItemBuilder(PlayerItems.setting)
        item.set("key", entry.key.name)
        item.set("value", entry.key.isSecret && entry.value.text.isEmpty == false ? "(set)" : entry.value.text)
        item.set("default", entry.key.defaultValue.text)
        item.set("source", entry.source)
        item.set("help", entry.key.help)
        if entry.key.isSecret { item.set("secret", true) }
        return item
    }

    package static func extras(_ state: PlayerState, sleep: (mode: String, remaining: Double?)?, silenceSkipped: Double,
                               loudnessGain: Double?) -> ItemBuilder {
        var item = ItemBuilder(PlayerItems.extras)
        item.set("chapter", object: state.chapter.map { chapter in
            var playing = ItemBuilder(PlayerItems.currentChapter)
            playing.set("index", chapter.index)
            playing.set("title", chapter.title)
            playing.set("start", chapter.start)
            return playing
        })
        item.set("sleep", object: sleep.map { sleep in
            var timer = ItemBuilder(PlayerItems.sleep)
            timer.set("mode", sleep.mode)
            timer.set("remaining", sleep.remaining)
            return timer
        })
        item.set("silenceSkipped", silenceSkipped)
        item.set("loudnessGain", loudnessGain)
        item.set("lastError", state.lastError)
        item.set("pausedBecause", state.pausedBecause)
        return item
    }
}
