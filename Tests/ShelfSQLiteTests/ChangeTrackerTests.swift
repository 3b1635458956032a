import Foundation
import ShelfTestSupport
import Synchronization
import Testing

@testable import ShelfSQLite

/// The change tracker's second looks at file events, passes on committing tasks and the WAL
/// index, over the test schema of `DatabaseLiveQueryTests` (table `a` counted in `counts`).
@Suite("Change tracker: second looks at file events")
struct ChangeTrackerTests {
    let support = DatabaseLiveQueryTests()

    func insertIntoA(_ database: Database, _ value: Int) async throws {
        try await database.write { try $0.run("INSERT INTO a VALUES (?)", Int64(value)) }
    }

    @Test func ownCommitsNeedNoSecondLook() async throws {
        let database = try support.makeDatabase()
        let tracker = database.changeTracker
        let query = try support.countOfA(database)
        let writes = 20
        for index in 1...writes {
            try await insertIntoA(database, index)
            #expect(await eventually { query.value == Int64(index) })
            // Room for the file event of this commit to arrive on its own (no time bound).
            try await Task.sleep(for: .milliseconds(10))
        }
        // Let the last file events and any second looks they scheduled (at most 60 ms) run.
        try await Task.sleep(for: .milliseconds(300))
        await support.settle(database)
        // Before, every file event of an own commit found nothing new and was looked at twice
        // more (after 10 and 50 ms): at least two second looks a commit.
        #expect(tracker.followUpCount < writes, "\(tracker.followUpCount) second looks for \(writes) commits")
    }

    @Test func aCommitUnderWayInAnotherProcessIsLookedAtAgain() async throws {
        let database = try support.makeDatabase()
        let path = try #require(database.path)
        let tracker = database.changeTracker
        let query = try support.countOfA(database)
        let walIndex = WALIndexFile(databasePath: path)
        #expect(walIndex.writeLock() == .free)
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }
        try await shell.run("BEGIN IMMEDIATE;")
        #expect(walIndex.writeLock() == .heldElsewhere(pid: shell.pid))

        // A file event while the shell holds the lock: nothing new yet, so it is looked at again.
        let before = tracker.followUpCount
        let wal = open(path + "-wal", O_WRONLY | O_CLOEXEC)
        #expect(wal >= 0)
        close(wal)  // IN_CLOSE_WRITE; SQLite takes no lock on the -wal, so none is released
        #expect(await eventually { tracker.followUpCount > before })

