internal import Synchronization

/// A query that re-runs when a commit changes a table it reads, and publishes its result
/// when the result differs from the last one.
///
/// The tables come from SQLite itself: every statement records, while it is prepared, the
/// tables its authorizer reports reading (including those read through full-text indexes
/// and subqueries). Each run re-learns them, so the set follows the query.
///
/// Runs happen on a reader, in one read transaction (one snapshot), on the change tracker's
/// serial queue. A failed re-run keeps the last value; the next change retries.
package final class LiveQuery<Value: Equatable & Sendable>: TableObserver {
    private struct State {
        /// Set by the first run, in `init`; never nil after it.
        var value: Value?
        var tables: Set<String>?
        var publish: (@Sendable (Value) -> Void)?
        /// The last result handed to `publish` (or the one its owner started from).
        var delivered: Value?
        var runs = 0
    }

    private let database: Database
    private let fetch: @Sendable (Connection) throws -> Value
    private let state: Mutex<State>

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

    /// The latest result.
    package var value: Value { state.withLock { $0.value! } }

    /// How many times the query has run (for tests and benchmarks).
    package var runCount: Int { state.withLock { $0.runs } }

    /// Delivers every later result that differs from the one before to `publish`, on the
    /// tracker's queue. `known` is the result the caller already holds (read from `value`):
    /// if a re-run replaced it before `start`, the newer one is delivered first.
    package func start(from known: Value, _ publish: @escaping @Sendable (Value) -> Void) {
        state.withLock {
            $0.publish = publish
            $0.delivered = known
        }
        // On the tracker's queue, where re-runs publish too: deliveries stay in order.
        database.changeTracker.enqueue { [weak self] in
            guard let self else { return }
            let newer = self.state.withLock { state -> Value? in
                guard let value = state.value, value != state.delivered else { return nil }
                state.delivered = value
                return value
            }
            if let newer { publish(newer) }
        }
    }

    package var observedTables: Set<String>? { state.withLock { $0.tables } }

    package func tablesDidChange() {
        try? refresh(throwing: false)
    }

    private func refresh(throwing: Bool) throws {
        let result: (Value, Set<String>)
        do {
            result = try database.read { connection in
                try connection.recordingTablesRead { try fetch(connection) }
            }
        } catch {
            if throwing { throw error }
            return
        }
        let publish = state.withLock { state -> (@Sendable (Value) -> Void)? in
            state.runs += 1
            state.tables = result.1
            state.value = result.0
            guard let publish = state.publish, state.delivered != result.0 else { return nil }
            state.delivered = result.0
            return publish
        }
        publish?(result.0)
    }
}
