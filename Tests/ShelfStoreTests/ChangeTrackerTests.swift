import Foundation
import ShelfReactive
import ShelfSQLite
import Testing

@testable import ShelfStore

@Suite("Change tracker: second looks at file events")
struct ChangeTrackerTests {
    @Test func ownCommitsNeedNoSecondLook() async throws {
        let fixture = try await Fixture()
        let tracker = fixture.store.database.changeTracker
        let live = try await fixture.store.liveItems(matching: ItemQuery(), limit: 10)
        let writes = 20
        for index in 1...writes {
            _ = try await fixture.store.items.insert(NewItem(userID: fixture.ann, title: "item \(index)"))
            #expect(await eventually { live.value.success?.totalCount == index })
            // Room for the file event of this commit to arrive on its own (no time bound).
            try await Task.sleep(for: .milliseconds(10))
        }
        // Let the last file events and any second looks they scheduled (at most 60 ms) run.
        try await Task.sleep(for: .milliseconds(300))
        await withCheckedContinuation { continuation in tracker.enqueue { continuation.resume() } }
        // Before, every file event of an own commit found nothing new and was looked at twice
        // more (after 10 and 50 ms): at least two second looks a commit.
        #expect(tracker.followUpCount < writes, "\(tracker.followUpCount) second looks for \(writes) commits")
    }

    @Test func aCommitUnderWayInAnotherProcessIsLookedAtAgain() async throws {
        let fixture = try await Fixture()
        let path = try #require(fixture.store.path)
        let tracker = fixture.store.database.changeTracker
        let live = try await fixture.store.liveItems(matching: ItemQuery(), limit: 10)
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

        try await shell.run(
            "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (\(fixture.ann.rawValue), 'shell', 0, 0); COMMIT;"
        )
        #expect(await eventually { live.value.success?.totalCount == 1 })
        #expect(walIndex.writeLock() == .free)
    }

    @Test func anAsyncWriteRunsItsPassOnItsOwnTaskWhenTheTrackerIsIdle() async throws {
        let fixture = try await Fixture()
        let tracker = fixture.store.database.changeTracker
        let live = try await fixture.store.liveItems(matching: ItemQuery(), limit: 10)
        var shownOnReturn = 0
        for index in 1...20 {
            // Room for the tracker to finish the file event of the last commit (no time bound:
            // a write that finds it busy hands its pass to the queue, as before).
            try await Task.sleep(for: .milliseconds(10))
            _ = try await fixture.store.items.insert(NewItem(userID: fixture.ann, title: "item \(index)"))
            if live.value.success?.totalCount == index { shownOnReturn += 1 }
        }
        #expect(await eventually { live.value.success?.totalCount == 20 })
        // Before, every pass ran on the tracker's queue, after the write had returned.
        #expect(tracker.passesOnCommittingThreadCount > 0)
        #expect(shownOnReturn > 0, "no write returned with its live value up to date")
    }

