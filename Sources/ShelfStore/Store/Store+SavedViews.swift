extension Store {
    /// Stores `views` exactly as given (IDs, names, times, versions) in this store, in one
    /// transaction: how a backup of a server store copies its saved views into a SQLite file.
    /// Their owners must be stored already. Blocks the calling thread; never call it from a
    /// task.
    /// - Throws: `StoreError`: `.invalidValue` on a backend that cannot restore views (only
    ///   SQLite can), `.unknownUser`, or a database failure (nothing is stored then).
    package func restoreSavedViews(_ views: [SavedView]) throws {
        try backend.restoreSavedViews(views)
    }
}
