internal import Foundation
internal import ShelfReactive

extension Store {
    /// Copies every user, item and saved view of this store into `target`, another store on
    /// any backend (SQLite or PostgreSQL, the same or the other): with their IDs, versions,
    /// times and text byte for byte. A service can migrate itself with it.
    ///
    /// - This store is read from one consistent snapshot; other connections and processes go
    ///   on writing meanwhile, and their later commits are not copied.
    /// - `target` must hold no users, items or saved views (a new file, an empty database, or
    ///   one just migrated), unless `options.replace`, which replaces its contents; that is
    ///   refused while another process has `target` open.
    /// - All or nothing: the rows are written in one transaction of `target` (which other
    ///   writers of `target` wait for; on PostgreSQL, readers of its users and items too
    ///   while their indexes are built again at the end), whose sequences
    ///   are then moved past every copied ID (and past any ID `target` handed out before), and
    ///   whose search index covers every item. Before it commits, the copy reads `target`
    ///   back and compares row counts and fingerprints with the source; when they differ it
    ///   rolls back and returns a report whose `matches` is false. A throw, a lost connection,
    ///   a crash or the cancellation of the calling task also leave `target` as it was.
    ///
    /// Runs on a thread of its own. `progress` is called from it, at most once a page.
    /// - Throws: `StoreError`: `.invalidValue` when `target` is this store's own database,
    ///   is not empty (naming what it holds) or a source row does not fit; `.conflict` when
    ///   another session was writing `target` as the copy began (another copy into the same
    ///   empty database) and left rows there: nothing of this copy was written, and `target`
    ///   holds what that session wrote; `.busy` when `options.replace` and another process
    ///   has `target` open, or a lock on `target` stayed held past the write timeout (naming
    ///   who held it); `.database` for failures of either side. `CancellationError` when the
    ///   task was cancelled.
    @discardableResult
    public func copy(
        to target: Store, options: CopyOptions = CopyOptions(),
        progress: @escaping @Sendable (CopyProgress) -> Void = { _ in }
    ) async throws -> CopyReport {
        try await copy(to: target, options: options, keepingReplacedIn: nil, progress: progress)
    }

    /// `copy(to:options:progress:)`, which with `options.replace` first copies what `target`
    /// holds into `keep` (a new, empty store), inside the copy's transaction, before deleting
    /// it: a restore that keeps what it replaces. When that copy fails, nothing is replaced.
    package func copy(
        to target: Store, options: CopyOptions, keepingReplacedIn keep: Store?,
        progress: @escaping @Sendable (CopyProgress) -> Void
    ) async throws -> CopyReport {
        let (source, target) = (self, target)
        // On a thread of its own (it blocks for as long as the copy takes), through the one
        // bridge: cancelling the task sets the flag the copy checks between pages.
        return try await BlockingWork.run { cancellation in
            try StoreCopier(
                source: source, target: target, options: options, progress: progress,
                isCancelled: { cancellation.isCancelled }, keepReplaced: keep
            ).run()
        }
    }
}

extension Store {
    /// `copy(to:)` into a new SQLite file at `path` (an empty file the caller made and
    /// claims, not opened as a store), page by page: SQLite's backup of this store's one
    /// snapshot, its derived data made again (the change log, the browser's undo records and
    /// Litestream's tables left out, the item totals counted again from the rows), then both
    /// sides read back on two threads, each for its row counts and fingerprint.
    ///
    /// Only for a SQLite store whose schema is exactly what this build's migrations make:
    /// then the copy's indexes and search indexes are what a row copy would build, without
    /// building them. Returns nil, with `path` emptied again, when this store is not one
    /// (another backend, a schema another program changed, a row a row copy refuses): the
    /// caller then copies row by row (`copy(to:)`), which says what it refuses or mends it.
    ///
    /// A report that does not match leaves the file for the caller to discard. Throws as
    /// `copy(to:)` does; `CancellationError` when the calling task is cancelled.
    package func copyPages(
        intoNewFile path: String, progress: @escaping @Sendable (CopyProgress) -> Void = { _ in }
    ) async throws -> CopyReport? {
        try await backend.copyPages(intoNewFile: path, progress: progress)
    }
}
