public import ShelfTerminal

/// One row of the key table: the keys, the action, and the words for help.
public struct KeyBinding: Hashable, Sendable {
    public let keys: [KeyEvent]
    public let action: BrowserAction
    public let summary: String
    public let section: String
}
