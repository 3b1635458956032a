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

    /// The row for `summary`, with the counts in words.
    public init(_ summary: UserSummary) {
        id = summary.user.id
        name = summary.user.name
        email = summary.user.email
        items = Formatting.items(summary.itemCount)
        open = "\(Formatting.count(summary.openCount)) open"
    }
}

/// Every user with their item counts, live. Main actor.
@MainActor
public final class UserListViewModel {
    /// What the list shows: `.empty` when there are no users.
    public let state: Property<ViewState<[UserRowViewModel]>>

    private let store: Store
    private let mutableState = MutableProperty<ViewState<[UserRowViewModel]>>(.idle)
    private let token = Lifetime.Token()
    private var observation: Observation?

    /// A user list model in state `.idle`: nothing is read until `load()`. Observations it
    /// makes end when the model is released.
    public init(store: Store) {
        self.store = store
        state = mutableState.property
    }

    /// Reads the users and follows changes to users and items.
    public func load() {
        guard observation == nil else { return }
        mutableState.value = .loading
        let store = self.store
        Task.detached { [weak self] in
            do {
                let summaries = try await store.liveUserSummaries()
                await self?.follow(summaries)
            } catch {
                await self?.fail(error)
            }
        }
    }

    private func follow(_ summaries: Property<LiveResult<[UserSummary]>>) {
        observation = summaries.observeOnMainActor(during: token.lifetime) { [weak self] result in
            switch result {
            case .success(let summaries): self?.mutableState.value = Self.state(summaries)
            case .failure(let error): self?.fail(error)  // the query retries by itself
            }
        }
    }

    private func fail(_ error: any Error) {
        mutableState.value = .failed(Failure("Could not read the users: \(error)", underlying: error))
    }

    /// The pure mapping from summaries to the list's state.
    public nonisolated static func state(_ summaries: [UserSummary]) -> ViewState<[UserRowViewModel]> {
        summaries.isEmpty
            ? .empty("No users yet. Add one with: shelf users add --name NAME --email EMAIL")
            : .loaded(summaries.map(UserRowViewModel.init))
    }
}
