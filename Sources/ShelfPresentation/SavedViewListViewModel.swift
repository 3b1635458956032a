internal import Foundation
public import ShelfReactive
public import ShelfStore

/// One saved view in the picker, formatted.
public struct SavedViewRowViewModel: Hashable, Sendable, Identifiable {
    /// The view's ID, which identifies the row across updates.
    public let id: SavedView.ID
    /// The view's name as stored.
    public let name: String
    /// The sort in words ("newest first"), or the stored field's name and "(unknown)" for a
    /// field this shelf does not know.
    public let sort: String
    /// The search text in quotes, or "all items" when it is empty.
    public let query: String

    /// The row for `view`.
    public init(_ view: SavedView) {
        id = view.id
        name = view.name
        sort =
            view.sortField.map { Formatting.sort($0, view.sortDirection) }
            ?? "\(view.sortFieldName) (unknown)"
        let text = view.queryText.trimmingCharacters(in: .whitespaces)
        query = text.isEmpty ? "all items" : "“\(text)”"
    }
}

/// What the saved-views picker shows.
public struct SavedViewListContent: Hashable, Sendable {
    /// Every view, by name.
    public let rows: [SavedViewRowViewModel]
    /// The selected row's index in `rows`.
    public let selectedIndex: Int?
    /// Feedback about the last action (a delete that failed), or nil.
    public let message: String?

    /// Content from its parts; for tests and the mapping.
    public init(rows: [SavedViewRowViewModel], selectedIndex: Int?, message: String?) {
        self.rows = rows
        self.selectedIndex = selectedIndex
        self.message = message
    }
}

/// Every saved view, live, with a selection: the browser's picker. A view saved, renamed or
/// deleted by any process shows up while the picker is open. Main actor.
@MainActor
public final class SavedViewListViewModel {
    /// What the picker shows: `.empty` (saying how to save one) when there are no views.
    public let state: Property<ViewState<SavedViewListContent>>

    private let store: Store
    private let keys: KeyNames
    private let mutableState = MutableProperty<ViewState<SavedViewListContent>>(.idle)
    private let token = Lifetime.Token()
    private let tasks = IntentTracker()
    private var observation: Observation?
    private var views: [SavedView] = []
    private var selectedID: SavedView.ID?
    private var message: String?

    /// A picker model in state `.idle`: nothing is read until `load()`. `selecting` names the
    /// view to select first (the open one), when there is one.
    /// `keys` names the keys in the picker's texts (the config's, in the browser).
    public init(store: Store, selecting name: String? = nil, keys: KeyNames = .defaults) {
        self.store = store
        self.keys = keys
        state = mutableState.property
        pendingName = name
    }

    /// The name to select once the views are read.
    private var pendingName: String?

    /// The picker's keys, for its foot, named as `keys` names them.
    public nonisolated static func hints(keys: KeyNames = .defaults) -> String {
        KeyHint.line(hintList(keys: keys))
    }

    /// The hints of `hints(keys:)`, ranked: opening and the way out kept whole.
    public nonisolated static func hintList(keys: KeyNames = .defaults) -> [KeyHint] {
        [
            KeyHint("\(keys("views.open", "Enter")) open", rank: 1),
            KeyHint("\(keys("views.delete", "d")) delete", rank: 2), KeyHint(closeHint(keys: keys), rank: 1),
        ]
    }
    /// The picker's foot while it shows no views (empty, failed or loading).
    public nonisolated static func closeHint(keys: KeyNames = .defaults) -> String {
        "\(keys("views.close", "Esc")) close"
    }
    /// What shows while the views are read.
    public nonisolated static let loadingText = "Loading saved views…"

    /// The question asked before deleting `row`'s view, with its keys named as `keys` names them.
    public nonisolated static func deleteQuestion(_ row: SavedViewRowViewModel, keys: KeyNames = .defaults) -> String {
        deleteQuestionLead(row) + " " + KeyHint.line(deleteHints(keys: keys), separator: deleteHintSeparator)
    }

