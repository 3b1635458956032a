#if PostgreSQL
    internal import Synchronization

    /// Deadlines of calls, kept by one task for the whole process instead of a sleeping task
    /// per call.
    ///
    /// A pooled call waits for some things only when it runs long: a connection that has not
    /// come after `leasePatience` (then the pool's `ServerCheck` is asked), a statement still
    /// running after a moment (then `LockWait` starts its watcher). Each used to be a child task
    /// sleeping beside the call, cancelled when the call ended; a task group with a sleeping
    /// child cost 30-90 µs on the shared 2-core machine, and a pooled page read paid for three,
    /// most of the time a page took. Here a call records its deadline (a lock and a dictionary
    /// insert) and removes it when done. One task, running only while deadlines are pending,
    /// wakes every `tick` and runs the actions whose deadline has passed, in that task: an
    /// action must not block, and starts a task of its own for anything that waits.
    ///
    /// An action runs at most `tick` (and a busy machine's scheduling) after its deadline.
    final class Alarms: Sendable {
        /// The process's alarms.
        static let shared = Alarms(tick: .milliseconds(50))

        /// An alarm set, for `cancel`.
        struct Token: Sendable {
            fileprivate let id: UInt64
        }

        private struct Alarm {
            var deadline: ContinuousClock.Instant
            var action: @Sendable () -> Void
        }

        private struct State {
            var pending: [UInt64: Alarm] = [:]
            var next: UInt64 = 0
            /// Whether the task that runs the alarms is running.
            var ticking = false
        }

        private let state = Mutex(State())
        /// How often the pending alarms are looked at.
        let tick: Duration

        init(tick: Duration) {
            self.tick = tick
        }

        /// Runs `action` once `delay` has passed, unless `cancel` comes first.
        func schedule(in delay: Duration, _ action: @escaping @Sendable () -> Void) -> Token {
            let deadline = ContinuousClock.now + delay
            let (id, start) = state.withLock { state in
                let id = state.next
                state.next += 1
                state.pending[id] = Alarm(deadline: deadline, action: action)
                defer { state.ticking = true }
                return (id, !state.ticking)
            }
            if start {
                // Not awaited, and it throws nothing: it ends by itself once no alarm is
                // pending (the next `schedule` starts another). Detached, so it takes no task
                // value or priority of the call that happened to start it.
                Task.detached { await self.run() }
            }
            return Token(id: id)
        }

        /// Takes the alarm back; true when it had not run yet (it never will).
        @discardableResult
        func cancel(_ token: Token) -> Bool {
            state.withLock { $0.pending.removeValue(forKey: token.id) != nil }
        }

        /// How many alarms are pending, for tests.
        var pendingCount: Int { state.withLock { $0.pending.count } }

        private func run() async {
            while true {
                // Only cancellation makes a sleep throw, and nothing cancels this task.
                try? await Task.sleep(for: tick)
                let now = ContinuousClock.now
                let (due, done) = state.withLock { state -> ([@Sendable () -> Void], Bool) in
                    let ids = state.pending.compactMap { $0.value.deadline <= now ? $0.key : nil }
                    let due = ids.compactMap { state.pending.removeValue(forKey: $0)?.action }
                    if state.pending.isEmpty { state.ticking = false }
                    return (due, state.pending.isEmpty)
                }
                for action in due { action() }
                if done { return }
            }
        }
    }

    /// A task started later, at most once, that can be stopped before or after it starts:
    /// what an alarm starts for a call (a lock-wait watcher, a server check), ended with the
    /// call.
    final class LateTask: Sendable {
        private enum Phase {
            case waiting
            case started(Task<Void, Never>)
            case ended
        }

        private let phase = Mutex(Phase.waiting)

        init() {}

        /// Starts `body` in a task of its own, unless `end()` came first.
        func start(_ body: @escaping @Sendable () async -> Void) {
            phase.withLock { phase in
                guard case .waiting = phase else { return }
                phase = .started(Task { await body() })
            }
        }

        /// Stops it for good: it never starts after this; a task that did start is cancelled
        /// when `cancelling`, and returned (to await).
        @discardableResult
        func end(cancelling: Bool = true) -> Task<Void, Never>? {
            let task = phase.withLock { phase -> Task<Void, Never>? in
                defer { phase = .ended }
                if case .started(let task) = phase { return task }
                return nil
            }
            if cancelling { task?.cancel() }
            return task
        }
    }
#endif
