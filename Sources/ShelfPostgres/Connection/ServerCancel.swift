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
    ///
    /// No task waits beside the call: the task's cancellation handler starts the request, and
    /// the call waits for it before it returns (before, a child task slept beside every call
    /// until it ended, which cost more than the statement of a page).
    enum ServerCancel {
        /// Runs `body`, whose statements run in the server session `pid` of `place`, as above.
        static func onCancel<T: Sendable>(
            pid: Int32, at place: PostgresLocation, _ body: @escaping @Sendable () async throws -> T
        ) async throws -> T {
            guard pid != 0 else { return try await body() }
            let request = LateTask()
            let result: Result<T, any Error>
            do {
                result = .success(
                    try await withTaskCancellationHandler {
                        try await body()
                    } onCancel: {
                        // In a task of its own, which is not cancelled (a cancelled task cannot
                        // connect); unless `body` has ended (`end()` below came first).
                        request.start { await cancel(pid: pid, at: place) }
                    })
            } catch {
                result = .failure(error)
            }
            // Awaited, so the connection is still this call's while the request is on its way.
            await request.end(cancelling: false)?.value
            return try result.get()
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

#endif
