internal import CSQLite
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// One SQLite connection with its prepared-statement cache.
///
/// A `Connection` is handed out by `Database` to one closure at a time; do not keep it
/// beyond that closure. Use it only on the thread running the closure.
//
// Why unchecked Sendable is safe: a Connection is confined, not shared. `Database` owns every
// connection and lends each to exactly one closure at a time (the writer behind its lock,
// a reader checked out of the pool; the checkpointer's own connection is used only on its
// serial queue), so no two threads ever touch one concurrently.
// Moving an idle handle between threads is allowed: the system library is built with
// SQLITE_THREADSAFE=1, and handles are opened with SQLITE_OPEN_NOMUTEX (multi-thread mode),
// whose single rule is "no concurrent use of one connection".
package final class Connection: @unchecked Sendable {
    /// Bytes of a statement journal kept in memory before it goes to a temporary file: 120 KiB.
    ///
    /// A statement inside an explicit transaction that may fail halfway (any write with
    /// triggers or constraints; Shelf's writes are all in transactions) keeps the pages it
    /// changes in a statement journal. SQLite's default keeps 64 KiB in memory, and a one-row
    /// insert into `items` touches more (its indexes, the search index's segment and merge,
    /// the change log: about 17 pages, 70 KB): every such write created, wrote and unlinked a
    /// temporary file (strace). Bigger statements still spill to a file past it.
    ///
    /// Why not more: when a journal spills, SQLite writes what it held in memory to the file in
    /// one call, and its Unix layer masks every write to 0x1ffff bytes (`seekAndWriteFd`, its
    /// `nBuf &= 0x1ffff`); a 128 KiB write or more is cut short and SQLite reports
    /// SQLITE_FULL, "database or disk is full", on a disk with room. 4 MiB failed every
    /// statement whose journal grew past it (hostile round 16: bulk changes, imports, removing
    /// a user with thousands of items); `StatementJournalTests` keeps such statements working.
    /// SQLite allocates the journal's memory in one piece of this size, and 120 KiB stays below
    /// glibc's 128 KiB `mmap` threshold: 100,000 inserts in one transaction took 11.6 and 11.2 s
    /// at 128 KiB less one byte against 11.3 and 10.9 s at SQLite's default and 11.1 and 10.9 s
    /// at 120 KiB (the system's `sqlite3` through Python, beside a build).
    static let statementJournalSpill: Int32 = 120 << 10
    package let handle: OpaquePointer
    private var cache: [String: Statement] = [:]
    /// Tables the authorizer reports while a statement is being prepared.
    fileprivate var tablesBeingPrepared: Set<String>?
    /// Tables read by the statements handed out inside `recordingTablesRead`.
    private var tablesRead: Set<String>?

    /// Counts the statements this connection runs, when set.
    private let counter: StatementCounter?
    /// Its busy handler: how long it waits for another process's lock, and a way to end the
    /// wait (`ReadInterruption`).
    package let busyWait: BusyWait

    /// Opens `path` (":memory:" for a private in-memory database); a writable connection
    /// creates a missing file unless `creating` is false.
    ///
    /// Every connection waits up to `busyTimeout` (the write timeout unless said otherwise)
    /// for another process's lock, from its first statement on: a connection that failed at
    /// once while another process was opening, migrating or closing the same file failed
    /// concurrent commands ("database is locked").
    ///
    /// An `immutable` connection (read-only) reads the main file alone, taking no lock and
    /// making no `-wal` or `-shm`: for a look at a file that no process has open and whose
    /// WAL holds nothing, which must leave nothing behind (a read-only connection to a WAL
    /// database makes both files and, unable to checkpoint, leaves them when it closes).
    package init(
        path: String, readOnly: Bool = false, creating: Bool = true,
        busyTimeout: Duration = Database.defaultWriteTimeout,
        counter: StatementCounter? = nil, immutable: Bool = false
    ) throws {
        self.counter = counter
        busyWait = BusyWait(milliseconds: Int32(clamping: Database.milliseconds(busyTimeout)))
        _ = statementJournalConfigured
        var handle: OpaquePointer?
        let flags =
            (readOnly || immutable ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (creating ? SQLITE_OPEN_CREATE : 0))
            | SQLITE_OPEN_NOMUTEX | (immutable ? SQLITE_OPEN_URI : 0)
        let code = sqlite3_open_v2(immutable ? Self.immutableURI(path) : path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = DatabaseError(handle: handle, code: code, sql: nil)
            sqlite3_close_v2(handle)
            throw DatabaseError(
                extendedCode: error.extendedCode, message: "cannot open database at \(path): \(error.message)")
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        busyWait.install(on: handle)
        // The authorizer runs only while statements are prepared, never per row.
        sqlite3_set_authorizer(handle, recordRead, Unmanaged.passUnretained(self).toOpaque())
        Diagnostics.profile(handle)
    }

    /// `file:` URI of `path`, opened read-only and immutable. The path is made absolute and
    /// every byte but unreserved ones and `/` is percent-encoded, so `?`, `#` and `%` in a
    /// name stay part of it (an empty authority, `file://`, keeps a leading `//` a path).
    static func immutableURI(_ path: String) -> String {
        var absolute = path
        if !path.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            if getcwd(&buffer, buffer.count) != nil {
                let folder = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                absolute = folder + "/" + path
            }
        }
        let hex = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        for byte in absolute.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                encoded.append(byte)
            default:
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return "file://" + String(decoding: encoded, as: UTF8.self) + "?mode=ro&immutable=1"
    }

    /// Sets how long this connection waits for another process's lock (0: not at all).
    package func setBusyTimeout(milliseconds: Int32) {
        busyWait.setTimeout(milliseconds: milliseconds)
    }

    /// Set once `close()` has run; the handle is then invalid.
    private var isClosed = false

    deinit {
        close()
    }

    /// Finalizes the cached statements and closes the handle; later calls do nothing.
    /// When this is the last connection to the file, SQLite checkpoints the WAL into the
    /// database and deletes it (a writable connection only). The connection must not be
    /// used afterwards.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        sqlite3_set_authorizer(handle, nil, nil)
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements separated by semicolons, with no parameters.
    package func execute(_ sql: String) throws {
        counter?.increment()
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw DatabaseError(extendedCode: sqlite3_extended_errcode(handle), message: text, sql: sql)
        }
    }

    /// A prepared statement for `sql` from this connection's cache, reset and ready to bind.
    /// When the cached statement is in use (a nested query with the same SQL), a fresh one
    /// is prepared instead, so re-entrant use is safe.
    package func cachedStatement(_ sql: String) throws -> Statement {
        counter?.increment()
        if let statement = cache[sql] {
            if !statement.isBusy {
                statement.reset()
                tablesRead?.formUnion(statement.readTables)
                return statement
            }
            return try makeStatement(sql)
        }
        let statement = try makeStatement(sql)
        cache[sql] = statement
        return statement
    }

    /// A statement that is not cached: for SQL that runs once.
    package func makeStatement(_ sql: String) throws -> Statement {
        counter?.increment()
        tablesBeingPrepared = []
        defer { tablesBeingPrepared = nil }
        let statement = try Statement(connection: handle, sql: sql)
        statement.readTables = tablesBeingPrepared ?? []
        tablesRead?.formUnion(statement.readTables)
        return statement
    }

    /// Runs `body` and returns, with its result, the tables read by the statements it ran,
    /// as SQLite reported them while preparing each statement.
    package func recordingTablesRead<T>(_ body: () throws -> T) throws -> (T, Set<String>) {
        let outer = tablesRead
        tablesRead = []
        defer { tablesRead = outer.map { $0.union(tablesRead ?? []) } }
        let result = try body()
        return (result, tablesRead ?? [])
    }

    /// Total rows changed on this connection since it opened (triggers included).
    package var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// Runs `sql` with `values` bound to its parameters, to completion.
    package func run<each Value: SQLBindable>(_ sql: String, _ values: repeat each Value) throws {
        let statement = try cachedStatement(sql)
        try statement.bind(repeat each values)
        try statement.run()
    }

    /// The rows of `sql`, each turned into a value by `transform`.
    package func fetch<T, each Value: SQLBindable>(
        _ sql: String, _ values: repeat each Value, row transform: (Row) throws -> T
    ) throws -> [T] {
        let statement = try cachedStatement(sql)
        try statement.bind(repeat each values)
        var result: [T] = []
        try statement.forEachRow { result.append(try transform($0)) }
        return result
    }

    /// The rows of `sql`, each turned into a value by `transform`.
    package func fetch<T>(_ sql: String, arguments: [any SQLBindable], row transform: (Row) throws -> T) throws -> [T] {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments: arguments)
        var result: [T] = []
        try statement.forEachRow { result.append(try transform($0)) }
        return result
    }

    /// The first row of `sql` turned into a value, or nil when there is none.
    package func fetchOne<T, each Value: SQLBindable>(
        _ sql: String, _ values: repeat each Value, row transform: (Row) throws -> T
    ) throws -> T? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(repeat each values)
        guard try statement.step() else { return nil }
        return try transform(Row(statement: statement.handle, owner: statement))
    }

    /// The first row of `sql` turned into a value, or nil when there is none.
    package func fetchOne<T>(_ sql: String, arguments: [any SQLBindable], row transform: (Row) throws -> T) throws -> T?
    {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments: arguments)
        guard try statement.step() else { return nil }
        return try transform(Row(statement: statement.handle, owner: statement))
    }

    /// The rowid of the last inserted row on this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes64(handle)) }

    /// True while a transaction is open.
    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE … COMMIT`), or in a savepoint when
    /// a transaction is already open. Throwing from `body` rolls back everything it did.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction { return try savepoint(body) }
        try beginImmediate()
        return try commit(body)
    }

    /// `BEGIN IMMEDIATE`, then one read of the schema table, so that a schema another
    /// connection changed since this one last read it (an index or trigger made again by a
    /// bulk import or bulk change) is read again before the transaction's first statement.
    /// Without it, SQLite 3.40 failed to prepare a DELETE on a table with foreign keys, with
    /// SQLITE_SCHEMA "no such table: users", once the connection had waited for the lock of a
    /// transaction that changed the schema (reproduced with the sqlite3 shell too: `PRAGMA
    /// foreign_keys=ON`, a read, `BEGIN IMMEDIATE` waiting on another connection's `CREATE INDEX`,
    /// then `DELETE FROM users`; a statement reading the schema first makes it work).
    package func beginImmediate() throws {
        try cachedStatement("BEGIN IMMEDIATE").run()
        do {
            try cachedStatement("SELECT 1 FROM main.sqlite_schema LIMIT 1").run()
        } catch {
            rollbackIfNeeded()
            throw error
        }
    }

    /// Runs `body` in the transaction just begun, then commits; throwing from `body` (or a
    /// failed COMMIT) rolls everything back.
    func commit<T>(_ body: () throws -> T) throws -> T {
        do {
            let result = try body()
            try cachedStatement("COMMIT").run()
            return result
        } catch {
            rollbackIfNeeded()
            throw error
        }
    }

    /// Runs `body` in a read transaction so every statement sees one snapshot (WAL).
    package func readTransaction<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction { return try body() }
        try cachedStatement("BEGIN DEFERRED").run()
        defer { rollbackIfNeeded() }
        return try body()
    }

    /// Runs `body` in a savepoint: throwing rolls back to where it started, and leaves the
    /// enclosing transaction (if any) open.
    package func savepoint<T>(_ body: () throws -> T) throws -> T {
        try cachedStatement("SAVEPOINT shelf").run()
        do {
            let result = try body()
            try cachedStatement("RELEASE shelf").run()
            return result
        } catch {
            // ROLLBACK TO keeps the savepoint open; RELEASE ends it. Either may fail if
            // SQLite already rolled the whole transaction back (e.g. SQLITE_FULL).
            if isInTransaction {
                try? cachedStatement("ROLLBACK TO shelf").run()
                try? cachedStatement("RELEASE shelf").run()
            }
            throw error
        }
    }

    /// Leaves the `-wal` file in place when this connection, the last of its store, closes
    /// (SQLite's `SQLITE_FCNTL_PERSIST_WAL`): SQLite would otherwise delete it *by name*,
    /// which, once another file has been renamed into this store's place (a restore), is the
    /// new store's WAL.
    package func keepWALOnClose() {
        var persist: Int32 = 1
        _ = sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
    }

    package func rollbackIfNeeded() {
        if isInTransaction { try? cachedStatement("ROLLBACK").run() }
    }
}

