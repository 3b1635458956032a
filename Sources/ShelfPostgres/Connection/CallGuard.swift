#if PostgreSQL
    internal import PostgresNIO
    internal import ShelfStore
    internal import Synchronization

    /// Ends the calls on a connection that has closed, which postgres-nio would leave waiting
    /// forever.
    ///
    /// postgres-nio 1.33 sends a query by writing it into the connection's channel with no
    /// promise for the write (`PostgresConnection.query`). Once the channel has closed (the
    /// server ended the connection: a restart, `pg_terminate_backend`; or the network failed)
    /// and NIO has taken its handlers down, such a write is dropped, and the promise of the
    /// query's result is never completed: `query` never returns. Checking `isClosed` first
    /// narrows the window but cannot close it (the channel closes on its event loop whenever
    /// the server's message comes).
    ///
    /// So every call on a connection runs in a task of its own, and the caller waits for the
    /// first of: the call's result, or the connection's close plus `grace`. A query that was
    /// under way when the connection closed is failed by postgres-nio itself, with the
    /// server's message, well within `grace`; only one that was dropped is still waiting then,
    /// and the caller gets "the connection … was lost" instead. Such a task is cancelled and
    /// left behind: it holds only its closure and the closed connection, and cannot be awaited.
    ///
    /// One guard watches many connections (a pool's): each connection's close is watched
    /// once, not once per call.
    final class CallGuard: Sendable {
        /// How long calls may go on after their connection closed.
        let grace: Duration

        private struct State {
            /// The calls under way on each connection, by call number: each fails its call.
            var calls: [PostgresConnection.ID: [UInt64: @Sendable (StoreError) -> Void]] = [:]
            /// Connections whose close is watched.
            var watched: Set<PostgresConnection.ID> = []
            var nextCall: UInt64 = 0
        }

        private let state = Mutex(State())

        init(grace: Duration = .seconds(5)) {
            self.grace = grace
        }

        /// Runs `body` on `connection`, at `place`, as described above.
        /// - Throws: what `body` threw; or a `StoreError` saying the connection to `place`
        ///   was lost when `body` was still waiting `grace` after the connection closed.
        func run<T: Sendable>(
            on connection: PostgresConnection, at place: PostgresLocation,
            _ body: @escaping @Sendable (PostgresConnection) async throws -> T
        ) async throws -> T {
            let outcome = FirstOutcome<T>()
            // Not awaited: see the type's comment. Its result reaches the caller through
            // `outcome`, unless the connection's close came first.
            let work = Task {
                do {
                    outcome.resolve(.success(try await body(connection)))
                } catch {
                    outcome.resolve(.failure(error))
                }
            }
            let registration = register(on: connection, at: place) { error in
                if outcome.resolve(.failure(error)) { work.cancel() }
            }
            defer { release(registration) }
            return try await withTaskCancellationHandler {
                try await outcome.value()
            } onCancel: {
                work.cancel()
            }
        }

        /// A call on a connection, for `release`.
        struct Registration: Sendable {
            fileprivate let connection: PostgresConnection.ID
            fileprivate let call: UInt64
        }

        /// Records a call on `connection`, at `place`, that `fail` ends (with "the connection …
        /// was lost") when it is still under way `grace` after the connection closed, or when
        /// `abandon` is called: for a caller that runs the call in a task of its own and waits
        /// for whichever answers first, as `run` does. `release` it when the call has ended.
        func register(
            on connection: PostgresConnection, at place: PostgresLocation,
            fail: @escaping @Sendable (StoreError) -> Void
        ) -> Registration {
            let id = connection.id
            let (call, watch) = state.withLock { state in
                let call = state.nextCall
                state.nextCall += 1
                state.calls[id, default: [:]][call] = fail
                return (call, state.watched.insert(id).inserted)
            }
            if watch { watchClose(of: connection, at: place) }
            return Registration(connection: id, call: call)
        }

        /// Forgets a call recorded by `register`.
        func release(_ registration: Registration) {
            state.withLock { state in
                state.calls[registration.connection]?[registration.call] = nil
                if state.calls[registration.connection]?.isEmpty == true { state.calls[registration.connection] = nil }
            }
        }

        /// Once `connection` has closed and `grace` has passed, fails the calls still on it.
        private func watchClose(of connection: PostgresConnection, at place: PostgresLocation) {
            let id = connection.id
            let grace = TimeAmount.nanoseconds(
                grace.components.seconds * 1_000_000_000 + grace.components.attoseconds / 1_000_000_000)
            let eventLoop = connection.eventLoop
            // Holds the guard until then: a plain connection's guard outlives its call by `grace`.
            connection.closeFuture.whenComplete { _ in
                eventLoop.scheduleTask(in: grace) { self.failCalls(on: id, at: place) }
            }
        }

        /// Fails the calls on `connection` at once with "the connection … was lost (`cause`)",
        /// and closes it: for a connection found dead by other means (`LockWait`'s watcher).
        func abandon(_ connection: PostgresConnection, at place: PostgresLocation, cause: String) async {
            let calls = state.withLock { $0.calls[connection.id] ?? [:] }
            let error = StoreError(
                .database,
                StoreError.lostConnection(at: place, cause: cause) + "; check the network and the server, then retry")
            for fail in calls.values { fail(error) }
            try? await connection.close()
        }

        /// Fails the calls still on the connection `id`, which closed `grace` ago.
        private func failCalls(on id: PostgresConnection.ID, at place: PostgresLocation) {
            let calls = state.withLock { state in
                state.watched.remove(id)
                defer { state.calls[id] = nil }
                return state.calls[id] ?? [:]
            }
            let error = StoreError(
                .database,
                StoreError.lostConnection(
                    at: place, cause: "it closed while a query was on its way, which got no answer")
                    + "; check that the server runs, then retry")
            for fail in calls.values { fail(error) }
        }
    }

    /// Waiting for an answer for a bounded time.
    enum Deadline {
        /// What `body` returns, or nil when it has not answered within `limit`: then its task is
        /// cancelled and left behind (a query that never answers cannot be awaited, see
        /// `CallGuard`).
        ///
        /// Cancelled, it cancels `body` and waits for it (up to `limit`), unless
        /// `leavingWhenCancelled`: then it throws `CancellationError` at once and leaves `body`
        /// behind, for a caller whose connection is lost anyway (the listener's task group,
        /// which must not wait out the limit for a query that will never answer). Other callers
        /// go on using or closing the connection after the answer, so they wait (leaving every
        /// cancelled pool call at once hung a backup under terminated connections in CI).
        static func answer<T: Sendable>(
            within limit: Duration, leavingWhenCancelled: Bool = false,
            _ body: @escaping @Sendable () async throws -> T
        ) async throws -> T? {
            let outcome = FirstOutcome<T?>()
            let work = Task {
                do {
                    outcome.resolve(.success(try await body()))
                } catch {
                    outcome.resolve(.failure(error))
                }
            }
            let timer = Task {
                try await Task.sleep(for: limit)
                if outcome.resolve(.success(nil)) { work.cancel() }
            }
            defer { timer.cancel() }
            return try await withTaskCancellationHandler {
                try await outcome.value()
            } onCancel: {
                if leavingWhenCancelled { outcome.resolve(.failure(CancellationError())) }
                work.cancel()
            }
        }
    }

    /// The outcome of a call, from whichever answers first: the call or its guard.
    final class FirstOutcome<T: Sendable>: Sendable {
        private struct State {
            var result: Result<T, any Error>?
            var waiter: CheckedContinuation<T, any Error>?
        }

        private let state = Mutex(State())

        /// Keeps `result` unless one came first; true when this one is kept.
        @discardableResult
        func resolve(_ result: Result<T, any Error>) -> Bool {
            let (kept, waiter) = state.withLock { state -> (Bool, CheckedContinuation<T, any Error>?) in
                guard state.result == nil else { return (false, nil) }
                state.result = result
                defer { state.waiter = nil }
                return (true, state.waiter)
            }
            waiter?.resume(with: result)
            return kept
        }

        /// Waits for the kept result.
        func value() async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<T, any Error>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
#endif
