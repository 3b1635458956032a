internal import Foundation
package import ShelfReactive

/// What a database must do to hold a shelf: the seam between `Store` (the public face every
/// layer above uses) and one database engine. SQLite (`SQLiteBackend` in
/// ShelfSQLiteBackend, embedded) and PostgreSQL (`PostgresBackend` in ShelfPostgres)
/// implement it; `ShelfStore` names neither, and nothing above the backends does.
///
/// Every implementation gives the same semantics, which the conformance suite checks on each:
/// the repositories' contracts; live values that re-read only when a commit (from any process
/// or machine) changed a table they read, and never publish an equal value twice; snapshot
/// reads that see one consistent state; imports that are all or nothing. Errors are
/// `StoreError`. Every backend keeps API tokens too (`TokenStorage`).
package protocol StoreBackend: TokenStorage {
    /// Users of this store.
    var users: any UserRepository { get }
    /// Items of this store.
    var items: any ItemRepository { get }
    /// Saved views of this store.
    var views: any SavedViewRepository { get }
    /// The migrations this open applied (empty when the database was up to date).
    var appliedMigrations: [String] { get }
    /// What this open put right that another program had broken, in words (empty when nothing
    /// was); see `Store.repairs`. The default is empty.
    var repairs: [String] { get }
    /// Users whose emails collide by letter case, found when the store opened.
    var emailCollisions: [EmailCollision] { get }
    /// Where the store lives, fit to show to a person: a file path, or a URL without its
    /// password.
    var location: String { get }
    /// The database file, for a store kept in a local file; nil otherwise. Outputs never
    /// replace it nor its companion files.
    var path: String? { get }
    /// `location` when another program can open the store there (a file, a server); nil for
    /// a store only this process can reach (in memory).
    var shareableLocation: String? { get }

    /// See `Store.copyPages(intoNewFile:progress:)`; nil when this backend cannot copy its
    /// pages (the default: the caller then copies row by row).
    func copyPages(
        intoNewFile path: String, progress: @escaping @Sendable (CopyProgress) -> Void
    ) async throws -> CopyReport?

    /// See `Store.liveItems(matching:after:limit:)`.
    func liveItems(matching query: ItemQuery, after anchor: ItemCursor?, limit: Int) async throws -> Property<
        LiveResult<ItemWindow>
    >
    /// See `Store.liveItemSnapshots(matching:after:limit:)`. A backend without a change log
    /// may leave the default, which publishes `liveItems`' windows with no position.
    func liveItemSnapshots(matching query: ItemQuery, after anchor: ItemCursor?, limit: Int) async throws
        -> Property<LiveResult<LiveSnapshot<ItemWindow>>>
    /// See `Store.streamsChangeLog`. The default is false.
    var streamsChangeLog: Bool { get }
    /// See `Store.changeLog(after:limit:pending:)`. The default refuses (`.invalidValue`).
    func changeLog(after position: Int64, limit: Int, pending: ChangeLogPending) async throws -> ChangeLogExcerpt
    /// See `Store.changeLogStart()`. The default is the head of `changeLog`'s excerpt.
    func changeLogStart() async throws -> ChangeLogStart
    /// See `Store.watchChangeLog(_:)`. The default refuses (`.invalidValue`).
    func watchChangeLog(_ onChange: @escaping @Sendable () -> Void) async throws -> ChangeLogWatch
    /// See `Store.changeFeedSilentSince`. The default is nil (a feed that cannot lose its server).
    var changeFeedSilentSince: ContinuousClock.Instant? { get }
    /// See `Store.liveItem(id:)`.
    func liveItem(id: Item.ID) async throws -> Property<LiveResult<Item?>>
    /// See `Store.liveUsers()`.
    func liveUsers() async throws -> Property<LiveResult<[User]>>
    /// See `Store.liveUserSummaries()`.
    func liveUserSummaries() async throws -> Property<LiveResult<[UserSummary]>>
    /// See `Store.liveSavedViews()`.
    func liveSavedViews() async throws -> Property<LiveResult<[SavedView]>>

    /// Calls `body` with every user, by ID (or by name, then ID, when `orderedByName`), from
    /// one snapshot, streaming: memory stays flat. Blocks the calling thread for the whole
    /// read, so call it from a thread that may block, never from a task. Writes proceed
    /// meanwhile. Errors are `StoreError`s, or what `body` throws.
    func forEachUser(orderedByName: Bool, _ body: (ExportedUser) throws -> Void) throws

    /// Calls `body` with every item that `query`'s owner, status and text select (its order
    /// is ignored: items come by ID), from one snapshot, streaming. Blocks as `forEachUser`.
    func forEachItem(matching query: ItemQuery, _ body: (ExportedItem) throws -> Void) throws

    /// Sends every item `query` selects, in its order, to `sink` in pages of `pageSize` (the
    /// last one shorter, none empty), all from one snapshot: see `Store.itemPages`. Ends
    /// when a send throws (the consumer stopped) and when the calling task is cancelled.
    /// Blocks no thread tasks share: a blocking read runs behind `BlockingWork`.
    func readItemPages(matching query: ItemQuery, pageSize: Int, into sink: PageSink<Item>) async throws

    /// See `Store.refuseMistypedItems(_:)`. The default does nothing: for a backend whose
    /// columns hold only values of their type.
    func refuseMistypedItems(_ ids: [Item.ID]) async throws

    /// See `Store.contentVersion()`. The default is nil (no version to keep answers by).
    func contentVersion() async throws -> StoreContentVersion?

    /// Starts an import into `table`: see `ImportSession`. Blocks; call it from the thread
    /// that runs the import, never from a task.
    func makeImportSession(table: ImportTable) throws -> any ImportSession

    /// Calls `body` with every item `forEachItem(matching:_:)` gives, in the same order, its
    /// text as bytes (see `ExportedItemText`). Blocks as `forEachUser`. The default goes
    /// through `forEachItem`; a backend that can hand out its own bytes does so.
    func forEachItemText(matching query: ItemQuery, _ body: (ExportedItemText) throws -> Void) throws

    /// About how many users `forEachUser` gives, for a progress bar, when the backend can
    /// tell without reading every user; nil otherwise (the default).
    func exportUserCount() async throws -> Int?

    /// Stores `views` exactly as given (IDs, names, times, versions), in one transaction: how
    /// a backup copies saved views into a new store. Their owners must be stored already.
    /// Blocks the calling thread; never call it from a task. The default refuses
    /// (`.invalidValue`): a backend that can be a backup's destination implements it.
    func restoreSavedViews(_ views: [SavedView]) throws

    /// See `Store.backup(to:)`. `path` is the file to write (symbolic links followed); `name`
    /// is how messages name it: what the user gave, and where it leads when that is a link.
    func backup(to path: String, shownAs name: String) async throws

    // Copying (`Store.copy(to:)`, backups and restores): every method blocks the calling
    // thread (a thread of the copy's own, never a task).

    /// Calls `body` with one consistent snapshot of the whole store (every table as of one
    /// moment), while other connections and processes go on writing. The snapshot ends when
    /// `body` returns or throws.
    func withCopySnapshot<T>(_ body: (any CopySnapshot) throws -> T) throws -> T

    /// Calls `body` inside one write transaction on this store, and commits when it returns;
    /// a throw (from `body` or the commit) rolls everything back, and so does a crash or a
    /// lost connection: the store is then as it was.
    func withCopyTransaction<T>(_ body: (any CopyTransaction) throws -> T) throws -> T

    /// Another process (or session) that has this store open, described for a person
    /// ("process 123 (shelf browse)", "application shelf, PID 456 on 127.0.0.1"); nil when
    /// none is found. Connections of this store object itself do not count.
    func otherUsers() throws -> String?

    /// Runs the engine's own checks of the stored data (SQLite: `integrity_check` and the
    /// full-text indexes' checks) and throws a `StoreError` (`.corrupt`) saying what is wrong.
    func checkIntegrity() throws

    /// An identity of the database itself (a file's device and inode, a server's database),
    /// equal for two stores only when they are the same database.
    var copyIdentity: String { get }

    /// See `Store.writeLockWait`. The default is nil (a backend that cannot tell).
    var writeLockWait: String? { get }

    /// Ends the backend's connections once nothing uses them; live values stop changing.
    /// Safe to call more than once. A released backend closes itself too, but a server
    /// connection pool needs an explicit end to stop its event-loop work.
    func close() async
}

