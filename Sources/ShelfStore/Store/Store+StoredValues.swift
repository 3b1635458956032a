extension Store {
    /// Throws `StoreError` (`.database`) when one of the items `ids` holds a value another
    /// program stored with the wrong type (text in a time, 2.5 in a priority, bytes that are
    /// not UTF-8 in a title): its message names the first such row, its column, and the
    /// `sqlite3` statement that corrects it, as `items.item(id:)`, exports and copies refuse
    /// it. For a page read with `items.items(matching:after:limit:)`, which reads such values
    /// as they come (so that one bad row does not keep a list from showing) and a caller that
    /// must not hand them on as if they were stored (the server's list and live windows).
    ///
    /// One read of the rows by their IDs, apart from the page's own (a row changed between the
    /// two is checked as it is now); IDs that do not exist are skipped. SQLite only: a backend
    /// whose columns hold only values of their type returns at once.
    package func refuseMistypedItems(_ ids: [Item.ID]) async throws {
        try await backend.refuseMistypedItems(ids)
    }
}
