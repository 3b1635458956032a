extension Store {
    /// About how many users `forEachUser` calls its body with, for a progress bar: counted
    /// just before, in a read of its own, so writes in between may change the figure. Nil on a
    /// backend where counting would read every user.
    package func exportUserCount() async throws -> Int? {
        try await backend.exportUserCount()
    }

    /// About how many items `forEachItem(matching:)` calls its body with, as `exportUserCount`:
    /// `items.count(matching:)`, one lookup when nothing is filtered.
    package func exportItemCount(matching query: ItemQuery) async throws -> Int {
        try await items.count(matching: query)
    }
}
