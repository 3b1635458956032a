public import ShelfReactive
public import ShelfStore

/// One user in the user list, formatted.
public struct UserRowViewModel: Hashable, Sendable, Identifiable {
    /// The user's ID, which identifies the row across updates.
    public let id: User.ID
    /// The user's name as stored.
    public let name: String
    /// The user's email as stored (normalized).
    public let email: String
    /// "3 items", "1 item".
    public let items: String
    /// "2 open".
    public let open: String
    /// How many items the user owns (all of them go when the user is removed).
    public let itemCount: Int

    /// The row for `summary`, with the counts in words.
    public init(_ summary: UserSummary) {
        id = summary.user.id
        name = summary.user.name
        email = summary.user.email
        items = Formatting.items(summary.itemCount)
        open = "\(Formatting.count(summary.openCount)) open"
        itemCount = summary.itemCount
    }
}

/// Every user with their item counts, live, sorted by name; a selection; and the intents
/// of the users view: add, edit, remove (after a question naming the items that go too).
///
/// Main actor: call intents from the UI; every property changes on the main actor. Store
/// work runs off the main actor.
@MainActor
public final class UserListViewModel {
    /// What the list shows: `.empty` when there are no users.
    public let state: Property<ViewState<[UserRowViewModel]>>
    /// The selected user's ID: the first user once loaded, kept by ID across updates; when
    /// the selected user goes, the row that took its place.
    public let selection: Property<User.ID?>
    /// Feedback about the last action (why a removal failed), or nil.
    public let message: Property<String?>

    private let store: Store
    private let mutableState = MutableProperty<ViewState<[UserRowViewModel]>>(.idle)
    private let mutableSelection = MutableProperty<User.ID?>(nil)
    private let mutableMessage = MutableProperty<String?>(nil)
    private let token = Lifetime.Token()
    private let tasks = IntentTracker()
    private var observation: Observation?
    private var summaries: [UserSummary] = []
    /// A user to select as soon as the live list holds them (one just added).
    private var awaitedID: User.ID?

    /// A user list model in state `.idle`: nothing is read until `load()`. Observations it
    /// makes end when the model is released.
    public init(store: Store) {
        self.store = store
        state = mutableState.property
        selection = mutableSelection.property
        message = mutableMessage.property
    }

    /// The command that fills this database with sample users and items (`shelf demo --db
    /// PATH`), for the hint shown when there are no users; nil for a store in memory.
    public var demoCommand: String? { StoreHints.demoCommand(location: store.shareableLocation) }

    /// How `messageText` names keys: the browser sets the keys in force.
    public var keys = KeyNames.defaults

    /// The line under the list: "Loading users…"; the empty state's message with how to add
    /// a user (and fill a demo), naming the key as `keys` names it; the failure's message; or
    /// the last action's message.
    public var messageText: String {
        Self.messageText(state: state.value, message: message.value, demoCommand: demoCommand, keys: keys)
    }

    /// The keys of the users view, for its foot, named as `keys` names them.
    public nonisolated static func hints(keys: KeyNames = .defaults) -> String {
        KeyHint.line(hintList(keys: keys))
    }

    /// The hints of `hints(keys:)`, ranked for a narrow line (`KeyHint.line(_:width:separator:measure:)`):
    /// the way back and adding a user kept whole, then showing their items, editing, removing.
    public nonisolated static func hintList(keys: KeyNames = .defaults) -> [KeyHint] {
        [
            KeyHint("\(keys("users.add", "a")) add", rank: 1), KeyHint("\(keys("users.edit", "e")) edit", rank: 3),
            KeyHint("\(keys("users.delete", "d")) remove", rank: 4),
            KeyHint("\(keys("users.showItems", "Enter")) their items", rank: 2),
            KeyHint("\(keys("users.close", "Esc")) back", rank: 1),
        ]
    }

    /// The line under the list for `state`: see `messageText`.
    public nonisolated static func messageText(
        state: ViewState<[UserRowViewModel]>, message: String?, demoCommand: String?, keys: KeyNames = .defaults
    ) -> String {
        switch state {
        case .idle, .loading: "Loading users…"
        case .loaded: message ?? ""
        case .empty(let why):
            why + " Press \(keys("users.add", "a")) to add one" + (demoCommand.map { ", or fill a demo: \($0)" } ?? "")
                + "."
        case .failed(let failure): failure.message
        }
    }

    /// The selected row, or nil.
    public var selectedRow: UserRowViewModel? {
        guard let id = mutableSelection.value else { return nil }
        return mutableState.value.value?.first { $0.id == id }
    }

    /// Reads the users and follows changes to users and items; a failure shows as
    /// `.failed`. Does nothing once following.
    @discardableResult
    public func load() -> Intent {
        guard observation == nil else { return .done }
        mutableState.value = .loading
        let store = self.store
        return tasks.start(
            key: "load", { try await store.liveUserSummaries() },
            then: { [weak self] summaries in self?.follow(summaries) },
            onFailure: { [weak self] error in self?.fail(error) })
    }

    // MARK: - Selection

    /// Selects the user with `id` now when listed, else as soon as the list holds them.
    public func select(id: User.ID) {
        if summaries.contains(where: { $0.id == id }) {
            mutableSelection.value = id
            awaitedID = nil
        } else {
            awaitedID = id
        }
    }

