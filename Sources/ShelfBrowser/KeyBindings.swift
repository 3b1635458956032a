public import ShelfTerminal

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
        KeyBinding(keys: [.character("U")], action: .users, summary: "users: add, edit, remove", section: "Other"),
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
