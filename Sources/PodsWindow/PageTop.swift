import PodsGtk

/// The top of a page pushed after another: a back button named for where
/// it goes, the page's heading (and a dimmed line under it), and the
/// page's own buttons at the end.
@MainActor
enum PageTop {
    static func make(back: @escaping @MainActor () -> Void, backName: String, heading: Label, detail: Label? = nil,
                     end: [Widget] = []) -> Box {
        let backButton = Button(icon: "go-previous-symbolic", name: backName)
        backButton.onClick(back)
        heading.style("title-3")
        heading.ellipsize()
        let titles = Box(vertical: true, spacing: 2)
        titles.expand(horizontally: true)
        titles.append(heading)
        if let detail {
            detail.style("dim-label")
            detail.ellipsize()
            titles.append(detail)
        }
        let top = Box(vertical: false, spacing: 8)
        top.margins(8)
        top.append(backButton)
        top.append(titles)
        for widget in end { top.append(widget) }
        return top
    }
}
