#if PostgreSQL
    internal import Synchronization

    /// A leased connection's outcome: the call's value, or nothing sent because the server had
    /// ended the connection, or because the call had already given up.
    enum Leased<T: Sendable>: Sendable {
        case value(T)
        case stale
        case abandoned
    }

    /// The task running a call (`PostgresPool.withLease`), for cancelling it from what that
    /// task set up itself (its guard), before or after the handle is known.
    final class WorkTask: Sendable {
        private struct State {
            var task: Task<Void, Never>?
            var cancelled = false
        }

        private let state = Mutex(State())

        func set(_ task: Task<Void, Never>) {
            let cancelled = state.withLock { state in
                state.task = task
                return state.cancelled
            }
            if cancelled { task.cancel() }
        }

        func cancel() {
            let task = state.withLock { state in
                state.cancelled = true
                return state.task
            }
            task?.cancel()
        }
    }

    /// Whether a call got its connection or gave up waiting for one, decided once and
    /// atomically: a call that failed as busy or unreachable ("nothing was written; retry")
    /// never runs on a connection that comes after, so a retry cannot write twice.
    final class LeaseFlag: Sendable {
        private static let (waiting, leased, abandoned): (UInt8, UInt8, UInt8) = (0, 1, 2)
        private let state = Atomic<UInt8>(0)

        /// True when the call may use its connection: it had not given up (again true for a
        /// second connection, after a stale one).
        func claim() -> Bool {
            let (exchanged, original) = state.compareExchange(
                expected: Self.waiting, desired: Self.leased, ordering: .acquiringAndReleasing)
            return exchanged || original == Self.leased
        }

        /// True when the call gave up before it had a connection; false when it has one.
        func abandon() -> Bool {
            let (exchanged, original) = state.compareExchange(
                expected: Self.waiting, desired: Self.abandoned, ordering: .acquiringAndReleasing)
            return exchanged || original == Self.abandoned
        }

        /// The call gave its connection back unused (found stale) and waits for another: it
        /// may give up again (`abandon`) until it `claim`s the next.
        func release() {
            _ = state.compareExchange(expected: Self.leased, desired: Self.waiting, ordering: .acquiringAndReleasing)
        }

        var isSet: Bool { state.load(ordering: .acquiring) == Self.leased }
    }
#endif
