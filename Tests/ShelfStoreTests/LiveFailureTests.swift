import Foundation
import ShelfReactive
import ShelfSQLite
import ShelfTestSupport
import Synchronization
import Testing

@testable import ShelfSQLiteBackend
@testable import ShelfStore

/// Records every result a live property publishes.
final class LiveRecorder<Value: Sendable>: Sendable {
    let results = Locked<[LiveResult<Value>]>([])
    let token = Lifetime.Token()

    init(_ property: Property<LiveResult<Value>>) {
        let results = self.results
        property.observe(during: token.lifetime) { result in results.withLock { $0.append(result) } }
    }

    var last: LiveResult<Value>? { results.value.last }
    var failures: [StoreError] {
        results.value.compactMap { if case .failure(let error) = $0 { error } else { nil } }
    }
}

@Suite("Live values never fail silently")
struct LiveFailureTests {
    @Test func aTableRenamedAwayByAnotherProcessFailsThenRecovers() async throws {
        let fixture = try await Fixture()
        let path = try #require(fixture.store.path)
        let live = try await fixture.store.liveItems(matching: ItemQuery(), limit: 10)
        let recorder = LiveRecorder(live)
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }

        try await shell.run("ALTER TABLE items RENAME TO items_away;")
        #expect(await eventually { recorder.failures.count == 1 })
        #expect(recorder.failures.first?.message.contains("items") == true, "\(recorder.failures)")
        if case .failure = try #require(recorder.last) {} else { Issue.record("the failure is the current value") }

        // Put it back and commit a row: the retry (or the change) reads it.
        try await shell.run(
            "ALTER TABLE items_away RENAME TO items; INSERT INTO items (user_id, title, created_at, updated_at) VALUES (\(fixture.ann.rawValue), 'back', 0, 0);"
        )
        #expect(await eventually { (try? recorder.last?.get())?.totalCount == 1 })
        #expect(recorder.failures.count == 1, "a failure is published once, not once per retry")
    }

    @Test func aWriteLockHeldPastTheTimeoutDoesNotStopLiveQueries() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        do { _ = try Store(path: path) }  // created and migrated
        // Readers give up after 200 ms here: the lock below is held far longer.
        let store = try Store(
            database: Database(path: path, busyTimeout: .milliseconds(200), changeCounters: Store.changeCounterTable))
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        let recorder = LiveRecorder(try await store.liveItems(matching: ItemQuery(), limit: 10))
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }
        try await shell.run(
            "BEGIN IMMEDIATE; INSERT INTO items (user_id, title, created_at, updated_at) VALUES (\(ann.rawValue), 'pending', 0, 0);"
        )
        // WAL readers never wait for the writer: a re-run now (a schema-free commit by this
        // process is impossible, the lock is held; the safety check runs every second) reads
        // the last commit.
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(recorder.failures.isEmpty)
        #expect((try? recorder.last?.get())?.totalCount == 0)
        try await shell.run("COMMIT;")
        #expect(await eventually { (try? recorder.last?.get())?.items.map(\.title) == ["pending"] })
        #expect(recorder.failures.isEmpty)
    }

    @Test func aDeletedDatabaseFileIsAFinalFailure() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        let store = try Store(path: path)
        let recorder = LiveRecorder(try await store.liveItems(matching: ItemQuery(), limit: 10))
        try FileManager.default.removeItem(atPath: path)
        #expect(await eventually { recorder.failures.contains { $0.code == .fileReplaced } })
        #expect(recorder.failures.last?.message.contains("was deleted") == true)
        // New live queries on the store fail at once too: its connections read a ghost.
        await #expect(throws: StoreError.self) { _ = try await store.liveItems(matching: ItemQuery(), limit: 10) }
    }

    @Test func aDatabaseFileReplacedByAnotherIsAFinalFailure() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        let other = folder.path("other.sqlite")
        do {
            let replacement = try Store(path: other)
            _ = try await replacement.users.insert(NewUser(name: "Zed", email: "zed@example.com"))
        }
        let store = try Store(path: path)
        let recorder = LiveRecorder(try await store.liveUsers())
        #expect(rename(other, path) == 0)
        #expect(await eventually { recorder.failures.contains { $0.code == .fileReplaced } })
        #expect(recorder.failures.last?.message.contains("replaced") == true)
        #expect((try? recorder.last?.get()) == nil, "never the old file's users after the replacement")
    }

    @Test func aCommitWhoseFileEventWasMissedIsSeenThroughDataVersion() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        do { _ = try Store(path: path) }
        // No file events at all: only the periodic data_version check can notice.
        let store = try Store(
            database: Database(path: path, watchesFiles: false, changeCounters: Store.changeCounterTable))
        let recorder = LiveRecorder(try await store.liveUsers())
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }
        try await shell.run("INSERT INTO users (name, email, created_at) VALUES ('Eve', 'eve@example.com', 0);")
        #expect(await eventually { (try? recorder.last?.get())?.map(\.name) == ["Eve"] })
    }

    @Test func aWriteThatCannotGetTheLockNamesTheProcessHoldingIt() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        do { _ = try Store(path: path) }
        let store = try Store(
            database: Database(path: path, writeTimeout: .milliseconds(200), changeCounters: Store.changeCounterTable))
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }
        try await shell.run("BEGIN IMMEDIATE;")
        await #expect {
            try await store.items.insert(NewItem(userID: ann, title: "waits, then fails"))
        } throws: { error in
            guard let error = error as? StoreError, error.code == .busy else { return false }
            return error.message.contains("process \(shell.pid) (") && error.message.contains("sqlite3")
                && error.message.contains("kill \(shell.pid)")
        }
        try await shell.run("ROLLBACK;")
        _ = try await store.items.insert(NewItem(userID: ann, title: "after the lock"))
    }
}

