import Foundation
import PodsClient
import PodsGtk

/// What the window asks of the library: subscriptions, OPML, the
/// directories, refreshes and settings.
extension WindowApp {
    /// The player's settings (`podcast` nil) or a podcast's own, in a window over this one.
    func openSettings(_ podcast: PodcastRow?) {
        guard let backend, let window else { return }
        Task {
            do throws(PlayerClient.Failure) {
                let rows = try await backend.pods.config(podcast: podcast.map { String($0.id) }, key: nil).compactMap(Items.setting)
                let dialog = SettingsDialog(over: window, backend: backend, podcast: podcast.map { ($0.id, $0.title) }, settings: rows)
                settings = dialog
                dialog.present()
            } catch { report(error) }
        }
    }

    func subscribe(_ url: String) {
        guard let backend else { return }
        window?.toast("Subscribing to \(url)…")
        ask { () throws(PlayerClient.Failure) in
            let podcast = try await backend.library.subscribe(url)
            self.window?.toast("Subscribed to \(Items.fields(podcast)["title"]?.stringValue ?? url)")
        }
    }

    /// Gone from the list at once, unsubscribed once its Undo is over (5 s):
    /// unsubscribing drops the podcast's episodes and progress, which no
    /// resubscription brings back, so it waits for the listener to be sure.
    func unsubscribe(_ podcast: PodcastRow) {
        guard let backend else { return }
        if episodes.podcast?.id == podcast.id { pages.show(podcasts.root) }
        podcasts.hidden.insert(podcast.id)
        window?.toast("Unsubscribed from \(podcast.title)", button: ("Undo", { [weak self] in self?.podcasts.hidden.remove(podcast.id) }))
        Task {
            try? await Task.sleep(for: .seconds(6))
            guard podcasts.hidden.contains(podcast.id) else { return }  // undone
            do throws(PlayerClient.Failure) {
                try await backend.library.unsubscribe(String(podcast.id))
                let rows = try await backend.library.podcastRows()
                podcasts.hidden.remove(podcast.id)  // a later podcast may be given its id
                podcasts.show(rows)
            } catch {
                podcasts.hidden.remove(podcast.id)
                report(error)
            }
        }
    }

    /// An OPML file chosen by the listener (read here: it is theirs, not
    /// podsd's) is subscribed to, feed by feed, by podsd.
    func importOPML() {
        guard let window, let backend else { return }
        FileChooser.ask(over: window, title: "Import subscriptions", accept: "Import", purpose: .open, filterName: "OPML files",
                        patterns: ["*.opml", "*.xml"], folder: Self.home) { [weak self] path in
            guard let self, let path else { return }
            // Read up to one byte past the bound, so a file that grows while it is read is still refused.
            let handle = FileHandle(forReadingAtPath: path)
            defer { try? handle?.close() }
            guard let data = try? handle?.read(upToCount: Self.largestOPML + 1), data.count <= Self.largestOPML else {
                return window.toast("\((path as NSString).lastPathComponent) is no OPML file Pods can read (at most 10 MB)")
            }
            window.toast("Importing \((path as NSString).lastPathComponent)…")
            Task {
                do throws(PlayerClient.Failure) {
                    let results = try await backend.library.importOPML(String(decoding: data, as: UTF8.self))
                    let failed = results.filter { Items.fields($0)["error"]?.stringValue != nil }.count
                    window.toast("Subscribed to \(results.count - failed) of \(results.count) feeds" + (failed > 0 ? "; \(failed) could not be read" : ""))
                } catch { self.report(error) }
            }
        }
    }

    static let largestOPML = 10 << 20

    /// Where the file chooser starts: `HOME`, as GLib takes it.
    static var home: String { ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory() }

    /// The subscriptions written as OPML where the listener chooses.
    func exportOPML() {
        guard let window, let backend else { return }
        FileChooser.ask(over: window, title: "Export subscriptions", accept: "Export", purpose: .save(suggestedName: "Podcasts.opml"),
                        filterName: "OPML files", patterns: ["*.opml"], folder: Self.home) { [weak self] path in
            guard let self, let path else { return }
            Task {
                do throws(PlayerClient.Failure) {
                    let document = try await backend.library.opmlDocument()
                    do { try Data(document.utf8).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
                        return window.toast("Could not write \(path): \(error.localizedDescription)")
                    }
                    window.toast("Exported the subscriptions to \(path)")
                } catch { self.report(error) }
            }
        }
    }

    /// The directories searched for `term`, on a page after the podcasts.
    func searchDirectories(_ term: String) {
        guard let backend else { return }
        directory.show(term, nil)
        pages.push(directory.root, after: podcasts.root)
        Task {
            do throws(PlayerClient.Failure) {
                let found = try await backend.library.search(term, limit: 50).compactMap(Items.search)
                directory.show(term, found)
            } catch {
                directory.show(term, [])
                report(error)
            }
        }
    }

    func refresh(_ podcast: Int64) {
        guard let backend else { return }
        ask { () throws(PlayerClient.Failure) in _ = try await backend.library.refresh(podcast: String(podcast)) }
    }
}
