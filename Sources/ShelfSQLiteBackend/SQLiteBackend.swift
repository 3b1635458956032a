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
    var liveQueryRuns: Int { runs.value }
    var statementCount: Int { database.statementCounter.value }

    var users: any UserRepository { sqliteUsers }
    var items: any ItemRepository { sqliteItems }
    var views: any SavedViewRepository { sqliteViews }
    var path: String? { database.path }
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
        sqliteItems = SQLiteItemRepository(database: database)
        sqliteViews = SQLiteSavedViewRepository(database: database)
    }

    /// Opens the shelf at `path`, creating the file and its folder when missing, and applies
    /// pending migrations (see `Store.init(path:)`).
    static func open(path: String, configuration: Store.Configuration = .default) throws -> SQLiteBackend {
        let slow = configuration.slowQueryThreshold.components
        Diagnostics.setSlowStatementThreshold(
            nanoseconds: slow.seconds * 1_000_000_000 + slow.attoseconds / 1_000_000_000)
        SlowCallThreshold.set(configuration.slowQueryThreshold)
        Diagnostics.setLogLevel(configuration.logLevel)
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
            throw StoreError(error.code, "\(path): \(error.message)", hint: error.hint)
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

    // MARK: Live values

    func liveItems(matching query: ItemQuery, after anchor: ItemCursor?, limit: Int) async throws -> Property<
        LiveResult<ItemWindow>
    > {
        // The first run reads now, on this task: cancelling the task interrupts it.
        try await database.interruptibly { try makeLiveItems(matching: query, after: anchor, limit: limit) }.property
    }

    func liveItem(id: Item.ID) async throws -> Property<LiveResult<Item?>> {
        try makeLive { try SQLiteItemRepository.item(id: id, $0) }.property
    }

    func liveUsers() async throws -> Property<LiveResult<[User]>> {
        try makeLive { try SQLiteUserRepository.users($0) }.property
    }

    func liveUserSummaries() async throws -> Property<LiveResult<[UserSummary]>> {
        try makeLive { try SQLiteUserRepository.summaries($0) }.property
    }

    func liveSavedViews() async throws -> Property<LiveResult<[SavedView]>> {
        try makeLive { try SQLiteSavedViewRepository.views($0) }.property
    }

    func makeLiveItems(matching query: ItemQuery, after anchor: ItemCursor?, limit: Int) throws -> LiveValue<ItemWindow>
    {
        try makeLive { connection in
            ItemWindow(
                items: try SQLiteItemRepository.page(query, cursor: anchor, backward: false, limit: limit, connection),
                totalCount: try SQLiteItemRepository.count(query, connection))
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
