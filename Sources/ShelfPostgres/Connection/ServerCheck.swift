#if PostgreSQL
    internal import ShelfStore
    internal import Synchronization

    /// Whether a new connection to a pool's server can be made, asked by the pool's calls that
    /// have waited long for a connection (the pool itself retries connecting without end, so
    /// a call cannot tell a busy pool from a server gone).
    ///
    /// One check for the whole pool: every call waiting at once shares the one under way, and
    /// a verdict younger than `fresh` is reused. Before, every waiting call opened a
    /// connection of its own every `leasePatience`: with 3,000 clients opening live streams one
    /// `shelf serve` held 25–29 server sessions for a pool of four, and the server ran out of
    /// connections (`max_connections`), which failed the calls it was meant to help.
    ///
    /// Opens at most one connection at a time, and at most one every `fresh`.
    final class ServerCheck: Sendable {
        /// What the last check found.
        enum Verdict: Sendable {
            /// A connection was made: the server runs and takes this login; the pool is busy.
            case reachable
            /// The server refused for want of connections (`53300`), or took the connection and
            /// dropped it before it was ready (a reset while starting): it runs, but gave no
            /// connection now, so waiting may help.
            case full(StoreError)
            /// No connection could be made (refused, no such database, a wrong password, no
            /// answer): waiting longer would not help.
            case unreachable(StoreError)
        }

        private struct State {
            var running: Task<Void, Never>?
            /// The calls waiting for the check under way, by a number of their own.
            var waiters: [Int: CheckedContinuation<Verdict, any Error>] = [:]
            var nextWaiter = 0
            var last: (verdict: Verdict, at: ContinuousClock.Instant)?
            var closed = false
        }

        private let state = Mutex(State())
        private let location: PostgresLocation
        /// How long a verdict is reused.
        let fresh: Duration
        /// How many connections the checks have opened (or tried to), for tests.
        let opened = Atomic<Int>(0)

        init(location: PostgresLocation, fresh: Duration = .seconds(1)) {
            self.location = location
            self.fresh = fresh
        }

        /// The verdict: a recent one, the one under way, or a new check's.
        ///
        /// - Throws: `CancellationError` as soon as the calling task is cancelled (its call got
        ///   a connection meanwhile, or its caller went away): it does not wait out the check,
        ///   which goes on for the others, within the connect timeout (10 s). Before, a call
        ///   that got its connection while a check was under way returned only when the check
        ///   ended.
        func verdict() async throws -> Verdict {
            let id = state.withLock { state in
                defer { state.nextWaiter += 1 }
                return state.nextWaiter
            }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Verdict, any Error>) in
                    let known: Result<Verdict, any Error>? = state.withLock { state in
                        // Checked under the lock that `onCancel` takes: a cancellation that came
                        // before the waiter was registered is seen here.
                        if Task.isCancelled { return .failure(CancellationError()) }
                        if let last = state.last, ContinuousClock.now - last.at < fresh {
                            return .success(last.verdict)
                        }
                        if state.closed {
                            return .success(
                                .unreachable(
                                    StoreError(
                                        .closed,
                                        "the store at \(location.server)/\(location.database) is closed; open it again")
                                ))
                        }
                        state.waiters[id] = continuation
                        if state.running == nil { state.running = Task { await self.check() } }
                        return nil
                    }
                    if let known { continuation.resume(with: known) }
                }
            } onCancel: {
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
            }
        }

        /// True when the last check, less than `outageMemory` ago, found the server unreachable:
        /// a call then asks at once instead of waiting `leasePatience` first, so that while the
        /// database is away every request fails within a check's time, not after 5 s.
        var recentlyUnreachable: Bool {
            state.withLock { state in
                guard let last = state.last, case .unreachable = last.verdict else { return false }
                return ContinuousClock.now - last.at < Self.outageMemory
            }
        }

        /// How long an unreachable verdict makes calls ask at once.
        static let outageMemory: Duration = .seconds(30)

        /// Ends a check under way, for the pool's `close()`.
        func close() {
            state.withLock { state in
                state.closed = true
                state.running?.cancel()
            }
        }

        /// Opens and closes one connection; records what that found and gives it to the calls
        /// waiting for it.
        private func check() async {
            opened.add(1, ordering: .relaxed)
            let verdict: Verdict
            do {
                try await PostgresBackend.withConnection(to: location) { _ in }
                verdict = .reachable
            } catch let error as StoreError {
                // A connection made and then dropped while starting says the server is there:
                // before, it ended every waiting call as unreachable at once.
                verdict = error.isServerFull || error.isLostConnection ? .full(error) : .unreachable(error)
            } catch {
                verdict = .unreachable(StoreError(postgres: error, at: location))
            }
            let waiters = state.withLock { state in
                state.running = nil
                state.last = (verdict, ContinuousClock.now)
                defer { state.waiters = [:] }
                return state.waiters.values
            }
            for waiter in waiters { waiter.resume(returning: verdict) }
        }
    }
#endif
