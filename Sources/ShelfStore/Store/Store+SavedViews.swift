internal import ShelfSQLite

extension Store {
    /// Stores `views` exactly as given (IDs, names, times, versions) in this SQLite store, in
    /// one transaction: how a backup of a server store copies its saved views. Their owners
    /// must be stored already. Blocks the calling thread; never call it from a task.
    /// - Throws: `StoreError`: `.invalidValue` on a store that is not SQLite, `.unknownUser`,
    ///   or a database failure (nothing is stored then).
    package func restoreSavedViews(_ views: [SavedView]) throws {
        guard let sqlite = backend as? SQLiteBackend else {
            throw StoreError(.invalidValue, "saved views can be restored only into a SQLite store, not \(location)")
        }
        try StoreError.translating {
            try sqlite.database.write { connection in try SQLiteSavedViewRepository.restore(views, connection) }
        }
    }
}