extension StoreBackend {
    package var repairs: [String] { [] }

    package func copyPages(
        intoNewFile path: String, progress: @escaping @Sendable (CopyProgress) -> Void
    ) async throws -> CopyReport? { nil }

    /// `backup(to:shownAs:)` with messages naming `path` itself.
    package func backup(to path: String) async throws {
        try await backup(to: path, shownAs: path)
    }

    /// The windows of `liveItems`, each with no position (for a backend without a change log).
    package func liveItemSnapshots(matching query: ItemQuery, after anchor: ItemCursor?, limit: Int) async throws
        -> Property<LiveResult<LiveSnapshot<ItemWindow>>>
    {
        try await liveItems(matching: query, after: anchor, limit: limit).map { result in
            result.map { LiveSnapshot(value: $0, position: nil) }
        }
    }

    package func forEachItemText(matching query: ItemQuery, _ body: (ExportedItemText) throws -> Void) throws {
        try forEachItem(matching: query) { try ExportedItemText.withText(of: $0, body) }
    }

    package func exportUserCount() async throws -> Int? { nil }

    package func contentVersion() async throws -> StoreContentVersion? { nil }

    package func refuseMistypedItems(_ ids: [Item.ID]) async throws {}

    package var streamsChangeLog: Bool { false }

    package var writeLockWait: String? { nil }

    package func changeLog(after position: Int64, limit: Int, pending: ChangeLogPending) async throws
        -> ChangeLogExcerpt
    {
        throw StoreError(.invalidValue, "\(location) does not stream its change log")
    }

    package func changeLogStart() async throws -> ChangeLogStart {
        let head = try await changeLog(after: .max, limit: 1, pending: ChangeLogPending()).head
        return ChangeLogStart(position: head, head: head)
    }

    package func watchChangeLog(_ onChange: @escaping @Sendable () -> Void) async throws -> ChangeLogWatch {
        throw StoreError(.invalidValue, "\(location) does not stream its change log")
    }

    package var changeFeedSilentSince: ContinuousClock.Instant? { nil }

    package func restoreSavedViews(_ views: [SavedView]) throws {
        throw StoreError(.invalidValue, "saved views can be restored only into a SQLite store, not \(location)")
    }
}

/// What a backend tells tests about its own work. Not part of `StoreBackend`: production
/// code never asks; `Store` keeps it only for tests (`Store.liveQueryRuns`,
/// `Store.statementCount`).
package protocol StoreTestHooks: Sendable {
    /// How many times this backend's live values have run their queries (first reads
    /// included), for tests that check a commit re-runs only the queries it concerns.
    var liveQueryRuns: Int { get }
    /// How many SQL statements this backend has run, for tests that check a path runs none
    /// (0 where the backend does not count them).
    var statementCount: Int { get }
}