    @Test func deliveriesStayInOrderWithPassesOnCommittingTasks() async throws {
        let fixture = try await Fixture()
        let live = try await fixture.store.liveItems(matching: ItemQuery(), limit: 10)
        let token = Lifetime.Token()
        let counts = Locked<[Int]>([])
        live.observe(during: token.lifetime) { result in
            if let count = result.success?.totalCount { counts.withLock { $0.append(count) } }
        }
        // Writers on several tasks: passes run on whichever committing task finds the tracker
        // idle, others on the queue. Counts only grow, so deliveries in order only grow too.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for index in 0..<25 {
                        _ = try await fixture.store.items.insert(
                            NewItem(userID: fixture.ann, title: "writer \(writer) item \(index)"))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await eventually { live.value.success?.totalCount == 100 })
        let seen = counts.value
        #expect(seen.last == 100)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "out of order or repeated: \(seen)")
    }

    @Test func aWriteFromInsideAPassOnTheCommittingTaskIsTrackedToo() async throws {
        let fixture = try await Fixture()
        let database = fixture.store.database
        let ann = fixture.ann.rawValue
        let live = try await fixture.store.liveItems(matching: ItemQuery(), limit: 10)
        let token = Lifetime.Token()
        // The observer writes (blocking) when it sees the first item: the pass delivering it
        // holds the tracker, so this commit's pass must go to the queue, not wait for itself.
        live.observe(during: token.lifetime) { result in
            guard result.success?.totalCount == 1 else { return }
            _ = try? database.write { connection in
                try connection.execute(
                    "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (\(ann), 'from the observer', 0, 0)"
                )
            }
        }
        _ = try await fixture.store.items.insert(NewItem(userID: fixture.ann, title: "first"))
        #expect(await eventually { live.value.success?.totalCount == 2 })
    }

    @Test func theFileEventOfAnOwnCommitReadsNoCounters() async throws {
        let fixture = try await Fixture()
        let tracker = fixture.store.database.changeTracker
        let live = try await fixture.store.liveItems(matching: ItemQuery(), limit: 10)
        let writes = 20
        for index in 1...writes {
            _ = try await fixture.store.items.insert(NewItem(userID: fixture.ann, title: "item \(index)"))
            #expect(await eventually { live.value.success?.totalCount == index })
            // Room for the file event of this commit to arrive on its own (no time bound).
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(100))
        await withCheckedContinuation { continuation in tracker.enqueue { continuation.resume() } }
        // Before, the file event of every own commit read the counters again, on a reader.
        #expect(tracker.externalReadCount < writes / 2, "\(tracker.externalReadCount) reads for \(writes) commits")
        // And most need no pass at all: they are settled on the watcher's thread.
        #expect(tracker.eventsWithoutPassCount > 0)
    }

    @Test func theWALChangeCounterMovesByOnePerCommitThatWrites() async throws {
        let fixture = try await Fixture()
        let path = try #require(fixture.store.path)
        let walIndex = WALIndexFile(databasePath: path)
        let before = try #require(walIndex.changeCounter())
        _ = try await fixture.store.items.insert(NewItem(userID: fixture.ann, title: "one"))
        #expect(walIndex.changeCounter() == before &+ 1)
        try await fixture.store.database.write { _ in }
        #expect(walIndex.changeCounter() == before &+ 1, "a transaction that wrote nothing moved it")
        let shell = try SQLiteShell(path: path)
        try await shell.run(
            "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (\(fixture.ann.rawValue), 'shell', 0, 0);"
        )
        shell.finish()
        #expect(walIndex.changeCounter() == before &+ 2)
    }

    @Test func anotherProcesssCommitAfterAnOwnCommitThatWroteNothingIsSeen() async throws {
        let fixture = try await Fixture()
        let path = try #require(fixture.store.path)
        let live = try await fixture.store.liveItems(matching: ItemQuery(), limit: 10)
        // Tracked, but it writes no WAL frame: the change counter it predicted (the current
        // one plus one) is the one the shell's commit takes. Kept, it would hide that commit.
        try await fixture.store.database.write { _ in }
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }
        try await shell.run(
            "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (\(fixture.ann.rawValue), 'shell', 0, 0);"
        )
        #expect(await eventually { live.value.success?.totalCount == 1 })
    }

    @Test func commitsOfAnotherProcessBetweenOwnCommitsAreSeen() async throws {
        let fixture = try await Fixture()
        let path = try #require(fixture.store.path)
        let live = try await fixture.store.liveItems(matching: ItemQuery(), limit: 10)
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }
        for index in 1...10 {
            _ = try await fixture.store.items.insert(NewItem(userID: fixture.ann, title: "own \(index)"))
            try await shell.run(
                "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (\(fixture.ann.rawValue), 'shell \(index)', 0, 0);"
            )
            #expect(await eventually { live.value.success?.totalCount == 2 * index })
        }
    }

    @Test func thisProcesssOwnWriteLockIsNotAnotherProcesss() async throws {
        let fixture = try await Fixture()
        let path = try #require(fixture.store.path)
        let walIndex = WALIndexFile(databasePath: path)
        let seen = try await fixture.store.database.write { _ in walIndex.writeLock() }
        #expect(seen == .free)
    }
}