@Suite("A database file moved or replaced under the process never mixes files")
struct MovedDatabaseTests {
    @Test func aMovedFileKeepsEveryCommitAndTheOldPathHasNoFramesLeft() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        let store = try Store(path: path)
        let recorder = LiveRecorder(try await store.liveUsers())
        for index in 0..<20 {
            _ = try await store.users.insert(NewUser(name: "U\(index)", email: "u\(index)@example.com"))
        }
        #expect(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0 > 0)
        let moved = folder.path("moved.sqlite")
        #expect(rename(path, moved) == 0)
        #expect(await eventually { recorder.failures.contains { $0.code == .fileReplaced } })
        // The frames went into the moved file; the WAL left at the old path is empty.
        #expect(
            await eventually {
                ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) == 0
            })
        #expect(try await Store(path: moved).users.users().count == 20, "the moved file is complete on its own")
        // Nothing more is written into the ghost.
        await #expect {
            _ = try await store.users.insert(NewUser(name: "Late", email: "late@example.com"))
        } throws: { ($0 as? StoreError)?.code == .fileReplaced }
    }

    @Test func aFileMovedOverTheDatabaseIsReadAsItselfByNewOpeners() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        let replacement = folder.path("replacement.sqlite")
        do {
            let other = try Store(path: replacement)
            _ = try await other.users.insert(NewUser(name: "Zed", email: "zed@example.com"))
        }
        let store = try Store(path: path)
        let recorder = LiveRecorder(try await store.liveUsers())
        for index in 0..<20 {
            _ = try await store.users.insert(NewUser(name: "U\(index)", email: "u\(index)@example.com"))
        }
        #expect(rename(replacement, path) == 0)
        #expect(await eventually { recorder.failures.contains { $0.code == .fileReplaced } })
        #expect(
            await eventually {
                ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) == 0
            })
        // A new opener (as another command would be) sees the new file only, whole.
        let fresh = try Store(path: path)
        #expect(try await fresh.users.users().map(\.email) == ["zed@example.com"])
        let check = try Connection(path: path, readOnly: true)
        defer { check.close() }
        #expect(try check.fetchOne("PRAGMA integrity_check", row: { try $0.string(0) }) == "ok")
        withExtendedLifetime(store) {}
    }
}

@Suite("The periodic check runs only while live queries exist")
struct PeriodicCheckTests {
    @Test func itStopsWithTheLastLiveQueryAndStartsWithTheNext() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        do { _ = try Store(path: path) }
        let sqlite = try SQLiteBackend(
            database: Database(path: path, watchesFiles: false, changeCounters: Store.changeCounterTable))
        let store = Store(sqlite: sqlite)
        let tracker = sqlite.database.changeTracker
        do {
            let first = LiveRecorder(try await store.liveUsers())
            #expect(tracker.isCheckingPeriodically)
            withExtendedLifetime(first) {}
        }
        #expect(await eventually { !tracker.isCheckingPeriodically }, "idle: no periodic work")

        // A new live query starts it again, and it still finds commits with no file event.
        let second = LiveRecorder(try await store.liveUsers())
        #expect(tracker.isCheckingPeriodically)
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }
        try await shell.run("INSERT INTO users (name, email, created_at) VALUES ('Eve', 'eve@example.com', 0);")
        #expect(await eventually { (try? second.last?.get())?.map(\.name) == ["Eve"] })
    }
}
