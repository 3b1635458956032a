internal import Dispatch
internal import Synchronization

/// What a live query publishes: its latest result, or why its latest run failed.
package enum LiveOutcome<Value: Equatable & Sendable>: Sendable {
    case value(Value)
    case failure(any Error)

    /// True when publishing `other` after `self` would tell an observer nothing new: the same
    /// value, or a failure with the same message.
    func isSame(as other: Self) -> Bool {
        switch (self, other) {
        case (.value(let a), .value(let b)): a == b
        case (.failure(let a), .failure(let b)): String(describing: a) == String(describing: b)
        default: false
        }
    }
}

/// A query that re-runs when a commit changes a table it reads, and publishes its result
/// when the result differs from the last one.
///
/// The tables come from SQLite itself: every statement records, while it is prepared, the
/// tables its authorizer reports reading (including those read through full-text indexes
/// and subqueries). Each run re-learns them, so the set follows the query.
///
/// Runs happen on a reader, in one read transaction (one snapshot), one at a time, on the
/// change tracker's serial queue (see `ChangeTracker`). A run that fails (the database busy past the timeout, damaged, a table
/// dropped by another process, the file replaced) publishes the failure once, and the query
/// retries on its own with a growing delay (`retryDelays`) as well as on every change, until
/// a run succeeds; the value it then reads is published even when it equals the last one, so
/// an observer showing the failure learns that it is over.
package final class LiveQuery<Value: Equatable & Sendable>: TableObserver {
    private struct State {
        /// Set by the first run, in `init`; never nil after it.
        var value: Value?
        var failure: (any Error)?
        var tables: Set<String>?
        var publish: (@Sendable (LiveOutcome<Value>) -> Void)?
        /// The last outcome handed to `publish` (or the value its owner started from).
        var delivered: LiveOutcome<Value>?
        var runs = 0
        /// Failed runs in a row; picks the delay of the next retry.
        var failures = 0
        var retryScheduled = false
    }

    private let database: Database
    private let fetch: @Sendable (Connection) throws -> Value
    private let state: Mutex<State>

    /// Delays before retrying a failed run: the last one repeats while failures go on.
    static var retryDelays: [Duration] { [.milliseconds(100), .milliseconds(300), .seconds(1), .seconds(3)] }

    /// Runs `fetch` once, now, on the calling thread, and starts watching its tables.
    /// - Throws: whatever the first run throws.
    package init(database: Database, fetch: @escaping @Sendable (Connection) throws -> Value) throws {
        self.database = database
        self.fetch = fetch
        // Register before the first run, with unknown tables: a commit landing between the
        // first run and the start of watching is then not missed.
        state = Mutex(State())
        database.changeTracker.register(self)
        try refresh(throwing: true)
    }

    deinit {
        database.changeTracker.unregister(self)
    }

    /// The latest successful result.
    package var value: Value { state.withLock { $0.value! } }

    /// Why the latest run failed, or nil when it succeeded.
    package var failure: (any Error)? { state.withLock { $0.failure } }

    /// How many times the query has run (for tests and benchmarks).
    package var runCount: Int { state.withLock { $0.runs } }

    /// Delivers every later outcome that differs from the one before to `publish`, one at a
    /// time and in order, on the tracker's queue. `known` is the result the caller already holds (read from `value`):
    /// if a re-run replaced it before `start`, the newer outcome is delivered first.
    package func start(from known: Value, _ publish: @escaping @Sendable (LiveOutcome<Value>) -> Void) {
        state.withLock {
            $0.publish = publish
            $0.delivered = .value(known)
        }
        // On the tracker's queue, where re-runs publish too: deliveries stay in order.
        database.changeTracker.enqueue { [weak self] in
            guard let self else { return }
            let newer = self.state.withLock { state -> LiveOutcome<Value>? in
                let current: LiveOutcome<Value>? =
                    state.failure.map { .failure($0) } ?? state.value.map { .value($0) }
                guard let current, state.delivered.map({ current.isSame(as: $0) }) != true else { return nil }
                state.delivered = current
                return current
            }
            if let newer { publish(newer) }
        }
    }

    package var observedTables: Set<String>? {
        state.withLock { $0.failure == nil ? $0.tables : nil }
    }

    package func tablesDidChange() {
        try? refresh(throwing: false)
    }

    package func databaseDidFail(_ error: any Error) {
        record(.failure(error), retries: false)
    }

    /// Runs the query now, on the calling thread (the tracker's queue after `init`).
    private func refresh(throwing: Bool) throws {
        let outcome: LiveOutcome<Value>
        var tables: Set<String>?
        if let terminal = database.changeTracker.terminalFailure {
            // The file is gone or replaced: the open connections would read the old one.
            if throwing { throw terminal }
            record(.failure(terminal), retries: false)
            return
        }
        do {
            let (value, read) = try database.read { connection in
                try connection.recordingTablesRead { try fetch(connection) }
            }
            outcome = .value(value)
            tables = read
        } catch {
            if throwing { throw error }
            outcome = .failure(error)
        }
        record(outcome, tables: tables)
    }

    private func record(_ outcome: LiveOutcome<Value>, tables: Set<String>? = nil, retries: Bool = true) {
        // The replaced value and delivery are released after the lock: a value's deinit may
        // run arbitrary code (see ChangeTracker's note on references dying inside a lock).
        var replaced: (Value?, LiveOutcome<Value>?)
        var retryAfter: Duration?
        let publish = state.withLock { state -> (@Sendable (LiveOutcome<Value>) -> Void)? in
            state.runs += 1
            switch outcome {
            case .value(let value):
                replaced.0 = state.value
                state.value = value
                state.tables = tables
                state.failure = nil
                state.failures = 0
            case .failure(let error):
                state.failure = error
                state.failures += 1
                if retries, !state.retryScheduled {
                    state.retryScheduled = true
                    let delays = Self.retryDelays
                    retryAfter = delays[min(state.failures, delays.count) - 1]
                }
            }
            guard let publish = state.publish, state.delivered.map({ outcome.isSame(as: $0) }) != true else {
                return nil
            }
            replaced.1 = state.delivered
            state.delivered = outcome
            return publish
        }
        withExtendedLifetime(replaced) {}
        publish?(outcome)
        if let retryAfter { scheduleRetry(after: retryAfter) }
    }

    private func scheduleRetry(after delay: Duration) {
        let tracker = database.changeTracker
        let nanoseconds = Int(delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000)
        // A timer, not `BlockingWork`: it is set from a synchronous refresh (on the tracker's
        // queue, with no task to await anything), and it only enqueues the retry on that queue,
        // where the read runs. The retry's failure is not dropped: `refresh` publishes it on
        // the live value and schedules the next retry.
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            guard let self else { return }
            tracker.enqueue { [weak self] in
                guard let self else { return }
                let stillFailing = self.state.withLock { state -> Bool in
                    state.retryScheduled = false
                    return state.failure != nil
                }
                guard stillFailing, !tracker.isStopped else { return }
                try? self.refresh(throwing: false)
            }
        }
    }
}
