internal import ShelfTerminal

/// The browser's look, readable in 16 colours; selection is reverse video, so it shows
/// with `NO_COLOR` too.
enum Theme {
    static let header = Style(attributes: [.bold, .underline])
    static let done = Style(foreground: .brightBlack)
    static let priority = Style(foreground: .red, attributes: .bold)
    static let owner = Style(foreground: .cyan)
    static let date = Style(foreground: .brightBlack)
    static let status = Style(attributes: .reverse)
    static let error = Style(foreground: .red, attributes: .bold)
    static let hint = Style(attributes: .dim)
    static let title = Style(attributes: .bold)
    static let label = Style(foreground: .yellow)
    static let badge = Style(foreground: .yellow, attributes: [.bold, .reverse])
    static let mark = Style(foreground: .magenta, attributes: .bold)
    /// The words a search matched, in the titles.
    static let match = Style(foreground: .yellow, attributes: [.bold, .underline])
}
