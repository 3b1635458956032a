public import ShelfReactive
public import ShelfStore

/// Everything the detail pane shows about one item, formatted.
public struct ItemDetailContent: Hashable, Sendable {
    /// The item's ID.
    public let id: Item.ID
    /// The title as stored (not cut; the view fits it).
    public let title: String
    /// The notes, or nil when there are none (empty notes are none).
    public let notes: String?
    /// The owner's name, or "unknown owner" while users load or when the owner is missing.
    public let ownerName: String
    /// The owner's email, or "" when the owner is not known.
    public let ownerEmail: String
    /// "open" or "done".
    public let status: String
    /// "high (3)", "none (0)", …
    public let priority: String
    /// Full timestamps: "2026-11-22 14:05 UTC".
    public let created: String
    /// When the item was last changed, formatted as `created` is.
    public let updated: String
    /// The item as stored, for editing.
    public let item: Item

    /// The content for `item` owned by `owner` (nil while users load or when missing).
    public init(item: Item, owner: User?) {
        id = item.id
        title = item.title
        notes = item.notes.flatMap { $0.isEmpty ? nil : $0 }
        ownerName = owner?.name ?? "unknown owner"
        ownerEmail = owner?.email ?? ""
        status = item.status.rawValue
        priority = "\(Formatting.priorityName(item.priority)) (\(item.priority))"
        created = Formatting.timestamp(item.createdAt)
        updated = Formatting.timestamp(item.updatedAt)
        self.item = item
    }
}

/// One item, live: its fields and its owner, for the detail pane.
///
/// When the item is deleted (here or by another process) the state becomes `.empty` with a
/// message saying so. Main actor.
@MainActor
public final class ItemDetailViewModel {
    /// What the pane shows.
    public let state: Property<ViewState<ItemDetailContent>>
    /// The item shown.
    public let id: Item.ID

    private let store: Store
    private let mutableState = MutableProperty<ViewState<ItemDetailContent>>(.idle)
    private let token = Lifetime.Token()
    private var observation: Observation?

    /// A detail model for the item `id`, in state `.idle`: nothing is read until `load()`.
    /// Observations it makes end when the model is released.
    public init(store: Store, id: Item.ID) {
        self.store = store
        self.id = id
        state = mutableState.property
    }

    /// Reads the item and its owner and follows their changes.
    public func load() {
        guard observation == nil else { return }
        mutableState.value = .loading
        let store = self.store
        let id = self.id
        Task.detached { [weak self] in
            do {
                let item = try await store.liveItem(id: id)
                let users = try await store.liveUsers()
                await self?.follow(combineLatest(item, users))
            } catch {
                await self?.fail(error)
            }
        }
    }

    /// Reads again after a failure.
    public func retry() {
        observation?.cancel()
        observation = nil
        load()
    }

    private func follow(_ values: Property<(LiveResult<Item?>, LiveResult<[User]>)>) {
        observation = values.observeOnMainActor(during: token.lifetime) { [weak self] item, users in
            guard let self else { return }
            switch (item, users) {
            case (.success(let item), .success(let users)):
                mutableState.value = Self.state(item: item, users: users, id: id)
            case (.failure(let error), _), (_, .failure(let error)):
                fail(error)  // the queries retry by themselves
            }
        }
    }

    private func fail(_ error: any Error) {
        mutableState.value = .failed(Failure("Could not read item \(id): \(error)", underlying: error))
    }

    /// The pure mapping: the item with its owner, or why there is nothing.
    public nonisolated static func state(item: Item?, users: [User], id: Item.ID) -> ViewState<ItemDetailContent> {
        guard let item else { return .empty("Item \(id) was deleted.") }
        return .loaded(ItemDetailContent(item: item, owner: users.first { $0.id == item.userID }))
    }
}
