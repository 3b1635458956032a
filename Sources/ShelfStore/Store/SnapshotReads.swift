internal import Synchronization

/// The snapshot reads in progress of one store (`Store.itemPages`), so that closing the store
/// ends them: a read whose consumer is slow, or has stopped iterating without releasing its
/// iterator, holds a connection that `close()` would otherwise wait for without end.
final class SnapshotReads: Sendable {
    private struct State {
        var closed: StoreError?
        var reads: [ObjectIdentifier: @Sendable (StoreError) -> Void] = [:]
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
        defer { _ = state.withLock { $0.reads.removeValue(forKey: key) } }
        try await read()
    }

    /// Stops every read in progress (its consumer's `next()` throws `error`) and refuses later
    /// ones with it.
    func close(with error: StoreError) {
        let stops = state.withLock { state in
            if state.closed == nil { state.closed = error }
            return Array(state.reads.values)
        }
        for stop in stops { stop(error) }
    }
}
