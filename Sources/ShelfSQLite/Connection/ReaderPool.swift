internal import Dispatch
internal import Synchronization

/// A fixed set of read-only connections; `checkOut` hands each to one caller at a time.
final class ReaderPool: Sendable {
    private let available: DispatchSemaphore
    private let idle: Mutex<[Connection]>
    let count: Int
    /// Set by `drain()`: check-outs throw from then on.
    private let closed = Atomic<Bool>(false)

    init(path: String, count: Int, busyTimeout: Int32, counter: StatementCounter, cacheKiB: Int) throws {
        var connections: [Connection] = []
        for _ in 0..<count {
            let connection = try Connection(path: path, readOnly: true, counter: counter)
            connection.setBusyTimeout(milliseconds: busyTimeout)
            try connection.execute("PRAGMA cache_size=\(-abs(cacheKiB))")
            connections.append(connection)
        }
        available = DispatchSemaphore(value: count)
        idle = Mutex(connections)
        self.count = count
    }

    /// A connection, waiting while all are in use; throws `DatabaseError.closed` once the
    /// pool is drained.
    func checkOut(database path: String?) throws -> Connection {
        available.wait()
        return try take(database: path)
    }

    /// A connection, or nil when all are in use and `wait` is false; throws as `checkOut`.
    func checkOut(wait: Bool, database path: String?) throws -> Connection? {
        if wait {
            available.wait()
        } else if available.wait(timeout: .now()) == .timedOut {
            return nil
        }
        return try take(database: path)
    }

    /// The connection a caller that holds a slot may use, unless the pool was drained.
    private func take(database path: String?) throws -> Connection {
        guard !closed.load(ordering: .acquiring) else {
            available.signal()
            throw DatabaseError.closed(path: path)
        }
        return idle.withLock { $0.removeLast() }
    }

    func checkIn(_ connection: Connection) {
        idle.withLock { $0.append(connection) }
        available.signal()
    }

    /// Refuses every later check-out and waits until every connection is back: the reads in
    /// progress end first. Blocks.
    func drain() {
        closed.store(true, ordering: .releasing)
        for _ in 0..<count { available.wait() }
        // Waiters that were queued wake, see `closed`, and throw.
        for _ in 0..<count { available.signal() }
    }

    /// Closes every connection; only when no read is running (drained, or the database is
    /// going away).
    func close() {
        idle.withLock { connections in
            for connection in connections { connection.close() }
        }
    }
}
