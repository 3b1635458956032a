internal import ShelfTerminal

/// Where a key is typed: each mode has its own actions and keys, and a key may mean one thing
/// in one mode and another elsewhere (`d` deletes an item in the list and a user in the users
/// view). The configuration file binds keys per mode (`[keys.list]`, `[keys.editor]`, …).
public enum KeyMode: String, CaseIterable, Hashable, Sendable {
    /// The item list.
    case list
    /// An item opened full-screen (Enter); the list's keys work there too.
    case detail
    /// The search field above the list.
    case search
    /// Editing text in any field: the search, the editor's fields and notes, prompts.
    case text
    /// The item editor (`n`, `e`).
    case editor
    /// The editor after someone else saved the item first.
    case conflict
    /// The users view (`U`).
    case users
    /// The form that adds or edits a user.
    case userForm = "user-form"
    /// The saved views (`v`).
    case views
    /// A yes-or-no question (delete, replace).
    case confirm
    /// A one-line prompt (owner, priority, a view's name).
    case prompt
    /// This help.
    case help

    /// The heading of the mode's part of the help with the defaults' keys.
    public var title: String { title(keys: .defaults) }

    /// The heading of the mode's part of the help, naming the first key of each list action
    /// that leads there as `keys` binds it ("Item opened (Enter)"; hostile round 12: it said
    /// Enter once Enter was rebound), and leaving out an action with no key.
    public func title(keys: KeyMap) -> String {
        func named(_ words: String, _ names: String...) -> String {
            let bound = names.compactMap { name in
                KeyAction.all.first { $0.mode == .list && $0.name == name }.flatMap { keys.keys(for: $0).first }
            }
            return bound.isEmpty ? words : "\(words) (\(bound.map(\.description).joined(separator: ", ")))"
        }
        switch self {
        case .list: return "List"
        case .detail: return named("Item opened", "open")
        case .search: return named("Search field", "search")
        case .text: return "Editing text (any field)"
        case .editor: return named("Item editor", "new", "edit")
        case .conflict: return "Editor: saved elsewhere first"
        case .users: return named("Users", "users")
        case .userForm: return "User form"
        case .views: return named("Saved views", "savedViews")
        case .confirm: return "Questions (delete, replace)"
        case .prompt: return "Prompts (owner, priority, name)"
        case .help: return named("Help", "help")
        }
    }
}

/// A controller that knows which modes its keys belong to, first the one asked first.
@MainActor
protocol KeyModeReporting: AnyObject {
    /// The modes whose bindings apply now, most specific first (a text field inside the editor:
    /// `[.text, .editor]`).
    var keyModes: [KeyMode] { get }
}

extension KeyMode {
    /// Every order in which the browser asks modes for a key (the `keyModes` of the controller
    /// that has the keys), most specific first, with the place it is for in messages. A key
    /// bound in a mode asked first is taken there before a later mode sees it: naming such a
    /// binding needs every order (`[keys.editor] save = ["ctrl-a"]` meets lineStart of
    /// [keys.text] first in the editor's text fields).
    static let dispatchOrders: [(modes: [KeyMode], place: String)] = [
        ([.list], "the list"),
        ([.detail, .list], "an item opened on the whole screen"),
        ([.text, .search], "the search field"),
        ([.text, .editor], "the editor's text fields and notes"),
        ([.editor], "the editor's status field"),
        ([.conflict], "the editor after a conflict"),
        ([.users], "the users view"),
        ([.text, .userForm], "the user form"),
        ([.views], "the saved views"),
        ([.confirm], "a question"),
        ([.text, .prompt], "a prompt"),
        ([.help], "the help"),
    ]
}
