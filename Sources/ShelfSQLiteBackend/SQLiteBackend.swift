internal import Foundation
internal import ShelfReactive
internal import ShelfSQLite
internal import ShelfStore

/// The embedded backend: one SQLite file (or a temporary one), one writer connection and a
/// pool of readers, change tracking by per-table counters and inotify (see
/// docs/ARCHITECTURE.md).
final class SQLiteBackend: StoreBackend, StoreTestHooks {
    let database: Database
    let sqliteUsers: SQLiteUserRepository
    let sqliteItems: SQLiteItemRepository
    let sqliteViews: SQLiteSavedViewRepository
    let appliedMigrations: [String]
    /// The settings the store was opened with.
    let configuration: Store.Configuration
    let emailCollisions: [EmailCollision]
    private let runs = RunCounter()
    /// The shared live item windows (`liveItems`), kept from the change log.
    let liveWindows: SQLiteLiveWindows
    var liveQueryRuns: Int { runs.value }
    var statementCount: Int { database.statementCounter.value }

    var users: any UserRepository { sqliteUsers }
    var items: any ItemRepository { sqliteItems }
    var views: any SavedViewRepository { sqliteViews }
    var path: String? { database.path }
    var writeLockWait: String? { database.writeLockWait }
    var location: String { database.path ?? "a private in-memory database" }
    var shareableLocation: String? { database.path }

    static let migrator = SQLiteMigrator.embedded

    /// Opens `database`'s shelf, applying pending migrations.
    init(database: Database, configuration: Store.Configuration = .default) throws {
        self.database = database
        self.configuration = configuration
        appliedMigrations = try Self.migrator.migrate(database)
        emailCollisions = try SQLiteUserRepository.fillEmailKeys(database)
        sqliteUsers = SQLiteUserRepository(database: database)
        sqliteItems = SQLiteItemRepository(
            database: database, bulkMinimumRows: configuration.bulkActionMinimumRows)
        sqliteViews = SQLiteSavedViewRepository(database: database)
        liveWindows = SQLiteLiveWindows(database: database, runs: runs)
    }

