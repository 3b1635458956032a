public import ShelfTerminal

/// One thing a key can do in one mode: its name in the configuration file, its default keys,
/// and its words in the help.
///
/// The browser's controllers match the default keys; a configured key is translated to the
/// action's first default key before any controller sees it (`KeyMap.translate(_:modes:)`),
/// so every mode is rebindable without each controller reading the configuration.
public struct KeyAction: Hashable, Sendable {
    /// The mode the action belongs to.
    public let mode: KeyMode
    /// The name in the configuration file (`moveDown`).
    public let name: String
    /// The keys bound when the configuration file binds none.
    public let defaultKeys: [KeyEvent]
    /// What it does, for the help.
    public let summary: String
    /// The group in the help, inside the mode's part.
    public let section: String

    init(_ mode: KeyMode, _ name: String, _ keys: [KeyEvent], _ summary: String, section: String = "") {
        precondition(!keys.isEmpty, "an action needs a default key: its first is what controllers match")
        self.mode = mode
        self.name = name
        defaultKeys = keys
        self.summary = summary
        self.section = section
    }

    /// Every action of every mode, in the order of the help and of `shelf config --defaults`.
    public static let all: [KeyAction] = listActions + otherActions

    /// The actions that leave their mode (quit the browser, close, cancel, answer no): the
    /// configuration cannot leave one without a key.
    static let waysOut: [KeyAction] = all.filter { action in
        switch (action.mode, action.name) {
        case (.list, "quit"), (.detail, "back"), (.search, "clear"), (.confirm, "no"), (.prompt, "cancel"): true
        case (.editor, "close"), (.conflict, "close"), (.users, "close"), (.userForm, "close"): true
        case (.views, "close"), (.help, "close"): true
        default: false
        }
    }

    /// The list's actions, from `KeyBindings.table` (their names are `BrowserAction`'s).
    private static let listActions: [KeyAction] = KeyBindings.table.map {
        KeyAction(.list, $0.action.rawValue, $0.keys, $0.summary, section: $0.section)
    }

    private static let esc = KeyEvent(.escape)
    private static let enter = KeyEvent(.enter)
    private static let tab = KeyEvent(.tab)

