public import ShelfTerminal

/// The browser's styles by role, readable in 16 colours; selection is reverse video, so it
/// shows with `NO_COLOR` too (which drops every colour, configured or not).
public struct Palette: Hashable, Sendable {
    /// The roles a configuration file may restyle, in the order `shelf config --defaults`
    /// writes them, with what each colours.
    public static let roles: [(name: String, summary: String, path: any WritableKeyPath<Palette, Style> & Sendable)] = [
        ("done", "done items and their ✓", \.done),
        ("priority", "the priority marks (!, !!, !!!)", \.priority),
        ("owner", "owners and emails", \.owner),
        ("date", "times (“26m ago”)", \.date),
        ("status", "the status bar", \.status),
        ("error", "errors", \.error),
        ("hint", "hints and placeholders", \.hint),
        ("title", "titles in the detail and the editor", \.title),
        ("label", "field labels", \.label),
        ("badge", "the “↑ N new” badge", \.badge),
        ("mark", "the mark (*) of marked items", \.mark),
        ("match", "the words a search matched", \.match),
    ]

    public var done = Style(foreground: .brightBlack)
    public var priority = Style(foreground: .red, attributes: .bold)
    public var owner = Style(foreground: .cyan)
    public var date = Style(foreground: .brightBlack)
    public var status = Style(attributes: .reverse)
    public var error = Style(foreground: .red, attributes: .bold)
    public var hint = Style(attributes: .dim)
    public var title = Style(attributes: .bold)
    public var label = Style(foreground: .yellow)
    public var badge = Style(foreground: .yellow, attributes: [.bold, .reverse])
    public var mark = Style(foreground: .magenta, attributes: .bold)
    public var match = Style(foreground: .yellow, attributes: [.bold, .underline])

    /// The browser's own styles.
    public init() {}
}