    /// Moves the selection by `count` rows (negative: up), clamped to the list.
    public func moveSelection(by count: Int) {
        guard !summaries.isEmpty else { return }
        let current = summaries.firstIndex { $0.id == mutableSelection.value } ?? 0
        mutableSelection.value = summaries[max(0, min(current + count, summaries.count - 1))].id
        awaitedID = nil
    }

    // MARK: - Editing

    /// An editor for a new user; saving it selects the new user here (see `select(id:)`).
    public func makeAddEditor() -> UserEditorViewModel {
        UserEditorViewModel(store: store)
    }

    /// An editor for the listed user with `id`, or nil when they are not listed.
    public func makeEditor(id: User.ID) -> UserEditorViewModel? {
        guard let summary = summaries.first(where: { $0.id == id }) else { return nil }
        return UserEditorViewModel(store: store, editing: summary.user)
    }

    /// The question asked before removing the listed user with `id`, naming them and how
    /// many items go with them; nil when they are not listed.
    public func makeRemoveConfirmation(id: User.ID) -> ConfirmViewModel? {
        guard let summary = summaries.first(where: { $0.id == id }) else { return nil }
        return ConfirmViewModel(title: "Remove user", message: Self.removalQuestion(summary), confirmLabel: "remove")
    }

    /// Removes the user with `id` and all their items. A failure (the user was already
    /// removed elsewhere, the store is read-only) shows in `message`; success clears it, or
    /// names the saved views that showed only this user's items and now show everyone's (the
    /// store clears the owner of a removed user's views).
    @discardableResult
    public func remove(id: User.ID) -> Intent {
        let store = self.store
        let email = summaries.first { $0.id == id }?.user.email
        return tasks.start(
            { [weak self] in
                let owned = try await store.views.views().filter { $0.owner == id }.map(\.name)
                try await store.users.delete(id: id)
                self?.show(message: Self.widenedViewsNote(owned, email: email))
            },
            onFailure: { [weak self] error in
                if let error = error as? StoreError, error.code == .notFound {
                    self?.show(message: "That user was already removed (by another process).")
                } else {
                    self?.show(message: "Could not remove the user: \(error)")
                }
            })
    }

    private func show(message: String?) {
        mutableMessage.value = message
    }

    // MARK: - Following the store

    private func follow(_ summaries: Property<LiveResult<[UserSummary]>>) {
        observation = summaries.observeOutsideIntents(during: token.lifetime) { [weak self] result in
            switch result {
            case .success(let summaries): self?.apply(summaries)
            case .failure(let error): self?.fail(error)  // the query retries by itself
            }
        }
    }

    private func apply(_ newSummaries: [UserSummary]) {
        let oldIndex = summaries.firstIndex { $0.id == mutableSelection.value }
        summaries = newSummaries
        var selected = mutableSelection.value
        if let awaitedID, newSummaries.contains(where: { $0.id == awaitedID }) {
            selected = awaitedID
            self.awaitedID = nil
        } else if !newSummaries.contains(where: { $0.id == selected }) {
            // The selected user went: select the row that took their place.
            selected =
                newSummaries.isEmpty ? nil : newSummaries[max(0, min(oldIndex ?? 0, newSummaries.count - 1))].id
        }
        // Selection first, so a screen that draws on the state sees the right row selected.
        mutableSelection.value = selected
        mutableState.value = Self.state(newSummaries)
    }

    private func fail(_ error: any Error) {
        mutableState.value = .failed(Failure("Could not read the users: \(error)", underlying: error))
    }

    // MARK: - Pure mapping

    /// The pure mapping from summaries to the list's state.
    public nonisolated static func state(_ summaries: [UserSummary]) -> ViewState<[UserRowViewModel]> {
        summaries.isEmpty
            ? .empty("No users yet.")
            : .loaded(summaries.map(UserRowViewModel.init))
    }

    /// "The saved view “Ada's” showed only ada@x.io's items and now shows everyone's (its owner
    /// was removed)." for the views of a removed user; nil for none.
    public nonisolated static func widenedViewsNote(_ views: [String], email: String?) -> String? {
        guard !views.isEmpty else { return nil }
        let one = views.count == 1
        let names = views.map { "“\($0)”" }
        let listed =
            names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
        let whose = email.map { "\($0)'s" } ?? "that user's"
        return "The saved \(one ? "view" : "views") \(listed) showed only \(whose) items and now "
            + "\(one ? "shows" : "show") everyone's (\(one ? "its owner was" : "their owners were") removed)."
    }

    /// "Remove Ada (ada@x.io) and their 12 items? This cannot be undone." — or, for a user
    /// without items, "Remove Ada (ada@x.io)? They own no items. This cannot be undone."
    public nonisolated static func removalQuestion(_ summary: UserSummary) -> String {
        // One line each, cut: a name of 10,000 characters hid "and their N items? This cannot
        // be undone." below the dialog's last line (hostile tester, round 8).
        let who = "\(Formatting.inline(summary.user.name, limit: 60)) (\(Formatting.inline(summary.user.email)))"
        return summary.itemCount == 0
            ? "Remove \(who)? They own no items. This cannot be undone."
            : "Remove \(who) and their \(Formatting.items(summary.itemCount))? This cannot be undone."
    }
}
