internal import CSQLite
internal import Synchronization

/// Ends a read when the task waiting for it is cancelled: `sqlite3_interrupt` on the
/// connection the read runs on, so a superseded search (a browser's query replaced by the
/// next key, or abandoned with Esc) stops using a core at once instead of running to its end.
///
/// One interruption serves every read made for one cancellable operation
/// (`Database.interruptibly(_:)` and the async `Database.read(_:)` make one and bind it to
/// `current`); reads made while it is bound register their connection for the length of the
/// read. After `cancel()`, the running read fails with `CancellationError` and every later
/// read for it fails before it starts.
package final class ReadInterruption: Sendable {
    /// The interruption of the operation running on this task or thread, if any.
    @TaskLocal package static var current: ReadInterruption?

    private struct State {
        /// The connection a read is running on right now.
        var connection: Connection?
        var cancelled = false
    }

    private let state = Mutex(State())

    package init() {}

    /// True once `cancel()` was called.
    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Interrupts the running read, if any, and refuses later ones. Safe from any thread.
    package func cancel() {
        state.withLock { state in
            state.cancelled = true
            // Under the lock: the read cannot end and hand its connection to another read
            // meanwhile (`run` clears it under the same lock before the connection goes back).
            if let connection = state.connection {
                sqlite3_interrupt(connection.handle)
                // A statement waiting for another process's lock sleeps in the busy handler,
                // which sqlite3_interrupt does not wake.
                connection.busyWait.interrupt()
            }
        }
    }

    /// Runs `body` on `connection` so that `cancel()` interrupts it; throws
    /// `CancellationError` when cancelled before or during it.
    package func run<T>(on connection: Connection, _ body: (Connection) throws -> T) throws -> T {
        try state.withLock { state in
            if state.cancelled { throw CancellationError() }
            state.connection = connection
        }
        defer {
            state.withLock { state in
                state.connection = nil
                connection.busyWait.clearInterrupt()
            }
        }
        do {
            return try body(connection)
        } catch {
            // An interrupted statement fails with SQLITE_INTERRUPT; say what happened.
            if isCancelled { throw CancellationError() }
            throw error
        }
    }
}
