#if PostgreSQL
    internal import Logging
    internal import PostgresNIO
    internal import ShelfStore
    internal import Synchronization

    /// Cancelling a call's statement on the server when its task is cancelled.
    ///
    /// Cancelling a task does not stop what the server runs for it: postgres-nio 1.33 sends no
    /// CancelRequest, so a superseded search (the browser cancels the read of every search a
    /// newer key replaced) would go on using a core of the server until it ends, and hold its
    /// connection meanwhile. So while a call runs, its task's cancellation sends
    /// `pg_cancel_backend(pid)` for the call's server session from a connection of its own;
    /// the statement then fails (SQLSTATE 57014), the call ends, and the connection, which
    /// stays usable, goes back to the pool.
    ///
    /// The request is sent while the call still holds its connection, so it can only reach
    /// this call's statement (or none, when it has just ended), never the next lease's.
    enum ServerCancel {
        /// Runs `body`, whose statements run in the server session `pid` of `place`, as above.
        static func onCancel<T: Sendable>(
            pid: Int32, at place: PostgresLocation, _ body: @escaping @Sendable () async throws -> T
        ) async throws -> T {
            let ended = EndedFlag()
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask {
                    defer { ended.set() }
                    return try await body()
                }
                group.addTask {
                    // Sleeps until the group is cancelled: by the caller's cancellation, or
                    // below, once `body` has ended.
                    try? await Task.sleep(for: .seconds(365 * 86400))
                    guard !ended.isSet, pid != 0 else { return nil }
                    // In a task of its own, not cancelled: this one is, and a cancelled task
                    // cannot connect. Awaited, so the connection is still this call's.
                    await Task { await cancel(pid: pid, at: place) }.value
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
        }

        /// Asks the server to cancel what the session `pid` runs now; a failure is logged (at
        /// debug) and otherwise ignored: the statement then runs to its end, as before.
        private static func cancel(pid: Int32, at place: PostgresLocation) async {
            do {
                try await PostgresBackend.withConnection(to: place) { connection in
                    _ = try await connection.query("SELECT pg_cancel_backend(\(pid))", logger: .silent).collect()
                }
            } catch {
                PostgresPool.logger.debug(
                    "could not cancel a superseded statement: \(error)",
                    metadata: ["server": "\(place.server)", "pid": "\(pid)"])
            }
        }
    }

    /// Set once a call's body has ended.
    private final class EndedFlag: Sendable {
        private let value = Atomic<Bool>(false)

        func set() { value.store(true, ordering: .relaxed) }

        var isSet: Bool { value.load(ordering: .relaxed) }
    }
#endif
