internal import Synchronization

/// The snapshot reads in progress of one store (`Store.itemPages`), so that closing the store
/// ends them: a read whose consumer is slow, or has stopped iterating without releasing its
/// iterator, holds a connection that `close()` would otherwise wait for without end.
final class SnapshotReads: Sendable {
    private struct State {
        var closed: StoreError?
        var reads: [ObjectIdentifier: @Sendable (StoreError) -> Void] = [:]
        /// `close` waiting for the reads in progress to end.
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `read` with `sink` registered: `close(with:)` stops it meanwhile.
    /// - Throws: the closing error, without running `read`, once the store is closed.
    func run<Value: Sendable>(_ sink: PageSink<Value>, _ read: () async throws -> Void) async throws {
        let key = ObjectIdentifier(sink)
        try state.withLock { state in
            if let closed = state.closed { throw closed }
            state.reads[key] = { sink.stop(failing: $0) }
        }
        defer {
            let ended = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.reads.removeValue(forKey: key)
                guard state.reads.isEmpty else { return [] }
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiter in ended { waiter.resume() }
        }
        try await read()
    }

    /// Stops every read in progress (its consumer's `next()` throws `error`) and refuses later
    /// ones with it.
    ///
    /// Returns once those reads have ended: a read stopped in the middle of a page still reads
    /// that page, and its connection must not be closed under it (postgres-nio 1.33 stops the
    /// process when a connection ends under a row stream it holds back: seen in CI when a
    /// store was closed during a read).
    func close(with error: StoreError) async {
        let stops = state.withLock { state in
            if state.closed == nil { state.closed = error }
            return Array(state.reads.values)
        }
        for stop in stops { stop(error) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state -> Bool in
                if state.reads.isEmpty { return true }
                state.waiting.append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
    }
}
