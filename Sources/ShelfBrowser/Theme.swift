internal import ShelfTerminal

/// The styles in force, by role: the palette of the configuration file, set once before the
/// browser's first controller is made (`BrowserController.init(viewModel:configuration:)`);
/// read by the controllers as they build their views.
@MainActor
enum Theme {
    static var palette = Palette()

    static var done: Style { palette.done }
    static var priority: Style { palette.priority }
    static var owner: Style { palette.owner }
    static var date: Style { palette.date }
    static var status: Style { palette.status }
    static var error: Style { palette.error }
    static var hint: Style { palette.hint }
    static var title: Style { palette.title }
    static var label: Style { palette.label }
    static var badge: Style { palette.badge }
    static var mark: Style { palette.mark }
    /// The words a search matched, in the titles.
    static var match: Style { palette.match }
}
