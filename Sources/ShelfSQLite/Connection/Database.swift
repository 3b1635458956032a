internal import CSQLite
internal import Dispatch
internal import Foundation
internal import Logging
internal import ShelfReactive
internal import Synchronization

/// A SQLite database: one serialized writer connection and a pool of reader connections.
///
/// - The file is in WAL mode with `synchronous=NORMAL`, `foreign_keys=ON` and a busy timeout,
///   so readers see the last committed snapshot while a write is in progress.
/// - `write` runs its closure in `BEGIN IMMEDIATE … COMMIT` on the single writer, one
///   closure at a time; a throw rolls back. Do not call `write` from inside `write` (it
///   would wait for itself): use `Connection.savepoint` for nesting.
/// - `read` runs its closure on one of the readers inside a read transaction: every
///   statement in it sees the same snapshot. Up to `readerCount` reads run at once; more wait.
///
/// `Database` is thread-safe. The connections it lends are valid only inside the closure.
package final class Database: Sendable {
    /// The file path, or nil for an in-memory database.
    package let path: String?
    let writer: Connection
    let writerLock = NSLock()
    let readers: ReaderPool?
    private let writeQueue = DispatchQueue(label: "shelf.database.writer")
    let removesFileOnDeinit: Bool
    /// Set by `close()`: every later call throws `DatabaseError.closed`.
    let closedFlag = Atomic<Bool>(false)
    /// Tells live queries which tables each commit changed.
    package let changeTracker: ChangeTracker
    /// Counts the statements run by this database's connections (not its checkpointer's).
    package let statementCounter = StatementCounter()
    let checkpointer: Checkpointer?
    /// How long a write waits for another process's lock.
    private let writeTimeout: Duration
    /// `writeTimeout` as SQLite's busy timeout.
    private let writerTimeoutMilliseconds: Int32

    /// Opens (creating when missing) the database file at `path`.
    ///
    /// - Parameters:
    ///   - readerCount: reader connections; reads beyond that many at once wait.
    ///   - busyTimeout: how long a connection waits for another process's lock before
    ///     failing with `DatabaseError.busy`.
    /// - Throws: `DatabaseError` when the file cannot be opened or is not a database.
    ///   - writeTimeout: how long a write waits for another process's write lock (an import
    ///     applying its rows, say) before failing; longer than `busyTimeout`, since a write
    ///     that fails loses the user's work while a read can simply be retried.
    ///   - watchesFiles: learn of other processes' commits from file events (as well as from
    ///     the periodic `data_version` check); tests turn it off.
    ///   - changeCounters: the table of per-table change counters (columns `table_name` and
    ///     `counter`, kept by the schema's triggers) that tells live queries which tables a
    ///     commit changed; nil, or a table that does not exist, makes every commit concern
    ///     every live query.
    package convenience init(
        path: String, readerCount: Int = 4, busyTimeout: Duration = .seconds(5),
        writeTimeout: Duration = Database.defaultWriteTimeout, watchesFiles: Bool = true,
        changeCounters: String? = nil, cacheKiB: Int = -Database.cacheSize,
        readerCacheKiB: Int = -Database.readerCacheSize
    ) throws {
        try self.init(
            path: path, readerCount: readerCount, busyTimeout: busyTimeout, writeTimeout: writeTimeout,
            watchesFiles: watchesFiles, changeCounters: changeCounters, removesFileOnDeinit: false,
            cacheKiB: cacheKiB, readerCacheKiB: readerCacheKiB)
    }

    /// How long Shelf's writes wait for another process's write lock.
    package static let defaultWriteTimeout: Duration = .seconds(60)

    private init(
        path: String?, readerCount: Int, busyTimeout: Duration, writeTimeout: Duration = defaultWriteTimeout,
        watchesFiles: Bool = true, changeCounters: String? = nil, removesFileOnDeinit: Bool,
        cacheKiB: Int = -Database.cacheSize, readerCacheKiB: Int = -Database.readerCacheSize
    ) throws {
        precondition(readerCount >= 1, "a database needs at least one reader")
        self.path = path
        self.removesFileOnDeinit = removesFileOnDeinit
        self.writeTimeout = writeTimeout
        writerTimeoutMilliseconds = Int32(clamping: Self.milliseconds(writeTimeout))
        changeTracker = ChangeTracker(path: path, changeCounters: changeCounters, watchesFiles: watchesFiles)
        // The file's identity before any connection opens it: a file swapped in while they
        // open (a restore) then differs from it, and every write is refused as "replaced"
        // instead of some connections working on the old file and some on the new one.
        let identity = path.flatMap(FileIdentity.init(path:))
        let milliseconds = Self.milliseconds(busyTimeout)
        writer = try Connection(path: path ?? ":memory:", counter: statementCounter)
        writer.setBusyTimeout(milliseconds: Int32(clamping: Self.milliseconds(writeTimeout)))
        if let path {
            // journal_mode returns a row; a database that cannot switch (e.g. on a
            // filesystem without shared memory) says so here rather than later.
            let mode = try Self.switchToWAL(writer, timeout: writeTimeout)
            guard mode?.lowercased() == "wal" else {
                throw DatabaseError(
                    extendedCode: SQLITE_ERROR,
                    message: "cannot switch \(path) to WAL mode (it reports '\(mode ?? "nothing")')")
            }
        }
        try writer.execute(
            """
            PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=\(-abs(cacheKiB));
            PRAGMA journal_size_limit=\(Checkpointer.journalSizeLimit);
            """)
        if let path {
            readers = try ReaderPool(
                path: path, count: readerCount, busyTimeout: Int32(clamping: milliseconds), counter: statementCounter,
                cacheKiB: readerCacheKiB)
            let checkpointer = Checkpointer(path: path, writerTimeout: Int32(clamping: Self.milliseconds(writeTimeout)))
            checkpointer.install(on: writer)
            self.checkpointer = checkpointer
        } else {
            readers = nil
            checkpointer = nil
        }
        changeTracker.attach(to: self, identity: identity)
        Diagnostics.logger.debug(
            "opened \(path ?? "a private in-memory database") in WAL mode with \(path == nil ? 0 : readerCount) readers"
        )
    }

    /// Switches `connection` to WAL and returns the mode it reports. Two connections opening a
    /// new file at once can each hold a read lock while wanting the write lock the switch
    /// needs; SQLite then answers BUSY at once, without waiting, to break the deadlock. So the
    /// switch is retried (once another opener has switched, there is nothing left to do) until
    /// `timeout`.
    private static func switchToWAL(_ connection: Connection, timeout: Duration) throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                return try connection.fetchOne("PRAGMA journal_mode=WAL") { try $0.get(0, as: String.self) }
            } catch let error as DatabaseError where error.code == DatabaseError.busy && ContinuousClock.now < deadline
            {
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    deinit {
        if !closedFlag.load(ordering: .acquiring) { closeConnections() }
        guard removesFileOnDeinit, let path else { return }
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }

    /// A new database in a fresh temporary folder, removed when the `Database` is released.
    /// It behaves exactly like a file database (WAL, readers in parallel with the writer).
    /// Page cache per connection, as `PRAGMA cache_size` (negative: KiB). 32 MiB keeps the
    /// indexes of a few hundred thousand items hot during bulk writes; it is a ceiling,
    /// allocated only as pages are read.
    package static let cacheSize = -32768
    /// Each reader's page cache (KiB, negative as SQLite wants): smaller than the writer's,
    /// since four readers share the operating system's file cache and a process's memory
    /// should stay flat whatever the table's size.
    package static let readerCacheSize = -8192

    package static func temporary(readerCount: Int = 4, changeCounters: String? = nil) throws -> Database {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("shelf-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try Database(
            path: folder.appendingPathComponent("db.sqlite").path, readerCount: readerCount,
            busyTimeout: .seconds(5), changeCounters: changeCounters, removesFileOnDeinit: true)
    }

    /// A private in-memory database. It has a single connection: reads wait for writes.
    package static func inMemory(changeCounters: String? = nil) throws -> Database {
        try Database(
            path: nil, readerCount: 1, busyTimeout: .seconds(5), changeCounters: changeCounters,
            removesFileOnDeinit: false)
    }

    /// Waits until a background WAL checkpoint in progress, if any, is done.
    package func waitForBackgroundCheckpoint() {
        checkpointer?.waitUntilIdle()
    }

    /// How many restarting checkpoints the writer has tried (a WAL past the hard limit) and how
    /// many finished, for tests; 0 for an in-memory database.
    package var restartingCheckpoints: (tried: Int, finished: Int) { checkpointer?.restartAttempts ?? (0, 0) }

    // MARK: Writing

    /// Runs `body` in a write transaction on the writer connection and commits.
    /// Blocks while another write runs. Throwing from `body` rolls the transaction back.
    ///
    /// After a commit that changed rows, the `changeTracker` learns which tables changed
    /// (from counters read inside the transaction) and live queries over them re-run.
    ///
    /// With an `interruption`, its `cancel()` ends the write whenever it comes: while it waits
    /// for another process's lock, or while a statement runs. The transaction rolls back and
    /// this throws `CancellationError`.
    ///
    /// `checkpointsInBackground` is for a write of most of a big table: its commit returns
    /// without copying the WAL back into the database file, even past
    /// `Checkpointer.hardLimitPages`; a passive checkpoint on the checkpointer's queue does it
    /// after (see `Checkpointer.deferTruncate(_:)`).
    package func write<T>(
        interruption: ReadInterruption? = nil, checkpointsInBackground: Bool = false,
        _ body: (Connection) throws -> T
    ) throws -> T {
        // A file deleted or replaced under the process: a write would land in a ghost (and
        // in a WAL that a process opening the new file would read).
        if let failure = changeTracker.fileFailure() { throw failure }
        let commit = try explainingBusy {
            try withWriter { connection in
                changeTracker.willWrite()
                defer { changeTracker.didEndWrite() }
                let walCommits = checkpointer?.walCommits
                if checkpointsInBackground { checkpointer?.deferTruncate(true) }
                defer { if checkpointsInBackground { checkpointer?.deferTruncate(false) } }
                let commit =
                    if let interruption {
                        try interruption.run(on: connection) { try $0.transaction { try runTracked(body) } }
                    } else {
                        try connection.transaction { try runTracked(body) }
                    }
                return confirmed(commit, walCommitsBefore: walCommits)
            }
        }
        return try finishChecked(commit)
    }

    /// `finish`, then the file's identity once more: a file moved or replaced while the
    /// transaction ran (a long one: a copy into the store) took the commit with it, and the
    /// caller must not report it saved at the path.
    private func finishChecked<T>(_ commit: Commit<T>) throws -> T {
        let value = finish(commit)
        if let failure = changeTracker.fileFailure() { throw failure }
        return value
    }

    /// What a committed write hands back: its result, and the counters to pass on.
    private struct Commit<T> {
        var result: T
        /// Whether the change tracker must hear of the commit.
        var tracked: Bool
        var counters: [String: Int64]?
        /// The WAL index's change counter as this commit left it, once `confirmed` has seen
        /// that the commit wrote to the WAL (which moves the counter by exactly one); nil
        /// when unknown.
        var walChange: UInt32?
    }

    /// `commit` with its `walChange` kept only if the writer's WAL hook ran since
    /// `walCommitsBefore` (read under the writer's lock before the transaction): then the
    /// transaction committed and wrote frames. A transaction that wrote nothing, or a
    /// savepoint inside an open transaction, leaves the counter where it was, and a commit by
    /// another process could take the value it predicted.
    private func confirmed<T>(_ commit: Commit<T>, walCommitsBefore: Int?) -> Commit<T> {
        var commit = commit
        if walCommitsBefore == nil || checkpointer?.walCommits == walCommitsBefore { commit.walChange = nil }
        return commit
    }

    /// Runs `body` on the writer inside its write transaction (the caller holds the writer's
    /// lock), then reads the change counters in the same transaction.
    private func runTracked<T>(_ body: (Connection) throws -> T) throws -> Commit<T> {
        // Checked again with the write lock held: a process that swaps the file (a restore
        // holds the old store's write lock until the new file is in place) may have done so
        // while this write waited for the lock, and a commit now would land in the old file,
        // lost to everyone who opens the path.
        if let failure = changeTracker.fileFailure() { throw failure }
        let result = try body(writer)
        // Read the counters only when live queries exist: the tracker takes its
        // baseline when the first one registers. A write that changed no row may
        // still have changed the schema (which the counters include).
        guard changeTracker.isWatching else { return Commit(result: result, tracked: false) }
        // The WAL index's change counter, read while this transaction holds the write lock (no
        // other commit can move it): this commit, if it writes, moves it by one.
        return Commit(
            result: result, tracked: true, counters: try changeTracker.counters(on: writer),
            walChange: changeTracker.walChangeCounter().map { $0 &+ 1 })
    }

    /// Tells the change tracker about a commit (outside the writer's lock) and returns its
    /// result. The tracker's pass runs on its queue, never here.
    private func finish<T>(_ commit: Commit<T>) -> T {
        if commit.tracked {
            changeTracker.didCommit(counters: commit.counters, walChange: commit.walChange)
        }
        return commit.result
    }

    /// Runs `body` as `write(_:)` does, but only if it can start at once: this process's writer
    /// is free and no other process holds the write lock. Returns nil, having done nothing,
    /// otherwise. Once the lock is taken nothing in a write waits for another process (WAL
    /// writers never wait for readers; the rare restarting checkpoint waits at most
    /// `Checkpointer.truncateWait`).
    private func writeWithoutWaiting<T>(_ body: (Connection) throws -> T) throws -> Commit<T>? {
        guard writerLock.try() else { return nil }
        defer { writerLock.unlock() }
        try checkOpen()
        // A transaction left open on the writer (by `withWriter`) is joined through a savepoint
        // by `write`: leave that to it.
        guard !writer.isInTransaction else { return nil }
        if let failure = changeTracker.fileFailure() { throw failure }
        changeTracker.willWrite()
        defer { changeTracker.didEndWrite() }
        writer.setBusyTimeout(milliseconds: 0)
        let began: Bool
        do {
            try writer.beginImmediate()
            began = true
        } catch let error as DatabaseError where error.code == DatabaseError.busy {
            began = false
        } catch {
            writer.setBusyTimeout(milliseconds: writerTimeoutMilliseconds)
            throw error
        }
        writer.setBusyTimeout(milliseconds: writerTimeoutMilliseconds)
        guard began else { return nil }
        let walCommits = checkpointer?.walCommits
        return confirmed(try writer.commit { try runTracked(body) }, walCommitsBefore: walCommits)
    }

    /// After the file was deleted or replaced: writes every WAL frame into the old file (the
    /// one this process has open) and truncates the WAL at the path to zero bytes, so that no
    /// process opening the new file reads this file's frames as its own.
    func emptyWALAfterMove() {
        _ = try? withWriter { writer in
            sqlite3_wal_checkpoint_v2(writer.handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        }
    }

    /// What the writer waits for now, when it waits for another process's write lock:
    /// "process 812 (shelf browse …)", or "another process" when none can be named; nil when it
    /// does not wait. Safe from any thread, without the writer; it reads the `-shm` file's lock
    /// and `/proc`, so call it off the threads tasks share.
    package var writeLockWait: String? {
        guard writer.busyWait.isWaiting else { return nil }
        return path.flatMap { LockHolder.writeLockHolder(databasePath: $0)?.description } ?? "another process"
    }

    /// Runs `body`; a busy failure gains which process holds the write lock and what to do.
    private func explainingBusy<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.code == DatabaseError.busy {
            guard let path else { throw error }
            let holder = LockHolder.writeLockHolder(databasePath: path)
            throw DatabaseError(
                extendedCode: error.extendedCode,
                message: "\(error.message): \(holder.map { "\($0) holds" } ?? "another process held") the write lock "
                    + "of \(path) for longer than \(writeTimeout); wait for it to "
                    + "finish, or stop it\(holder.map { " (kill \($0.pid))" } ?? ""), then retry",
                sql: error.sql)
        }
    }

    /// Runs `body` with the writer connection outside any transaction: for statements that
    /// cannot run in one (`VACUUM`, some `PRAGMA`s) or that manage their own.
    package func withWriter<T>(_ body: (Connection) throws -> T) throws -> T {
        writerLock.lock()
        defer { writerLock.unlock() }
        try checkOpen()
        return try body(writer)
    }

    /// Like `write(_:)`, without blocking the calling task on a lock. When the writer is free
    /// and no other process holds the write lock, the transaction runs right away on the
    /// calling task (no thread hop: a short write is CPU work over the page cache, like a
    /// read); otherwise it runs on a dedicated thread, since it may wait up to the write
    /// timeout for another process's lock.
    ///
    /// Live queries learn of the commit after this returns (on the change tracker's queue):
    /// the write never waits for them.
    package func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        if let commit = try explainingBusy({ try writeWithoutWaiting(body) }) { return try finishChecked(commit) }
        return try await withCheckedThrowingContinuation { continuation in
            writeQueue.async {
                continuation.resume(with: Result { try self.write(body) })
            }
        }
    }

    // MARK: Reading

    /// How many reads can run at once (the reader connections; 1 for an in-memory database,
    /// whose reads use the writer).
    package var readerCount: Int { readers?.count ?? 1 }

    /// Runs `body` on a reader in a read transaction: one consistent snapshot of the last
    /// commit, taken while writes proceed. Blocks while all readers are busy.
    ///
    /// While a `ReadInterruption` is bound (`interruptibly(_:)`, the async `read(_:)`), its
    /// `cancel()` interrupts the read, which then throws `CancellationError`.
    ///
    /// `transaction: false` runs `body` without the explicit read transaction: for a body whose
    /// answer comes from ONE statement (which reads one snapshot on its own), it saves the
    /// BEGIN and ROLLBACK. Statements `body` runs before it then see their own snapshots.
    package func read<T>(transaction: Bool = true, _ body: (Connection) throws -> T) throws -> T {
        if let failure = changeTracker.terminalFailure { throw failure }
        let interruption = ReadInterruption.current
        func run(_ connection: Connection) throws -> T {
            guard let interruption else {
                return try transaction ? connection.readTransaction { try body(connection) } : body(connection)
            }
            return try interruption.run(on: connection) { connection in
                try transaction ? connection.readTransaction { try body(connection) } : body(connection)
            }
        }
        guard let readers else { return try withWriter { try run($0) } }
        let connection = try readers.checkOut(database: path)
        defer { readers.checkIn(connection) }
        return try run(connection)
    }

    /// Runs `body`, whose reads (`read(_:)` on this task) are interrupted when the calling
    /// task is cancelled: they throw `CancellationError` and free their reader at once. For
    /// reads made synchronously on an async caller's task, such as a live query's first run.
    package func interruptibly<T>(_ body: () throws -> T) async throws -> T {
        try Task.checkCancellation()
        let interruption = ReadInterruption()
        return try await withTaskCancellationHandler {
            try ReadInterruption.$current.withValue(interruption) { try body() }
        } onCancel: {
            interruption.cancel()
        }
    }

    /// Runs `body` on a reader outside any transaction, on a separate thread: for statements
    /// that make their own, such as `VACUUM INTO` (which reads one snapshot).
    /// Cancelling the calling task interrupts the statement (`sqlite3_interrupt`): it throws
    /// `CancellationError`.
    package func withReader<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let interruption = ReadInterruption()
        let interrupt: @Sendable () -> Void = { interruption.cancel() }
        return try await BlockingWork.run(onCancel: interrupt) { _ in
            guard let readers = self.readers else { return try self.withWriter(body) }
            let connection = try readers.checkOut(database: self.path)
            defer { readers.checkIn(connection) }
            return try interruption.run(on: connection, body)
        }
    }

    /// Like `read(_:)` for async code. When a reader is free the read runs right away on the
    /// calling task (reads are short CPU work over the page cache); otherwise it waits on a
    /// separate thread so the task does not block a cooperative thread.
    ///
    /// Cancelling the calling task interrupts the read (`sqlite3_interrupt`): it throws
    /// `CancellationError` and stops using the CPU at once.
    ///
    /// `transaction: false` as for the blocking `read(transaction:_:)`: for single-statement reads.
    package func read<T: Sendable>(
        transaction: Bool = true, _ body: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        if let failure = changeTracker.terminalFailure { throw failure }
        try Task.checkCancellation()
        let interruption = ReadInterruption()
        return try await withTaskCancellationHandler {
            if let readers, let connection = try readers.checkOut(wait: false, database: path) {
                defer { readers.checkIn(connection) }
                return try interruption.run(on: connection) { connection in
                    try transaction ? connection.readTransaction { try body(connection) } : body(connection)
                }
            }
            // No reader free: wait for one on a thread of its own.
            return try await BlockingWork.run { _ in
                try ReadInterruption.$current.withValue(interruption) {
                    try self.read(transaction: transaction, body)
                }
            }
        } onCancel: {
            interruption.cancel()
        }
    }
}