/// The authorizer: records the tables a statement reads while it is prepared. Always allows.
private func recordRead(
    context: UnsafeMutableRawPointer?, action: Int32, table: UnsafePointer<CChar>?, column: UnsafePointer<CChar>?,
    database: UnsafePointer<CChar>?, trigger: UnsafePointer<CChar>?
) -> Int32 {
    guard action == SQLITE_READ, let context, let table else { return SQLITE_OK }
    let connection = Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue()
    // sqlite_schema reads come from SQLite loading the schema, not from the query.
    if connection.tablesBeingPrepared != nil, strncmp(table, "sqlite_", 7) != 0 {
        connection.tablesBeingPrepared?.insert(String(cString: table))
    }
    return SQLITE_OK
}

/// Counts the SQL statements run through a database's connections (each statement handed
/// out to run counts once). Thread-safe; costs one relaxed atomic add per statement.
package final class StatementCounter: Sendable {
    private let count = Atomic<Int>(0)

    package init() {}

    /// Statements run so far.
    package var value: Int { count.load(ordering: .relaxed) }

    func increment() {
        count.add(1, ordering: .relaxed)
    }
}

/// Set once, before this process's first connection opens: SQLite takes it only before it
/// initializes. A process that opened SQLite elsewhere first keeps SQLite's default (the call
/// then returns SQLITE_MISUSE and changes nothing); Shelf works the same, only slower.
package let statementJournalConfigured: Bool =
    shelf_sqlite3_config_statement_journal_spill(Connection.statementJournalSpill) == SQLITE_OK