    /// Opens the shelf at `path`, creating the file and its folder when missing, and applies
    /// pending migrations (see `Store.init(path:)`).
    static func open(path: String, configuration: Store.Configuration = .default) throws -> SQLiteBackend {
        let slow = configuration.slowQueryThreshold.components
        Diagnostics.setSlowStatementThreshold(
            nanoseconds: slow.seconds * 1_000_000_000 + slow.attoseconds / 1_000_000_000)
        SlowCallThreshold.set(configuration.slowQueryThreshold)
        Diagnostics.setLogLevel(configuration.logLevel)
        // A device, folder or FIFO is no database: SQLite would make `/dev/null-journal` beside
        // it and fail with "disk I/O error … is the disk full?" (hostile tester).
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            let kind =
                switch status.st_mode & S_IFMT {
                case S_IFDIR: "a folder"
                case S_IFIFO: "a pipe (FIFO)"
                case S_IFCHR, S_IFBLK: "a device"
                default: "not a regular file"
                }
            throw StoreError(
                .invalidValue,
                "\(path) is \(kind), not a shelf database; give the path of a database file (a new one is made there)",
                hint: .chooseAnotherDatabase)
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError(
                .database,
                "cannot create the folder \(folder.path) for the database (\(error.localizedDescription)); "
                    + "create it, fix its permissions, or choose another file", hint: .chooseAnotherDatabase)
        }
        do {
            try Store.refuseForeignDatabase(at: path, timeout: configuration.writeTimeout)
            return try SQLiteBackend(
                database: StoreError.translating {
                    try Database(
                        path: path, busyTimeout: configuration.readTimeout, writeTimeout: configuration.writeTimeout,
                        changeCounters: Store.changeCounterTable, cacheKiB: configuration.writerCacheKiB,
                        readerCacheKiB: configuration.readerCacheKiB)
                }, configuration: configuration)
        } catch let error as StoreError {
            // Say which file: the same message is no help when two settings name different files.
            var named = StoreError(error.code, "\(path): \(error.message)", hint: error.hint)
            // A full disk stays one, for the caller that knows what the file is for to say so.
            if error.isDiskFull { named.markDiskFull() }
            throw named
        }
    }

    /// A shelf in a fresh temporary file, deleted when the backend is released.
    static func temporary() throws -> SQLiteBackend {
        try SQLiteBackend(
            database: StoreError.translating { try Database.temporary(changeCounters: Store.changeCounterTable) })
    }

    /// Closes the database once the reads and writes in progress end (on a thread of its own:
    /// that wait blocks). When this returns, the connections are closed and, when this was the
    /// last connection of any process to the file, the WAL is checkpointed into it and
    /// removed. Later calls throw `StoreError` with code `.closed`.
    func close() async {
        let database = self.database
        await BlockingWork.runToEnd { database.close() }
    }

    func refuseMistypedItems(_ ids: [Item.ID]) async throws {
        let location = self.location
        try await database.storeRead(transaction: false) { connection in
            try StoredValueCheck.refuseMistypedItems(
                ids.map(\.rawValue), on: connection, location: location, action: "try")
        }
    }

    // MARK: Live values

    func liveItems(matching query: ItemQuery, after anchor: ItemCursor?, limit: Int) async throws -> Property<
        LiveResult<ItemWindow>
    > {
        try await liveWindow(matching: query, after: anchor, limit: limit).windowProperty
    }

    func liveItemSnapshots(matching query: ItemQuery, after anchor: ItemCursor?, limit: Int) async throws
        -> Property<LiveResult<LiveSnapshot<ItemWindow>>>
    {
        try await liveWindow(matching: query, after: anchor, limit: limit).snapshotProperty
    }

    /// The shared live window of the key (see `SQLiteLiveWindows`); its first read, when it
    /// has none yet, runs on this task (cancelling the task interrupts it).
    private func liveWindow(matching query: ItemQuery, after anchor: ItemCursor?, limit: Int) async throws
        -> LiveWindowEntry
    {
        // SQLite reads a negative LIMIT as "no limit": refuse it rather than share it.
        if limit < 0 { throw StoreError(.invalidValue, "a page limit must be 0 or more, not \(limit)") }
        return try await liveWindows.entry(for: LiveWindowKey(query: query, anchor: anchor, limit: limit))
    }

    func liveItem(id: Item.ID) async throws -> Property<LiveResult<Item?>> {
        let location = self.location
        return try await openLive { try SQLiteItemRepository.checkedItem(id: id, $0, location: location) }.property
    }

    func liveUsers() async throws -> Property<LiveResult<[User]>> {
        try await openLive { try SQLiteUserRepository.users($0) }.property
    }

    func liveUserSummaries() async throws -> Property<LiveResult<[UserSummary]>> {
        try await openLive { try SQLiteUserRepository.summaries($0) }.property
    }

    func liveSavedViews() async throws -> Property<LiveResult<[SavedView]>> {
        try await openLive { try SQLiteSavedViewRepository.views($0) }.property
    }

    /// The shared live window of the key, read now on the calling thread when new (for tests
    /// and code that needs the value at once).
    func makeLiveItems(matching query: ItemQuery, after anchor: ItemCursor?, limit: Int) throws -> LiveWindowEntry {
        try liveWindows.entryNow(for: LiveWindowKey(query: query, anchor: anchor, limit: limit))
    }

    /// `makeLive` on a thread of its own (`BlockingWork`): its first read may wait for a
    /// reader (a semaphore), which must not block a cooperative thread. Cancelling the calling
    /// task interrupts that first read (it throws `CancellationError`); later reads of the
    /// live value are the change tracker's and are not tied to this task.
    func openLive<Value: Equatable & Sendable>(
        _ fetch: @escaping @Sendable (Connection) throws -> Value
    ) async throws -> LiveValue<Value> {
        let interruption = ReadInterruption()
        let interrupt: @Sendable () -> Void = { interruption.cancel() }
        return try await BlockingWork.run(onCancel: interrupt) { _ in
            try ReadInterruption.$current.withValue(interruption) { try self.makeLive(fetch) }
        }
    }

    func makeLive<Value: Equatable & Sendable>(
        _ fetch: @escaping @Sendable (Connection) throws -> Value
    ) throws -> LiveValue<Value> {
        let query = try StoreError.translating {
            try LiveQuery(database: database) { [runs] connection in
                runs.increment()
                return try fetch(connection)
            }
        }
        return LiveValue(query: query)
    }

    // MARK: Imports

    func makeImportSession(table: ImportTable) throws -> any ImportSession {
        try StoreError.translating { try database.checkOpen() }
        return try ImportStaging(
            database: database, table: table, bulkMinimumRows: configuration.bulkImportMinimumRows)
    }
}