    private static let otherActions: [KeyAction] = [
        KeyAction(.detail, "back", [esc, enter, .character("q")], "back to the list"),
        KeyAction(.detail, "retry", [.character("r")], "read the item again after an error"),

        KeyAction(.search, "clear", [esc], "clear the search and leave the field"),
        KeyAction(.search, "done", [enter, tab], "keep the search, back to the list"),

        KeyAction(.text, "cursorLeft", [KeyEvent(.left), .control("b")], "one character left"),
        KeyAction(.text, "cursorRight", [KeyEvent(.right), .control("f")], "one character right"),
        KeyAction(
            .text, "wordLeft", [KeyEvent(.left, modifiers: .alt), KeyEvent(.left, modifiers: .control)],
            "one word left (one-line fields)"),
        KeyAction(
            .text, "wordRight", [KeyEvent(.right, modifiers: .alt), KeyEvent(.right, modifiers: .control)],
            "one word right (one-line fields)"),
        KeyAction(.text, "lineStart", [KeyEvent(.home), .control("a")], "start of the line"),
        KeyAction(.text, "lineEnd", [KeyEvent(.end), .control("e")], "end of the line"),
        KeyAction(.text, "deleteBack", [KeyEvent(.backspace)], "delete the character before"),
        KeyAction(.text, "deleteForward", [KeyEvent(.delete), .control("d")], "delete the character after"),
        KeyAction(
            .text, "deleteWord", [.control("w"), KeyEvent(.backspace, modifiers: .alt)], "delete the word before"),
        KeyAction(.text, "deleteToStart", [.control("u")], "delete to the start of the line"),
        KeyAction(.text, "deleteToEnd", [.control("k")], "delete to the end of the line"),

        KeyAction(.editor, "save", [.control("s")], "save"),
        KeyAction(.editor, "close", [esc, .control("c")], "close without saving"),
        KeyAction(.editor, "nextField", [tab], "next field"),
        KeyAction(.editor, "previousField", [KeyEvent(.tab, modifiers: .shift)], "previous field"),
        KeyAction(.editor, "editNotesOutside", [.control("o")], "edit the notes in $EDITOR"),

        KeyAction(.conflict, "reload", [.character("r")], "take their version (yours is lost)"),
        KeyAction(.conflict, "overwrite", [.character("o")], "save yours over theirs"),
        KeyAction(.conflict, "close", [esc], "close the editor"),

        KeyAction(.users, "moveDown", [.character("j"), KeyEvent(.down)], "next user"),
        KeyAction(.users, "moveUp", [.character("k"), KeyEvent(.up)], "previous user"),
        KeyAction(.users, "pageDown", [KeyEvent(.pageDown)], "page down"),
        KeyAction(.users, "pageUp", [KeyEvent(.pageUp)], "page up"),
        KeyAction(.users, "top", [.character("g"), KeyEvent(.home)], "first user"),
        KeyAction(.users, "bottom", [.character("G"), KeyEvent(.end)], "last user"),
        KeyAction(.users, "add", [.character("a"), .character("n")], "add a user"),
        KeyAction(.users, "edit", [.character("e"), .character("r")], "edit (rename) the user"),
        KeyAction(.users, "delete", [.character("d"), KeyEvent(.delete)], "remove the user (asks first)"),
        KeyAction(.users, "showItems", [enter], "show the user's items"),
        KeyAction(.users, "close", [esc, .character("q"), .character("U")], "back to the items"),

        KeyAction(.userForm, "nextField", [tab, KeyEvent(.down)], "next field"),
        KeyAction(.userForm, "previousField", [KeyEvent(.tab, modifiers: .shift), KeyEvent(.up)], "previous field"),
        KeyAction(.userForm, "save", [enter, .control("s")], "save"),
        KeyAction(.userForm, "close", [esc, .control("c")], "close without saving"),

        KeyAction(.views, "moveDown", [.character("j"), KeyEvent(.down)], "next view"),
        KeyAction(.views, "moveUp", [.character("k"), KeyEvent(.up)], "previous view"),
        KeyAction(.views, "pageDown", [KeyEvent(.pageDown)], "page down"),
        KeyAction(.views, "pageUp", [KeyEvent(.pageUp)], "page up"),
        KeyAction(.views, "open", [enter], "open the view"),
        KeyAction(.views, "delete", [.character("d"), KeyEvent(.delete)], "delete the view (asks first)"),
        KeyAction(.views, "close", [esc, .control("c")], "back to the items"),

        KeyAction(.confirm, "yes", [.character("y"), .character("Y"), enter], "yes"),
        KeyAction(.confirm, "no", [.character("n"), .character("N"), esc, .character("q")], "no"),

        KeyAction(.prompt, "accept", [enter], "accept"),
        KeyAction(.prompt, "cancel", [esc], "cancel"),

        KeyAction(.help, "close", [esc, KeyEvent(.function(1))], "clear the filter, then close"),
        KeyAction(.help, "scrollDown", [KeyEvent(.down), .control("n")], "scroll down"),
        KeyAction(.help, "scrollUp", [KeyEvent(.up), .control("p")], "scroll up"),
        KeyAction(.help, "pageDown", [KeyEvent(.pageDown)], "page down"),
        KeyAction(.help, "pageUp", [KeyEvent(.pageUp)], "page up"),
    ]

    /// Keys that are not rebound (fixed by the terminal or by where they are typed), for the
    /// help: mode, keys, what they do.
    public static let fixed: [(mode: KeyMode, keys: String, summary: String)] = [
        (.list, "Ctrl-Z", "suspend (fg brings it back)"),
        (.list, "wheel", "move three rows"),
        (.list, "click", "select a row; a header: sort by it"),
        (.search, "↓ ↑ PgDn PgUp", "leave the field and move"),
        (.editor, "Enter", "save (one-line fields)"),
        (.editor, "↓ ↑", "next or previous field (past the notes' ends)"),
        (.editor, "Space ← →", "status field: open or done"),
        (.editor, "↓ ↑ Tab Enter", "owner suggestions: choose, take"),
        (.users, "click wheel", "select, move"),
        (.views, "click wheel", "select, move"),
        (.help, "type", "filter the keys (Backspace to undo)"),
    ]
}
