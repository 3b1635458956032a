internal import ShelfTerminal

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
