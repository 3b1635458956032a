#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    internal import ShelfStore
    internal import Synchronization

    /// A session that holds a lock another one waits for, as `pg_stat_activity` shows it.
    struct LockHolderSession: Sendable, Equatable, CustomStringConvertible {
        var pid: Int32
        var application: String
        var user: String
        /// The client's address, or "" for a Unix socket.
        var address: String
        /// What the session runs, or ran last when it is idle (`pg_stat_activity.query`,
        /// white space folded); "" when unknown.
        var query: String = ""
        /// `pg_stat_activity.state`: "active", "idle in transaction", …
        var state: String = ""
        /// When it entered that state (`state_change`), as UTC ISO 8601 to the second; ""
        /// when unknown.
        var since: String = ""

        var description: String {
            let name = application.isEmpty ? "a session" : "the session \(OutputText.quoted(application))"
            let from = address.isEmpty ? "a local socket" : address
            let doing =
                query.isEmpty
                ? ""
                : state == "active"
                    ? ", running \(OutputText.quoted(query))"
                    : ", \(state.isEmpty ? "idle" : state) after \(OutputText.quoted(query))"
            // Since when it has been in that state (idle in a transaction: since its last
            // statement ended), so a reader can tell a forgotten session from a busy one.
            let when = since.isEmpty ? "" : ", since \(since)"
            return "\(name) (PID \(pid), user \(user), from \(from)\(doing)\(when))"
        }
    }

    /// Watches a connection that may wait for a lock, so that when `lock_timeout` ends the
    /// wait the error can name who held the lock.
    ///
    /// The holder must be asked while the wait lasts: once the timeout has fired the waiting
    /// session waits for nothing, and `pg_blocking_pids` of it is empty. So a call that runs
    /// longer than a moment (`start`) gets a watcher on a connection of its own, which asks
    /// every `interval` which sessions block the call's backend, and keeps the last answer.
    /// Short calls, nearly all, never open it.
    enum LockWait {
        /// What waited for the lock, for the message: a read or a write.
        enum Operation: String, Sendable {
            case read, write
            /// Opening the store: its migrations and upkeep, which write.
            case open

            /// What waited, to follow "that": "this write", "opening the store".
            var waiter: String { self == .open ? "opening the store" : "this \(rawValue)" }
            /// What was not done: "read", "written".
            var undone: String { self == .read ? "read" : "written" }
        }

        /// When a call has run for this long, the watcher starts.
        static func start(for timeout: Duration) -> Duration { min(.seconds(1), timeout / 2) }
        /// How often the watcher asks.
        static func interval(for timeout: Duration) -> Duration { min(.seconds(1), timeout / 4) }

        /// Runs `body` on `connection`, whose server process is `pid`, watched as above; a lock
        /// timeout it throws becomes a `StoreError` (`.busy`) naming the sessions that held the
        /// lock, and what to do.
        ///
        /// The watcher also checks that the call's connection is alive: when the server has no
        /// session `pid` any more, or cannot be reached or does not answer within
        /// `checkLimit` (a network gone silent, which the pool's connections, made by
        /// postgres-nio without TCP keepalive, would wait out for about fifteen minutes), it
        /// calls `dead` with the cause, which ends the call. So a call on a dead connection ends
        /// within about `start` + `checkLimit` + the connect timeout (10 s), well under 30 s.
        static func watching<T: Sendable>(
            connection: PostgresConnection, pid: Int32, at place: PostgresLocation, _ operation: Operation,
            byAlarm: Bool = false, holders: HoldersSeen = HoldersSeen(),
            dead: @escaping @Sendable (String) async -> Void = { _ in },
            _ body: @escaping @Sendable (PostgresConnection) async throws -> T
        ) async throws -> T {
            let timeout = place.lockTimeout
            guard byAlarm else {
                // The copy's and the migrator's calls, few and long: a task sleeps beside each.
                do {
                    return try await withThrowingTaskGroup(of: T?.self) { group in
                        group.addTask { try await body(connection) }
                        group.addTask {
                            try await Task.sleep(for: start(for: timeout))
                            let cause = try? await watch(pid: pid, at: place, timeout: timeout) { found in
                                holders.value.withLock { $0 = found }
                            }
                            // A watcher cancelled because the call ended judges nothing.
                            if let cause, !Task.isCancelled { await dead(cause) }
                            return nil
                        }
                        while let value = try await group.next() {
                            if let value {
                                group.cancelAll()
                                return value
                            }
                        }
                        throw CancellationError()
                    }
                } catch {
                    guard isLockTimeout(error) else { throw error }
                    throw StoreError(
                        .busy,
                        message(holders: holders.value.withLock { $0 }, at: place, timeout: timeout, waiting: operation)
                    )
                }
            }
            // The pool's calls, many and short: the watcher starts from the process's `Alarms`,
            // not from a task sleeping beside every call, as nearly all end before it would.
            let watcher = LateTask()
            let alarm = Alarms.shared.schedule(in: start(for: timeout)) {
                watcher.start {
                    let cause = try? await watch(pid: pid, at: place, timeout: timeout) { found in
                        holders.value.withLock { $0 = found }
                    }
                    // A watcher cancelled because the call ended judges nothing.
                    if let cause, !Task.isCancelled { await dead(cause) }
                }
            }
            let result: Result<T, any Error>
            do {
                result = .success(try await body(connection))
            } catch {
                result = .failure(error)
            }
            Alarms.shared.cancel(alarm)
            // A watcher that started is stopped and waited for, so its connection is closed
            // when the call returns.
            await watcher.end()?.value
            do {
                return try result.get()
            } catch {
                guard isLockTimeout(error) else { throw error }
                throw StoreError(
                    .busy,
                    message(holders: holders.value.withLock { $0 }, at: place, timeout: timeout, waiting: operation))
            }
        }

        /// True for PostgreSQL's "canceling statement due to lock timeout".
        static func isLockTimeout(_ error: any Error) -> Bool {
            switch error {
            case let error as PSQLError:
                error.serverInfo?[.sqlState] == "55P03" && (error.serverInfo?[.message] ?? "").contains("lock timeout")
            case let error as SubjectError: isLockTimeout(error.error)
            case let error as PostgresTransactionError:
                (error.closureError ?? error.commitError ?? error.beginError).map(isLockTimeout) ?? false
            default: false
            }
        }

        /// The message for a lock wait that timed out.
        static func message(
            holders: [LockHolderSession], at place: PostgresLocation, timeout: Duration, waiting: Operation
        ) -> String {
            let limit = WriteTimeout.text(timeout)
            guard !holders.isEmpty else {
                return "another session held a lock on the store \(place.server)/\(place.database) that "
                    + "\(waiting.waiter) waited for longer than \(limit); nothing was \(waiting.undone); wait for it to "
                    + "finish, then retry (psql: SELECT pid, application_name, client_addr, query "
                    + "FROM pg_stat_activity WHERE wait_event_type = 'Lock' OR state = 'idle in transaction')"
            }
            let names = holders.map(\.description).joined(separator: ", ")
            let pids = holders.map { "\($0.pid)" }.joined(separator: ", ")
            let verb = holders.count == 1 ? "holds" : "hold"
            return
                "\(names) \(verb) a lock on the store \(place.server)/\(place.database) that \(waiting.waiter) "
                + "waited for longer than \(limit); nothing was \(waiting.undone); "
                + "wait for it to finish (commit or roll back), or end it "
                + "(psql: SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid IN (\(pids))), then retry"
        }

        /// How long one check of the watcher may wait for its answer.
        static let checkLimit: Duration = .seconds(10)

        /// Asks every `interval` (from the moment it is started, `start` into the call), on a
        /// connection of its own, which sessions block `pid`, and reports each non-empty answer; until cancelled. Returns
        /// why the session `pid` is dead, when it finds it so (see `watching`); nil when it
        /// cannot tell (its own connection failed for another reason: too many clients).
        private static func watch(
            pid: Int32, at place: PostgresLocation, timeout: Duration,
            _ report: @escaping @Sendable ([LockHolderSession]) -> Void
        ) async throws -> String? {
            let silent =
                "the server did not answer a check within \(checkLimit.components.seconds) s; "
                + "the network may be down"
            do {
                return try await PostgresBackend.withConnection(to: place) { connection in
                    while true {
                        try Task.checkCancellation()
                        let answer = try await Deadline.answer(within: checkLimit) {
                            let holders = try await connection.query(
                                """
                                SELECT pid, coalesce(application_name, ''), coalesce(usename::text, ''),
                                       coalesce(host(client_addr), ''),
                                       coalesce(left(regexp_replace(query, '\\s+', ' ', 'g'), 200), ''),
                                       coalesce(state, ''),
                                       coalesce(to_char(state_change AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), '')
                                FROM pg_stat_activity WHERE pid = ANY(pg_blocking_pids(\(pid))) ORDER BY pid
                                """, logger: .silent
                            ).all((Int32, String, String, String, String, String, String).self)
                            let sessions = try await connection.query(
                                "SELECT count(*) FROM pg_stat_activity WHERE pid = \(pid)", logger: .silent
                            ).all((Int64).self)
                            return (holders, (sessions.first ?? 0) > 0 || pid == 0)
                        }
                        guard let (rows, alive) = answer else { return silent }
                        guard alive else { return "the server ended its session (PID \(pid))" }
                        let found = rows.map {
                            LockHolderSession(
                                pid: $0.0, application: $0.1, user: $0.2, address: $0.3, query: $0.4, state: $0.5,
                                since: $0.6)
                        }
                        if !found.isEmpty { report(found) }
                        try await Task.sleep(for: interval(for: timeout))
                    }
                }
            } catch let error as StoreError where error.isUnreachable {
                // The check's own connection lost after it was made (closing under load, or the
                // check cancelled) says nothing of the call's: that error goes up, and the
                // watcher gives no verdict (taking it as one ended a healthy backup in CI).
                return "a check could not reach the server: \(error.message)"
            }
        }
    }

    /// The sessions a watcher last saw blocking a call (the call's deadline reads them too).
    final class HoldersSeen: Sendable {
        let value = Mutex<[LockHolderSession]>([])
    }

    /// Text from the server, made safe to show: control characters become "?", and it is
    /// quoted.
    enum OutputText {
        static func quoted(_ text: String) -> String {
            let clean = String(
                text.unicodeScalars.prefix(63).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
            return "'\(clean)'"
        }
    }

    /// What a pool knows of each of its connections: its server process (for lock-wait
    /// messages and cancel requests), asked once, and when a call last ended on it.
    ///
    /// The pool runs no keep-alive (see `PostgresPool.init`), so a connection idle for longer
    /// than `idleCheckAfter` is asked a `SELECT 1` before a call uses it (`answers`): one that
    /// does not answer within `LockWait.checkLimit` (a network that dropped it while it was
    /// idle, as some firewalls do) or fails is closed and another is leased, where a call
    /// would have waited for the kernel to give up on it. So is every other connection no call
    /// holds that had been idle at least as long: a network that dropped one idle connection
    /// dropped those too, and checking them one by one would cost a call `checkLimit` each. A
    /// record is dropped when its connection closes.
    final class ConnectionRecords: Sendable {
        /// postgres-nio's keep-alive frequency, which this replaces.
        static let idleCheckAfter: Duration = .seconds(30)

        private struct Record {
            let connection: PostgresConnection
            var pid: Int32?
            var lastUsed: ContinuousClock.Instant?
            var inUse = false
            /// Being closed by `answers`, with the others idle as long as one that did not answer.
            var doomed = false
        }

        private let records = Mutex<[PostgresConnection.ID: Record]>([:])

        /// Whether no connection of the pool is open (none that a call has used is left).
        var isEmpty: Bool { records.withLock { $0.isEmpty } }

        /// A call starts on `connection`: its server process if known, and how long it has been
        /// idle (nil for one never used; `.max` for one being closed, as it did not answer).
        func use(_ connection: PostgresConnection) -> (pid: Int32?, idle: Duration?) {
            let now = ContinuousClock.now
            let (record, isNew) = records.withLock { records -> (Record?, Bool) in
                let record = records[connection.id]
                records[connection.id] = record ?? Record(connection: connection)
                records[connection.id]?.inUse = true
                return (record, record == nil)
            }
            if isNew {
                let id = connection.id
                connection.closeFuture.whenComplete { [weak self] _ in
                    _ = self?.records.withLock { $0.removeValue(forKey: id) }
                }
            }
            if record?.doomed == true { return (record?.pid, .seconds(Int64.max)) }
            return (record?.pid, record?.lastUsed.map { now - $0 })
        }

        /// A call has ended on `connection`.
        func used(_ connection: PostgresConnection) {
            let now = ContinuousClock.now
            records.withLock { records in
                records[connection.id]?.lastUsed = now
                records[connection.id]?.inUse = false
            }
        }

        /// The server process of `connection`, asked once.
        func pid(of connection: PostgresConnection) async throws -> Int32 {
            if let pid = records.withLock({ $0[connection.id]?.pid }) { return pid }
            let rows = try await connection.query("SELECT pg_backend_pid()", logger: .silent).all((Int32).self)
            let pid = rows.first ?? 0
            records.withLock { $0[connection.id]?.pid = pid }
            return pid
        }

        /// Whether `connection` answers `SELECT 1` within `LockWait.checkLimit`; one that does
        /// not is closed. One being closed (see `doomed`) is closed at once, unasked.
        func answers(_ connection: PostgresConnection) async throws -> Bool {
            if records.withLock({ $0[connection.id]?.doomed == true }) {
                try? await connection.close()
                return false
            }
            do {
                let answer = try await Deadline.answer(within: LockWait.checkLimit) {
                    try await connection.query("SELECT 1", logger: .silent).collect().count
                }
                if answer != nil { return true }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                if Task.isCancelled { throw CancellationError() }
                // Failed: the server ended it, or it is broken; closed below.
            }
            PostgresPool.logger.debug("an idle connection did not answer; leasing another")
            let idleSince = records.withLock { $0[connection.id]?.lastUsed }
            let alike = records.withLock { records in
                let alike = records.filter { _, record in
                    guard !record.inUse, record.connection !== connection, let idleSince,
                        let lastUsed = record.lastUsed
                    else { return false }
                    return lastUsed <= idleSince
                }
                for id in alike.keys { records[id]?.doomed = true }
                return alike.values.map(\.connection)
            }
            try? await connection.close()
            for other in alike { try? await other.close() }
            return false
        }
    }
#endif