    /// The question of `deleteQuestion(_:keys:)` without its keys: "Delete “NAME”?", which a
    /// narrow line cuts before the keys.
    public nonisolated static func deleteQuestionLead(_ row: SavedViewRowViewModel) -> String {
        "Delete “\(row.name)”?"
    }

    /// The keys that answer the question, both kept whole (joined by `deleteHintSeparator`).
    public nonisolated static func deleteHints(keys: KeyNames = .defaults) -> [KeyHint] {
        [
            KeyHint("\(keys("confirm.yes", "y / Enter")): delete", rank: 1),
            KeyHint("\(keys("confirm.no", "n / Esc")): keep it", rank: 1),
        ]
    }

    /// Between the answers' keys.
    public nonisolated static let deleteHintSeparator = "    "

    /// The selected view, or nil when there is none.
    public var selectedView: SavedView? {
        guard let selectedID else { return nil }
        return views.first { $0.id == selectedID }
    }

    /// Reads the views and follows changes to them; a failure shows as `.failed`. Does
    /// nothing once following.
    @discardableResult
    public func load() -> Intent {
        guard observation == nil else { return .done }
        mutableState.value = .loading
        let store = self.store
        return tasks.start(
            key: "load", { try await store.liveSavedViews() }, then: { [weak self] views in self?.follow(views) },
            onFailure: { [weak self] error in self?.fail(error) })
    }

    /// Moves the selection by `count` rows, stopping at the ends.
    public func moveSelection(by count: Int) {
        guard !views.isEmpty else { return }
        let current = views.firstIndex { $0.id == selectedID } ?? 0
        selectedID = views[min(max(0, current + count), views.count - 1)].id
        publish()
    }

    /// Deletes the view with `id`. A failure (the view deleted meanwhile elsewhere, the
    /// store unreachable) shows as the content's message; the live list shows the result.
    @discardableResult
    public func delete(id: SavedView.ID) -> Intent {
        guard let view = views.first(where: { $0.id == id }) else { return .done }
        message = nil
        let store = self.store
        return tasks.start(
            { try await store.views.delete(named: view.name) },
            onFailure: { [weak self] error in
                self?.message = "Could not delete “\(view.name)”: \(error)"
                self?.publish()
            })
    }

    private func follow(_ live: Property<LiveResult<[SavedView]>>) {
        observation = live.observeOutsideIntents(during: token.lifetime) { [weak self] result in
            switch result {
            case .success(let views): self?.show(views)
            case .failure(let error): self?.fail(error)  // the query retries by itself
            }
        }
    }

    private func show(_ newViews: [SavedView]) {
        let oldIndex = views.firstIndex { $0.id == selectedID }
        views = newViews
        if let name = pendingName, let named = newViews.first(where: { $0.name == name }) {
            selectedID = named.id
            pendingName = nil
        } else if selectedID == nil || !newViews.contains(where: { $0.id == selectedID }) {
            // The selected view went away: its neighbour takes its place.
            selectedID = newViews.isEmpty ? nil : newViews[min(oldIndex ?? 0, newViews.count - 1)].id
        }
        publish()
    }

    private func publish() {
        mutableState.value = Self.state(views, selectedID: selectedID, message: message, keys: keys)
    }

    private func fail(_ error: any Error) {
        mutableState.value = .failed(Failure("Could not read the saved views: \(error)", underlying: error))
    }

    /// The pure mapping from views and a selection to the picker's state.
    public nonisolated static func state(
        _ views: [SavedView], selectedID: SavedView.ID?, message: String?, keys: KeyNames = .defaults
    ) -> ViewState<SavedViewListContent> {
        guard !views.isEmpty else {
            return .empty(
                message
                    ?? "No saved views yet. Press \(keys("list.saveView", "V")) in the list to save the search and sort, "
                    + "or: shelf views save NAME --query TEXT")
        }
        return .loaded(
            SavedViewListContent(
                rows: views.map(SavedViewRowViewModel.init), selectedIndex: views.firstIndex { $0.id == selectedID },
                message: message))
    }
}
