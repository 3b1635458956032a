import Foundation
import ShelfSQLite
import Synchronization
import Testing

/// A read whose task is cancelled stops at once (`sqlite3_interrupt`) instead of running to
/// its end: a superseded search kept a core busy for minutes.
@Suite("Read interruption", .timeLimit(.minutes(5)))
struct ReadInterruptionTests {
    /// Counts to ten billion: minutes of CPU if nothing stops it.
    static let endless =
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000000) SELECT count(*) FROM c"

    /// Set by a read when it begins, so the cancellation comes while it runs.
    final class Started: Sendable {
        private let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
        func set() { value.withLock { $0 = true } }
    }

    @Test func cancellingTheTaskInterruptsARunningRead() async throws {
        let database = try Database.temporary()
        let started = Started()
        let read = Task {
            try await database.read { connection in
                started.set()
                return try connection.fetchOne(Self.endless) { try $0.get(0, as: Int.self) }
            }
        }
        Self.cancel(read, once: started)
        // Ran to its end, it would return a count after minutes (past the time limit).
        await #expect(throws: CancellationError.self) { _ = try await read.value }
        #expect(started.isSet, "the read was running when it was cancelled")
        // The reader is free and reads again.
        let one = try await database.read { try $0.fetchOne("SELECT 1") { try $0.get(0, as: Int.self) } }
        #expect(one == 1)
    }

    @Test func readsMadeOnTheTaskOfAnInterruptibleOperationStopToo() async throws {
        let database = try Database.temporary()
        let started = Started()
        let read = Task {
            try await database.interruptibly {
                try database.read { connection in
                    started.set()
                    return try connection.fetchOne(Self.endless) { try $0.get(0, as: Int.self) }
                }
            }
        }
        Self.cancel(read, once: started)
        await #expect(throws: CancellationError.self) { _ = try await read.value }
        #expect(started.isSet)
        // A read after the cancellation, for the same operation, does not start.
        let interruption = ReadInterruption()
        interruption.cancel()
        #expect(throws: CancellationError.self) { try Self.readOne(database, during: interruption) }
        #expect(try Self.readOne(database, during: ReadInterruption()) == 1, "another operation reads")
    }

    /// Cancels `task` from a thread of its own, 100 ms after `started` is set (the read is
    /// running): a running read holds a cooperative thread until it ends, and two of them hold
    /// both of a small machine's (and the global dispatch queue's threads with them).
    static func cancel<T>(_ task: Task<T, any Error>, once started: Started) {
        let thread = Thread {
            let deadline = Date().addingTimeInterval(240)
            while !started.isSet, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
            Thread.sleep(forTimeInterval: 0.1)
            task.cancel()
        }
        thread.start()
    }

    /// `SELECT 1` on `database`, read while `interruption` is bound (synchronously).
    static func readOne(_ database: Database, during interruption: ReadInterruption) throws -> Int? {
        try ReadInterruption.$current.withValue(interruption) {
            try database.read { try $0.fetchOne("SELECT 1") { try $0.get(0, as: Int.self) } }
        }
    }

    @Test func aReadThatFinishedIsNotDisturbedByALateCancel() async throws {
        let database = try Database.temporary()
        let read = Task { try await database.read { try $0.fetchOne("SELECT 41 + 1") { try $0.get(0, as: Int.self) } } }
        let value = try await read.value
        read.cancel()
        #expect(value == 42)
        #expect(try await database.read { try $0.fetchOne("SELECT 2") { try $0.get(0, as: Int.self) } } == 2)
    }
}
