#if PostgreSQL
    internal import Foundation
    internal import Logging
    package import PostgresNIO
    internal import ShelfStore
    internal import Synchronization

    /// The connection pool of one PostgreSQL store: a `PostgresClient` and the task that runs
    /// it, with reads and transactions whose failures come out as `StoreError`s.
    ///
    /// The pool's background work runs in a task this object owns, from `init` until `close()`
    /// (or until the object is released).
    package final class PostgresPool: Sendable {
        package let location: PostgresLocation
        let client: PostgresClient
        private let runner: Mutex<Task<Void, Never>?>
        /// How long a call waits for a connection before it checks that the server can still
        /// be reached (and keeps waiting only if it can).
        private let patience: Mutex<Duration>
        /// How long a call waits for a connection in all before it fails as busy.
        private let limit: Mutex<Duration>
        /// Whether the server can be reached, asked once for all the calls that wait.
        let serverCheck: ServerCheck
        /// How many connections the server ended while idle one call may lease in a row.
        static let staleLeaseRetries = 5
        /// The server process of each connection (for lock-wait messages and cancel requests),
        /// and when a call last ended on it.
        private let connections = ConnectionRecords()
        /// How long a connection may stay idle before a call checks it (see
        /// `ConnectionRecords`); for tests.
        package var idleCheckAfter: Duration {
            get { idleCheck.withLock { $0 } }
            set { idleCheck.withLock { $0 = newValue } }
        }
        private let idleCheck = Mutex<Duration>(ConnectionRecords.idleCheckAfter)
        /// Ends calls on connections that closed under them (see `CallGuard`).
        private let calls = CallGuard()
        /// Called after every call that may have committed a change (`write`, a transaction
        /// that is not READ ONLY), whether it succeeded or not: wakes live values.
        private let afterWrite = Mutex<(@Sendable () -> Void)?>(nil)

        package init(location: PostgresLocation, patience: Duration = .seconds(5), limit: Duration = .seconds(30)) {
            self.location = location
            self.patience = Mutex(patience)
            self.limit = Mutex(limit)
            serverCheck = ServerCheck(location: location)
            var configuration = location.clientConfiguration()
            // No keep-alive: the pool's keep-alive is a timer started at every release and
            // cancelled at every lease (a task group with a sleeping task), which cost pages
            // about a third of their speed (`raw-pool` against `raw-pool-quiet` in
            // `shelf-benchmarks store --backend postgres`). A connection idle for longer than
            // `idleCheckAfter` is checked when it is leased instead (`ConnectionRecords`).
            configuration.options.keepAliveBehavior = nil
            let client = PostgresClient(configuration: configuration, backgroundLogger: Self.logger)
            self.client = client
            runner = Mutex(Task { await client.run() })
        }

        deinit {
            runner.withLock { $0?.cancel() }
        }

        /// The PostgreSQL layer's diagnostics (pool events, slow calls, the change feed's
        /// reconnects), all at `debug` or below: silent unless the program shows debug logs.
        /// At the level `Store.Configuration.logLevel` gave, if any (the store opened last sets
        /// it, as the logger is the process's).
        package static var logger: Logger {
            var logger = baseLogger
            if let level = logLevel.withLock({ $0 }) { logger.logLevel = level }
            return logger
        }
        private static let baseLogger = Logger(label: "shelf.postgres")
        private static let logLevel = Mutex<Logger.Level?>(nil)

        /// Sets the level of `logger` (nil: the logging system's handler decides).
        package static func setLogLevel(_ level: Logger.Level?) {
            logLevel.withLock { $0 = level }
        }

        /// Runs `body` and logs it when it took longer than `SlowCallThreshold`.
        private func timed<T>(_ what: @autoclosure () -> String, _ body: () async throws -> T) async rethrows -> T {
            let start = ContinuousClock.now
            defer {
                let elapsed = ContinuousClock.now - start
                if elapsed >= SlowCallThreshold.duration {
                    Self.logger.debug(
                        "slow \(what()): \(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000) ms",
                        metadata: ["server": "\(location.server)", "database": "\(location.database)"])
                }
            }
            return try await body()
        }

        /// Ends the pool's connections and its task. Safe to call more than once.
        package func close() async {
            guard
                let task = runner.withLock({ task in
                    defer { task = nil }
                    return task
                })
            else { return }
            serverCheck.close()
            task.cancel()
            await task.value
        }

        /// True once `close()` has run: every call then fails.
        private var isClosed: Bool { runner.withLock { $0 == nil } }

        private var closedError: StoreError {
            StoreError(.closed, "the store at \(location.server)/\(location.database) is closed; open it again")
        }

        /// Sets what runs after every call that may have committed a change (replacing any
        /// before): `CommitWake.committed`, which wakes live values after the commit, outside
        /// the transaction.
        package func setAfterWrite(_ action: @escaping @Sendable () -> Void) {
            afterWrite.withLock { $0 = action }
        }

        private func didWrite() {
            afterWrite.withLock { $0 }?()
        }

        /// Throws unless the pool is open.
        package func checkOpen() throws {
            if isClosed { throw closedError }
        }

        /// How long a call waits for a connection before it checks the server; for tests.
        package var leasePatience: Duration {
            get { patience.withLock { $0 } }
            set { patience.withLock { $0 = newValue } }
        }

        /// True for background work that would only try again after failing as busy (the live
        /// windows' passes and re-reads): its calls wait for a connection without `leaseLimit`,
        /// as every call did before it existed.
        @TaskLocal package static var waitsWithoutLimit = false

        /// How long a call waits for a connection in all before it fails as busy; for tests.
        package var leaseLimit: Duration {
            get { limit.withLock { $0 } }
            set { limit.withLock { $0 = newValue } }
        }

        /// Runs `body` on a leased connection. The pool waits for a connection without end
        /// when the server is gone (it retries connecting), so while no connection has come
        /// after `leasePatience`, the pool's one `ServerCheck` is asked (every call waiting at
        /// once shares one check): when no connection can be made (the server refuses, the
        /// database was dropped, the password changed), its error ends the call; when one can,
        /// the pool is only busy, and the call goes on waiting, for `leaseLimit` in all, and
        /// then fails as busy (`.busy`, `isServerUnavailable`: a service answers 503 with
        /// Retry-After). So a store holds at most its pool's four connections, one check, and
        /// one watcher per running call (`LockWait`), whatever the number of callers.
        ///
        /// The lease and `body` run in one task of their own (`leaseAndRun`), whose outcome the
        /// caller waits for, so the call can end without it: when the check gives up, or when
        /// `CallGuard` finds the connection lost under a query that will never be answered. The
        /// first check waits on the process's `Alarms`, not in a task beside each call: a
        /// pooled page read used to start four tasks beside its own, three of them sleeping,
        /// which cost more than the page's statement on a busy machine.
        private func withLease<T: Sendable>(
            _ operation: LockWait.Operation, onEventLoop: Bool = false,
            _ body: @escaping @Sendable (PostgresConnection) async throws -> T
        ) async throws -> T {
            let leased = LeaseFlag()
            let outcome = FirstOutcome<T>()
            let work = WorkTask()
            let fail: @Sendable (StoreError) -> Void = { error in
                if outcome.resolve(.failure(error)) { work.cancel() }
            }
            // The check of the server, once a connection has not come within `leasePatience`.
            let checking = LateTask()
            let started = ContinuousClock.now
            let patience = leasePatience
            let limit = Self.waitsWithoutLimit ? nil : leaseLimit
            let startChecking: @Sendable () -> Void = { [serverCheck, waitingError, connections] in
                checking.start {
                    await Self.checkWhileWaiting(
                        serverCheck, leased: leased, since: started, patience: patience, limit: limit,
                        holdsNone: { connections.isEmpty },
                        waiting: { waitingError(operation, limit ?? .zero, $0) }, fail: fail)
                }
            }
            // While the server was just found unreachable, ask at once (the check is shared, and
            // a refused connection answers in a moment).
            let firstWait = serverCheck.recentlyUnreachable ? Duration.zero : min(patience, limit ?? patience)
            let alarm: Alarms.Token?
            if firstWait == .zero {
                startChecking()
                alarm = nil
            } else {
                alarm = Alarms.shared.schedule(in: firstWait, startChecking)
            }
            // The work's deadline (an HTTP request's, `CallDeadline`): the call fails then,
            // whatever it waits for (a connection, the check of an idle one, an answer).
            // The sessions the call's lock-wait watcher saw blocking it: a deadline that comes
            // while the call waits for a lock names them, as the lock timeout would have.
            let holders = HoldersSeen()
            var deadlineAlarm: Alarms.Token?
            if let deadline = CallDeadline.current {
                let failLate: @Sendable () -> Void = { [location] in
                    fail(
                        Self.deadlineError(
                            deadline, operation, at: location, nothingSent: leased.abandon(),
                            holders: holders.value.withLock { $0 }))
                }
                let left = deadline.instant - ContinuousClock.now
                if left <= .zero { failLate() } else { deadlineAlarm = Alarms.shared.schedule(in: left, failLate) }
            }
            work.set(
                Task { [client, location, connections, calls, idleCheckAfter] in
                    do {
                        outcome.resolve(
                            .success(
                                try await Self.leaseAndRun(
                                    client: client, at: location, leased: leased, connections: connections,
                                    calls: calls, idleCheckAfter: idleCheckAfter, holders: holders, operation,
                                    onEventLoop: onEventLoop, fail: fail, body)))
                    } catch {
                        outcome.resolve(.failure(error))
                    }
                })
            let result: Result<T, any Error>
            do {
                result = .success(
                    try await withTaskCancellationHandler {
                        try await outcome.value()
                    } onCancel: {
                        work.cancel()
                    })
            } catch {
                result = .failure(error)
            }
            if let alarm { Alarms.shared.cancel(alarm) }
            if let deadlineAlarm { Alarms.shared.cancel(deadlineAlarm) }
            // A check under way is stopped (it goes on for the other calls waiting for it).
            await checking.end()?.value
            return try result.get()
        }

        /// The work of one call, in a task of its own: leases a connection, and runs `body` on
        /// it, guarded by `calls` (whose `fail` ends the call when the connection is lost under
        /// it), cancelled on the server when cancelled here (`ServerCancel`), and watched when
        /// it runs long (`LockWait`).
        ///
        /// A connection the server ended while it was idle here (a restart,
        /// pg_terminate_backend) may still look open: its end is in the socket but not yet
        /// read. One turn of its event loop reads it (I/O before tasks); then a closed
        /// connection is given back, nothing having been sent on it, and another is leased (the
        /// pool replaces the closed one). So is one idle for longer than `idleCheckAfter` that
        /// does not answer a `SELECT 1` (see `ConnectionRecords`).
        private static func leaseAndRun<T: Sendable>(
            client: PostgresClient, at location: PostgresLocation, leased: LeaseFlag, connections: ConnectionRecords,
            calls: CallGuard, idleCheckAfter: Duration, holders: HoldersSeen, _ operation: LockWait.Operation,
            onEventLoop: Bool, fail: @escaping @Sendable (StoreError) -> Void,
            _ body: @escaping @Sendable (PostgresConnection) async throws -> T
        ) async throws -> T {
            for _ in 0..<staleLeaseRetries {
                let outcome: Leased<T> = try await client.withConnection { connection in
                    // A connection that came after the call gave up (it failed as busy or
                    // unreachable, saying nothing was written) runs nothing.
                    guard leased.claim() else { return .abandoned }
                    // A single statement (`read`, `write`) runs on the connection's event loop
                    // (`EventLoopExecutor`): its answer resumes it where it arrived, with no thread
                    // of the cooperative pool woken for it. Transactions, which may do more work
                    // between statements, stay on the cooperative pool.
                    guard onEventLoop else {
                        return try await Self.run(
                            on: connection, at: location, leased: leased, connections: connections, calls: calls,
                            idleCheckAfter: idleCheckAfter, holders: holders, operation, fail: fail, body)
                    }
                    return try await withTaskExecutorPreference(EventLoopExecutor(connection.eventLoop)) {
                        try await Self.run(
                            on: connection, at: location, leased: leased, connections: connections, calls: calls,
                            idleCheckAfter: idleCheckAfter, holders: holders, operation, fail: fail, body)
                    }
                }
                switch outcome {
                case .value(let value): return value
                case .abandoned: throw CancellationError()
                case .stale:
                    // Waiting again: the check of the wait (`checkWhileWaiting`) may end it.
                    leased.release()
                    continue
                }
            }
            throw StoreError(
                .database,
                StoreError.lostConnection(
                    at: location, cause: "the server ended \(Self.staleLeaseRetries) connections in a row")
                    + "; check that the server runs, then retry")
        }

        /// The part of `leaseAndRun` on a leased connection: one turn of its event loop (which
        /// reads an end the server sent while it was idle), the idle check, and `body` guarded.
        private static func run<T: Sendable>(
            on connection: PostgresConnection, at location: PostgresLocation, leased: LeaseFlag,
            connections: ConnectionRecords, calls: CallGuard, idleCheckAfter: Duration, holders: HoldersSeen,
            _ operation: LockWait.Operation, fail: @escaping @Sendable (StoreError) -> Void,
            _ body: @escaping @Sendable (PostgresConnection) async throws -> T
        ) async throws -> Leased<T> {
            try await connection.eventLoop.submit {}.get()
            if connection.isClosed { return .stale }
            let (pid, idle) = connections.use(connection)
            defer { connections.used(connection) }
            if let idle, idle > idleCheckAfter, try await !connections.answers(connection) { return .stale }
            let registration = calls.register(on: connection, at: location, fail: fail)
            defer { calls.release(registration) }
            let known: Int32
            if let pid { known = pid } else { known = try await connections.pid(of: connection) }
            return .value(
                try await ServerCancel.onCancel(pid: known, at: location) {
                    try await LockWait.watching(
                        connection: connection, pid: known, at: location, operation, byAlarm: true,
                        holders: holders, dead: { await calls.abandon(connection, at: location, cause: $0) },
                        body)
                })
        }

        /// The check of a call that has waited `patience` for a connection (see `withLease`):
        /// asks `check` every `patience` while the call waits for a connection (again after a
        /// stale one was given back), and ends the call
        /// through `fail` when the server cannot be reached, when it has no connection left and
        /// the pool holds none (`holdsNone`: none of its own can come free), or when `limit` has
        /// passed since `since` (with `waiting`'s error). Ends when cancelled (the call ended).
        private static func checkWhileWaiting(
            _ check: ServerCheck, leased: LeaseFlag, since start: ContinuousClock.Instant, patience: Duration,
            limit: Duration?, holdsNone: @Sendable () -> Bool, waiting: @Sendable (StoreError?) -> StoreError,
            fail: @Sendable (StoreError) -> Void
        ) async {
            var full: StoreError?
            do {
                while true {
                    if leased.isSet {
                        // The call has a connection, but may wait again: one found stale (an idle
                        // one that did not answer its check) is given back and another awaited,
                        // which is checked as the first was (hostile round 10: after a stale
                        // lease nothing checked, and a request waited 65 s over a silent
                        // network, until it spoke again).
                        try await Task.sleep(for: patience)
                        continue
                    }
                    switch try await check.verdict() {
                    case .reachable: full = nil
                    case .full(let error):
                        // Hostile round 10: with the server's connections taken by others and the
                        // pool's own ended, a call waited out the whole limit (30 s) for a
                        // connection that could only come from the server.
                        if holdsNone() {
                            if leased.abandon() {
                                fail(error)
                                return
                            }
                            continue
                        }
                        full = error
                    case .unreachable(let error):
                        if leased.abandon() {
                            fail(error)
                            return
                        }
                        continue
                    }
                    if leased.isSet { continue }
                    if let limit, ContinuousClock.now - start >= limit {
                        if leased.abandon() {
                            fail(waiting(full))
                            return
                        }
                        continue
                    }
                    let left = limit.map { max($0 - (ContinuousClock.now - start), .zero) } ?? patience
                    try await Task.sleep(for: min(patience, left))
                }
            } catch {
                // Cancelled: the call has ended.
            }
        }

        /// Runs `body` on a connection of the pool, outside any transaction. `body` only reads
        /// (and hands nothing on before it returns): when its connection is lost, it runs once
        /// more on another. Writes go through `write` or `transaction`.
        package func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T)
            async throws -> T
        {
            try await single(.read, body)
        }

        /// Runs `body`, one statement that changes rows, on a connection of the pool, outside
        /// any transaction (`read`, but a lock wait says a write waited).
        package func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T)
            async throws -> T
        {
            try await single(.write, body)
        }

        private func single<T: Sendable>(
            _ operation: LockWait.Operation, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
        ) async throws -> T {
            if isClosed { throw closedError }
            defer { if operation == .write { didWrite() } }
            return try await retryingRead(operation == .read) {
                do {
                    return try await timed(operation.rawValue) {
                        try await withLease(operation, onEventLoop: true, body)
                    }
                } catch {
                    if isClosed { throw closedError }
                    throw StoreError(postgres: error, at: location)
                }
            }
        }

        /// `call`, and when `isRead` and it failed because its connection was lost (the server
        /// ended it: `pg_terminate_backend`, a restart; not a network that fell silent, where a
        /// second try would only wait as long again), `call` once more, on another
        /// connection: a read has changed nothing, so trying it again is safe. A write is never
        /// tried again here (it may have committed); a lease found closed before anything was
        /// sent is replaced in `withLease`.
        /// How long a read that lost its connection waits before it is tried again.
        static let retryPause: Duration = .milliseconds(100)

        private func retryingRead<T: Sendable>(_ isRead: Bool, _ call: () async throws -> T) async throws -> T {
            do {
                return try await call()
            } catch let error as StoreError
                where isRead && error.isConnectionLost && !error.isSilentNetwork && !isClosed
            {
                Self.logger.debug(
                    "a read lost its connection; trying it once more on another",
                    metadata: ["server": "\(location.server)", "reason": "\(error.message)"])
                // A call ended by `LockWait` (its session gone) may fail before the pool has read
                // the connection's end: give the pool a moment to see it closed, so the retry
                // leases another.
                try await Task.sleep(for: Self.retryPause)
                return try await call()
            }
        }

        /// Runs `body` in one transaction on a connection of the pool: it commits when `body`
        /// returns and rolls back when it throws. `isolation` is the level to BEGIN with.
        /// `retryable`: a `READ ONLY` transaction whose `body` does nothing but read (it hands
        /// nothing on before it returns) is run once more on another connection when its
        /// connection was lost.
        package func transaction<T: Sendable>(
            isolation: String = "READ COMMITTED", retryable: Bool = false, subject: (@Sendable () -> String?)? = nil,
            _ body: @escaping @Sendable (PostgresConnection) async throws -> T
        ) async throws -> T {
            if isClosed { throw closedError }
            defer { if !isolation.contains("READ ONLY") { didWrite() } }
            return try await retryingRead(retryable && isolation.contains("READ ONLY")) {
                try await transactionOnce(isolation: isolation, subject: subject, body)
            }
        }

        private func transactionOnce<T: Sendable>(
            isolation: String, subject: (@Sendable () -> String?)?,
            _ body: @escaping @Sendable (PostgresConnection) async throws -> T
        ) async throws -> T {
            do {
                return try await timed("transaction") {
                    // A READ ONLY transaction only reads: a lock wait says so.
                    try await withLease(isolation.contains("READ ONLY") ? .read : .write) { connection in
                        try await connection.query(
                            PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(isolation)"), logger: .silent)
                        do {
                            let value = try await body(connection)
                            try await connection.query("COMMIT", logger: .silent)
                            return value
                        } catch {
                            // Not on a connection the server has ended: the server has rolled back
                            // already (and a query there would only wait for `CallGuard`'s grace).
                            if !connection.isClosed { _ = try? await connection.query("ROLLBACK", logger: .silent) }
                            throw error
                        }
                    }
                }
            } catch let error as SubjectError {
                throw StoreError(postgres: error.error, at: location, subject: error.subject)
            } catch {
                if isClosed { throw closedError }
                throw StoreError(postgres: error, at: location, subject: subject?())
            }
        }
    }
#endif
