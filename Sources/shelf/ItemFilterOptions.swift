import ArgumentParser
import ShelfStore

/// `--query`, `--status` and `--user`: which items a command reads.
struct ItemFilterOptions: ParsableArguments {
    @Option(help: "Words to find in titles and notes (each a prefix).")
    var query = ""

    @Option(help: "Only open or done items.")
    var status: Item.Status?

    @Option(help: ArgumentHelp("Only this user's items.", valueName: "email"))
    var user: String?

    /// True when any filter is given.
    var isFiltering: Bool { !query.isEmpty || status != nil || user != nil }

    /// The query these options describe, with the user looked up by email.
    /// - Throws: `CommandError` when no user has that email.
    func itemQuery(
        in store: Store, sortField: ItemQuery.SortField = .created, sortDirection: ItemQuery.SortDirection = .descending
    )
        async throws -> ItemQuery
    {
        var query = ItemQuery(status: status, text: query, sortField: sortField, sortDirection: sortDirection)
        if let user { query.owner = try await store.users.requireUser(email: user).id }
        return query
    }
}
