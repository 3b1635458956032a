#if PostgreSQL
    internal import Logging
    internal import PostgresNIO
    internal import ShelfStore
    internal import Synchronization

    /// The wake-up shelf sends after its own commits, outside them: this process's change feed
    /// is woken at once (`ChangeListener.wake`), and other processes by one
    /// `NOTIFY shelf_changes` on a pooled connection, in a transaction of its own.
    ///
    /// **Batched.** At most one `NOTIFY` is in flight per store; commits made while it is
    /// (under load, many) fold into one more after it. A commit's wake-up is therefore never
    /// later than the one in flight plus one, and a write never waits for it: `committed()`
    /// only records the need and returns.
    ///
    /// **Why not inside the writing transaction.** PostgreSQL serializes the commits of every
    /// transaction that notified (`PreCommit_Notify` takes a server-wide lock held through the
    /// WAL flush), so a `NOTIFY` per writing transaction caps the server's write rate (pgbench,
    /// 32 clients: 0.13 of the speed). Here only these small transactions notify, at most one
    /// per round trip per process.
    final class CommitWake: Sendable {
        private struct State {
            var sending = false
            var again = false
            var task: Task<Void, Never>?
            var closed = false
        }

        private let state = Mutex(State())
        private let local: @Sendable () -> Void
        private let notify: @Sendable () async throws -> Void
        private let logger: Logger

        /// - Parameters:
        ///   - local: wakes this process's feed (no round trip).
        ///   - notify: sends `NOTIFY shelf_changes` (its failure is logged at debug: other
        ///     processes then see the commit at their next check, within a second).
        init(
            logger: Logger, local: @escaping @Sendable () -> Void,
            notify: @escaping @Sendable () async throws -> Void
        ) {
            self.logger = logger
            self.local = local
            self.notify = notify
        }

        /// A change may have been committed: wake this process's feed now, and other processes
        /// by the next `NOTIFY`. Returns at once.
        func committed() {
            local()
            state.withLock { state in
                guard !state.closed else { return }
                if state.sending {
                    state.again = true
                    return
                }
                state.sending = true
                // Made under the lock, so `close` always finds it recorded. Without the deadline
                // of the work that committed (an HTTP request's `CallDeadline`, a task-local
                // value a task inherits): this task may go on sending for later commits.
                state.task = CallDeadline.$current.withValue(nil) { Task { await self.send() } }
            }
        }

        private func send() async {
            while true {
                do {
                    try await notify()
                } catch {
                    logger.debug(
                        "could not wake other processes after a commit; they see it at their next check",
                        metadata: ["reason": "\(PostgresChangeFeed.describe(error))"])
                }
                let more = state.withLock { state -> Bool in
                    if state.again, !state.closed {
                        state.again = false
                        return true
                    }
                    state.sending = false
                    state.task = nil
                    return false
                }
                if !more { return }
            }
        }

        /// Waits for the wake-up in flight (and the one folded after it), then sends no more:
        /// a store closing right after a write still wakes the others.
        func close() async {
            let task = state.withLock { $0.task }
            await task?.value
            state.withLock { $0.closed = true }
        }

        /// The notification's SQL: an empty payload (the log says what changed).
        static let notification: PostgresQuery = "SELECT pg_notify('shelf_changes', '')"
    }
#endif
