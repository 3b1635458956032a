public import ShelfTerminal

/// What a key does in the browser.
public enum BrowserAction: String, Hashable, Sendable, CaseIterable {
    case moveDown, moveUp, pageDown, pageUp, top, bottom
    case search, clearSearch, cycleStatus, cycleSort
    case reverseSort
    case open, new, edit, toggleDone, delete, retry
    case help, quit
    case users
    case savedViews, saveView
    case toggleMark, markAll, setOwner, setPriority, undo, redo, copyText, copyJSON
}

/// One row of the key table: the keys, the action, and the words for help.
public struct KeyBinding: Hashable, Sendable {
    public let keys: [KeyEvent]
    public let action: BrowserAction
    public let summary: String
    public let section: String
}

/// The browser's keys, in one table: controllers look keys up here and the help screen is
/// generated from it, so help never drifts from the keys.
public enum KeyBindings {
    public static let table: [KeyBinding] = [
        KeyBinding(keys: [.character("j"), KeyEvent(.down)], action: .moveDown, summary: "next item", section: "Move"),
        KeyBinding(keys: [.character("k"), KeyEvent(.up)], action: .moveUp, summary: "previous item", section: "Move"),
        KeyBinding(
            keys: [KeyEvent(.pageDown), .control("f")], action: .pageDown, summary: "page down", section: "Move"),
        KeyBinding(keys: [KeyEvent(.pageUp), .control("b")], action: .pageUp, summary: "page up", section: "Move"),
        KeyBinding(keys: [.character("g"), KeyEvent(.home)], action: .top, summary: "first item", section: "Move"),
        KeyBinding(keys: [.character("G"), KeyEvent(.end)], action: .bottom, summary: "last item", section: "Move"),
        KeyBinding(keys: [.character("/")], action: .search, summary: "search titles and notes", section: "Find"),
        KeyBinding(
            keys: [KeyEvent(.escape)], action: .clearSearch, summary: "clear search and filters", section: "Find"),
        KeyBinding(keys: [.character("f")], action: .cycleStatus, summary: "filter: all, open, done", section: "Find"),
        KeyBinding(keys: [.character("s")], action: .cycleSort, summary: "change the order", section: "Find"),
        KeyBinding(keys: [.character("S")], action: .reverseSort, summary: "reverse the order", section: "Find"),
        KeyBinding(
            keys: [.character("v")], action: .savedViews, summary: "saved views (open, delete)", section: "Find"),
        KeyBinding(keys: [.character("V")], action: .saveView, summary: "save the search and sort", section: "Find"),
        KeyBinding(keys: [KeyEvent(.enter)], action: .open, summary: "open the item", section: "Items"),
        KeyBinding(keys: [.character("n")], action: .new, summary: "new item", section: "Items"),
        KeyBinding(keys: [.character("e")], action: .edit, summary: "edit the item", section: "Items"),
        KeyBinding(keys: [.character(" ")], action: .toggleDone, summary: "mark done or open", section: "Items"),
        KeyBinding(
            keys: [.character("d"), KeyEvent(.delete)], action: .delete, summary: "delete (asks first)",
            section: "Items"),
        KeyBinding(keys: [.character("r")], action: .retry, summary: "retry after an error", section: "Items"),
        KeyBinding(keys: [.character("U")], action: .users, summary: "users: add, edit, remove", section: "Other"),
        KeyBinding(
            keys: [.character("m")], action: .toggleMark, summary: "mark or unmark, then next", section: "Marks"),
        KeyBinding(
            keys: [.character("M")], action: .markAll, summary: "mark all that match (again: none)", section: "Marks"),
        KeyBinding(keys: [.character("o")], action: .setOwner, summary: "owner of marked (or this)", section: "Marks"),
        KeyBinding(
            keys: [.character("p")], action: .setPriority, summary: "priority of marked (or this)", section: "Marks"),
        KeyBinding(keys: [.character("u")], action: .undo, summary: "undo", section: "Marks"),
        KeyBinding(keys: [.control("r")], action: .redo, summary: "redo", section: "Marks"),
        KeyBinding(
            keys: [.character("y")], action: .copyText, summary: "copy marked (or this) as text", section: "Marks"),
        KeyBinding(
            keys: [.character("Y")], action: .copyJSON, summary: "copy marked (or this) as JSON", section: "Marks"),
        KeyBinding(
            keys: [.character("?"), KeyEvent(.function(1))], action: .help, summary: "this help", section: "Other"),
        KeyBinding(keys: [.character("q"), .control("c")], action: .quit, summary: "quit", section: "Other"),
    ]

    private static let byKey: [KeyEvent: BrowserAction] = {
        var map: [KeyEvent: BrowserAction] = [:]
        for binding in table {
            for key in binding.keys { map[key] = binding.action }
        }
        return map
    }()

    /// The action bound to `event`, if any.
    public static func action(for event: KeyEvent) -> BrowserAction? { byKey[event] }
}

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