        try await shell.run("INSERT INTO a VALUES (1); COMMIT;")
        #expect(await eventually { query.value == 1 })
        #expect(walIndex.writeLock() == .free)
    }

    /// A write returns once committed, whatever its observers cost: a live query whose re-run
    /// cannot finish until the write has returned must not hold the write (before, an async
    /// write that found the tracker idle ran the pass itself, and waited here for the full
    /// 10 s).
    @Test func aWriteReturnsBeforeItsObserversRun() async throws {
        let database = try support.makeDatabase()
        let returned = DispatchSemaphore(value: 0)
        let waitedInVain = Atomic<Bool>(false)
        let blocking = Atomic<Bool>(false)
        let query = try LiveQuery(database: database) { connection -> Int64 in
            let count = try connection.fetchOne("SELECT count(*) FROM a") { try $0.int64(0) } ?? 0
            if blocking.load(ordering: .relaxed), returned.wait(timeout: .now() + .seconds(10)) == .timedOut {
                waitedInVain.store(true, ordering: .relaxed)
            }
            return count
        }
        blocking.store(true, ordering: .relaxed)
        for index in 1...5 {
            try await insertIntoA(database, index)
            returned.signal()
            #expect(await eventually { query.value == Int64(index) })
        }
        let waited = waitedInVain.load(ordering: .relaxed)
        #expect(!waited, "a write waited for its observers to run")
    }

    @Test func deliveriesStayInOrderWithPassesOnCommittingTasks() async throws {
        let database = try support.makeDatabase()
        let query = try support.countOfA(database)
        let counts = Mutex<[Int64]>([])
        query.start(from: query.value) { outcome in
            if case .value(let count) = outcome { counts.withLock { $0.append(count) } }
        }
        // Writers on several tasks: passes run on whichever committing task finds the tracker
        // idle, others on the queue. Counts only grow, so deliveries in order only grow too.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for index in 0..<25 { try await insertIntoA(database, index) }
                }
            }
            try await group.waitForAll()
        }
        #expect(await eventually { counts.withLock { $0.last } == 100 })
        let seen = counts.withLock { $0 }
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "out of order or repeated: \(seen)")
    }

    @Test func aWriteFromInsideAPassOnTheCommittingTaskIsTrackedToo() async throws {
        let database = try support.makeDatabase()
        let query = try support.countOfA(database)
        // The observer writes (blocking) when it sees the first row: the pass delivering it
        // holds the tracker, so this commit's pass must go to the queue, not wait for itself.
        query.start(from: query.value) { outcome in
            guard case .value(1) = outcome else { return }
            _ = try? database.write { try $0.execute("INSERT INTO a VALUES (2)") }
        }
        try await insertIntoA(database, 1)
        #expect(await eventually { query.value == 2 })
    }

    @Test func theFileEventOfAnOwnCommitReadsNoCounters() async throws {
        let database = try support.makeDatabase()
        let tracker = database.changeTracker
        let query = try support.countOfA(database)
        let writes = 20
        for index in 1...writes {
            try await insertIntoA(database, index)
            #expect(await eventually { query.value == Int64(index) })
            // Room for the file event of this commit to arrive on its own (no time bound).
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(100))
        await support.settle(database)
        // Before, the file event of every own commit read the counters again, on a reader.
        #expect(tracker.externalReadCount < writes / 2, "\(tracker.externalReadCount) reads for \(writes) commits")
        // And most need no pass at all: they are settled on the watcher's thread.
        #expect(tracker.eventsWithoutPassCount > 0)
    }

    @Test func theWALChangeCounterMovesByOnePerCommitThatWrites() async throws {
        let database = try support.makeDatabase()
        let path = try #require(database.path)
        let walIndex = WALIndexFile(databasePath: path)
        let before = try #require(walIndex.changeCounter())
        try await insertIntoA(database, 1)
        #expect(walIndex.changeCounter() == before &+ 1)
        try await database.write { _ in }
        #expect(walIndex.changeCounter() == before &+ 1, "a transaction that wrote nothing moved it")
        let shell = try SQLiteShell(path: path)
        try await shell.run("INSERT INTO a VALUES (2);")
        shell.finish()
        #expect(walIndex.changeCounter() == before &+ 2)
    }

    @Test func anotherProcesssCommitAfterAnOwnCommitThatWroteNothingIsSeen() async throws {
        let database = try support.makeDatabase()
        let path = try #require(database.path)
        let query = try support.countOfA(database)
        // Tracked, but it writes no WAL frame: the change counter it predicted (the current
        // one plus one) is the one the shell's commit takes. Kept, it would hide that commit.
        try await database.write { _ in }
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }
        try await shell.run("INSERT INTO a VALUES (1);")
        #expect(await eventually { query.value == 1 })
    }

    @Test func commitsOfAnotherProcessBetweenOwnCommitsAreSeen() async throws {
        let database = try support.makeDatabase()
        let path = try #require(database.path)
        let query = try support.countOfA(database)
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }
        for index in 1...10 {
            try await insertIntoA(database, index)
            try await shell.run("INSERT INTO a VALUES (\(index));")
            #expect(await eventually { query.value == Int64(2 * index) })
        }
    }

    @Test func thisProcesssOwnWriteLockIsNotAnotherProcesss() async throws {
        let database = try support.makeDatabase()
        let path = try #require(database.path)
        let walIndex = WALIndexFile(databasePath: path)
        let seen = try await database.write { _ in walIndex.writeLock() }
        #expect(seen == .free)
    }
}
