import ArgumentParser
import PodsClient
import PodsProtocol

struct Config: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or change settings: the player's (config.toml) or one podcast's own.",
        discussion: """
            pods config                      every setting, its value and where it comes from
            pods config speed                one setting
            pods config speed 1.5            set it in config.toml
            pods config --podcast NAME speed 1.2   a podcast's own speed
            pods config --podcast NAME speed --unset   back to the player's
            Keys: speed, skip-forward, skip-back, skip-intro, skip-outro, trim-silence, next-action,
            complete-within (seconds or a share such as 5%), auto-next.
            """)

    @Option(help: "A podcast's id or title prefix: its own settings.") var podcast: String?
    @Argument(help: "A setting's name.") var key: String?
    @Argument(help: "Its new value.") var value: String?
    @Flag(help: "Remove the value: back to the player's setting, or the default.") var unset = false
    @OptionGroup var format: OutputFormat

    func validate() throws {
        if unset, key == nil || value != nil { throw ValidationError("--unset takes a key and no value") }
    }

    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in
            let client = PodsPlayerClient(player)
            if let key, let value {
                return try await client.setConfig(podcast: podcast, key: key, value: value)
            }
            if let key, unset { return try await client.unsetConfig(podcast: podcast, key: key) }
            let settings = try await client.config(podcast: podcast, key: key)
            if format.json {
                if key != nil, let setting = settings.first { return ItemOutput.print(setting, PlayerItems.setting) }
                return ItemOutput.print(settings, PlayerItems.setting)
            }
            if key != nil, let setting = settings.first { return print(setting["value"].text) }
            let width = settings.map { $0["key"].text.count }.max() ?? 0
            for setting in settings {
                let name = setting["key"].text
                let source = setting["source"].text == "default" ? "" : "  (\(setting["source"].text))"
                print(name + String(repeating: " ", count: width - name.count) + "  " + setting["value"].text + source)
            }
        }
    }
}
