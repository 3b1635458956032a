public import Foundation
internal import ShelfReactive
public import ShelfStore

/// The item browser as a whole: the list, and the view models of what it opens.
///
/// Makes each screen's view model from one store, so screens never see the store. Main actor.
@MainActor
public final class BrowserViewModel {
    /// The item list, shared by the list and the status bar.
    public let list: ItemListViewModel
    /// Marks, bulk actions and undo, for the browser's lifetime.
    public let actions: ItemActions
    let store: Store
    private let tasks = IntentTracker()
    /// The saved view last opened (or saved) in this browser; see `openViewName`.
    public internal(set) var openView: SavedView?

    /// A browser over `store`; nothing is read until the list's `load()`.
    /// - Parameters:
    ///   - store: the store every screen reads and writes.
    ///   - windowSize: rows the list holds at once (a few screens; at least 4 are kept).
    ///   - now: the clock for relative dates.
    ///   - initialView: a saved view to open with: the list starts with its query and sort.
    public init(
        store: Store, windowSize: Int = 200, now: @escaping @Sendable () -> Date = { Date() },
        initialView: SavedView? = nil
    ) {
        self.store = store
        list = ItemListViewModel(
            store: store, query: initialView?.itemQuery ?? ItemQuery(), windowSize: windowSize, now: now)
        openView = initialView
        actions = ItemActions(store: store)
    }

    /// Where the database is, for the status bar.
    public var location: String { store.location }

    /// The detail of one item: a bounded preview of its notes, or all of them when
    /// `wholeNotes` is true.
    public func makeDetailViewModel(id: Item.ID, wholeNotes: Bool = false) -> ItemDetailViewModel {
        ItemDetailViewModel(store: store, id: id, wholeNotes: wholeNotes)
    }

    /// An editor for a new item. Its owner is the user the list is filtered by, else the
    /// selected item's owner, else the first user by name (empty when there are none, or when
    /// the store could not be read: then the status bar says so).
    public func makeNewItemEditor() async -> ItemEditorViewModel {
        let email: String
        do {
            email = try await defaultOwnerEmail()
        } catch {
            actions.showFailure("Could not pick an owner for the new item: \(error)")
            email = ""
        }
        return ItemEditorViewModel(store: store, ownerEmail: email)
    }

    private func defaultOwnerEmail() async throws -> String {
        if let owner = list.query.owner, let user = try await store.users.user(id: owner) {
            return user.email
        }
        if let id = list.selectedItemID, let item = try await store.items.item(id: id),
            let user = try await store.users.user(id: item.userID)
        {
            return user.email
        }
        return try await store.users.users().first?.email ?? ""
    }

    /// Makes an editor for a new item (see `makeNewItemEditor()`) and hands it to `open`.
    @discardableResult
    public func openNewItemEditor(_ open: @escaping @MainActor (ItemEditorViewModel) -> Void) -> Intent {
        tasks.start(
            { [weak self] in
                guard let self else { return }
                open(await makeNewItemEditor())
            }, onFailure: { [weak self] error in self?.actions.showFailure("Could not open the editor: \(error)") })
    }

    /// Makes an editor for the item with `id` (see `makeEditor(id:)`) and hands it to `open`;
    /// nil when the item is gone or could not be read (the status bar says why). Its save is
    /// recorded for undo from what it wrote (`ItemActions.editorSaved(_:)`).
    @discardableResult
    public func openEditor(id: Item.ID, _ open: @escaping @MainActor (ItemEditorViewModel?) -> Void) -> Intent {
        tasks.start(
            { [weak self] in
                guard let self else { return }
                guard let editor = await makeEditor(id: id) else { return open(nil) }
                open(editor)
            }, onFailure: { [weak self] error in self?.actions.showFailure("Could not open the editor: \(error)") })
    }

    /// The users view: every user with their item counts.
    public func makeUserList() -> UserListViewModel {
        UserListViewModel(store: store)
    }

    /// The command that fills this database with sample data, `shelf demo --db PATH`, the
    /// location shell-quoted (a PostgreSQL URL without its password); nil for a store in
    /// memory, which no other command can reach.
    public var demoCommand: String? { StoreHints.demoCommand(location: store.shareableLocation) }

    /// An editor for the item with `id`, or nil when it no longer exists or could not be read
    /// (then the status bar says why).
    public func makeEditor(id: Item.ID) async -> ItemEditorViewModel? {
        do {
            guard let item = try await store.items.item(id: id) else { return nil }
            // An owner deleted meanwhile leaves the field empty: saving asks for one.
            let email = try await store.users.user(id: item.userID)?.email ?? ""
            return ItemEditorViewModel(store: store, editing: item, ownerEmail: email)
        } catch {
            actions.showFailure(
                "Could not open item \(id.rawValue) for editing: \(error); press \(list.keys("list.edit", "e")) to try again"
            )
            return nil
        }
    }

    /// A question asking whether to delete the item with `id`, titled with its title, naming
    /// the undo key as `keys` names it.
    public func makeDeleteConfirmation(id: Item.ID, title: String, keys: KeyNames = .defaults) -> ConfirmViewModel {
        ConfirmViewModel(
            title: "Delete item", message: "Delete “\(Formatting.inline(title))”? \(keys("list.undo", "u")) undoes it.",
            confirmLabel: "delete")
    }
}
