import Foundation
import ShelfSQLite
import Synchronization
import Testing

@Suite("Database")
struct DatabaseTests {
    let database: Database

    init() throws {
        database = try Database.temporary()
        try database.write { try $0.execute("CREATE TABLE t (x INTEGER NOT NULL)") }
    }

    func count(_ database: Database? = nil) throws -> Int {
        try (database ?? self.database).read {
            try $0.fetchOne("SELECT count(*) FROM t") { try $0.get(0, as: Int.self) }
        } ?? -1
    }

    @Test func usesWALWithForeignKeys() throws {
        let settings = try database.withWriter { connection in
            (
                try connection.fetchOne("PRAGMA journal_mode") { try $0.get(0, as: String.self) },
                try connection.fetchOne("PRAGMA foreign_keys") { try $0.get(0, as: Int.self) },
                try connection.fetchOne("PRAGMA synchronous") { try $0.get(0, as: Int.self) }
            )
        }
        #expect(settings.0 == "wal")
        #expect(settings.1 == 1)
        #expect(settings.2 == 1, "synchronous=NORMAL")
    }

    @Test func throwingWriteRollsBack() throws {
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try database.write { connection in
                try connection.run("INSERT INTO t VALUES (1)")
                throw Stop()
            }
        }
        #expect(try count() == 0)
    }

    @Test func savepointRollsBackOnlyTheInnerPart() throws {
        struct Stop: Error {}
        try database.write { connection in
            try connection.run("INSERT INTO t VALUES (1)")
            do {
                try connection.transaction {
                    try connection.run("INSERT INTO t VALUES (2)")
                    throw Stop()
                }
            } catch is Stop {}
            try connection.savepoint { try connection.run("INSERT INTO t VALUES (3)") }
        }
        let values = try database.read { try $0.fetch("SELECT x FROM t ORDER BY x") { try $0.get(0, as: Int.self) } }
        #expect(values == [1, 3])
    }

    @Test func readsProceedDuringALongWrite() async throws {
        try await database.write { try $0.run("INSERT INTO t VALUES (1)") }
        let insideWrite = DispatchSemaphore(value: 0)
        let finishWrite = DispatchSemaphore(value: 0)
        let database = self.database
        let writer = Thread {
            try? database.write { connection in
                try connection.run("INSERT INTO t VALUES (2)")
                insideWrite.signal()
                finishWrite.wait()
            }
        }
        writer.start()
        insideWrite.wait()
        // The write is open and uncommitted: a read neither waits for it nor sees it.
        let started = ContinuousClock.now
        #expect(try count() == 1)
        #expect(ContinuousClock.now - started < .seconds(1))
        finishWrite.signal()
        while try count() != 2 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(try count() == 2)
    }

    @Test func asyncReadsAndWritesRunConcurrently() async throws {
        let database = self.database
        try await withThrowingTaskGroup(of: Void.self) { group in
            for value in 0..<50 {
                group.addTask { try await database.write { try $0.run("INSERT INTO t VALUES (?)", value) } }
                group.addTask {
                    _ = try await database.read { try $0.fetch("SELECT x FROM t") { try $0.get(0, as: Int.self) } }
                }
            }
            try await group.waitForAll()
        }
        #expect(try count() == 50)
    }

    @Test func inMemoryDatabaseWorks() throws {
        let memory = try Database.inMemory()
        try memory.write { try $0.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1), (2);") }
        #expect(try count(memory) == 2)
    }

    @Test func temporaryDatabaseIsRemovedWhenReleased() throws {
        var temporary: Database? = try Database.temporary()
        let path = try #require(temporary?.path)
        try temporary?.write { try $0.execute("CREATE TABLE t (x)") }
        #expect(FileManager.default.fileExists(atPath: path))
        temporary = nil
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func refusesAFileThatIsNotADatabase() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-db-\(UUID().uuidString)").path
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: DatabaseError.self) { try Database(path: path) }
        #expect(error?.code == DatabaseError.notADatabase)
        #expect(error?.description.contains("backup") == true)
    }
}

@Suite("Background checkpoints")
struct CheckpointTests {
    @Test func commitsDoNotCheckpointButTheBackgroundDoes() throws {
        let database = try Database.temporary()
        let path = try #require(database.path)
        let autocheckpoint = try database.withWriter {
            try $0.fetchOne("PRAGMA wal_autocheckpoint") { try $0.get(0, as: Int.self) }
        }
        try database.write { try $0.execute("CREATE TABLE t (x BLOB)") }
        let blob = Data(repeating: 7, count: 3000)
        for _ in 0..<1500 {
            try database.write { try $0.run("INSERT INTO t VALUES (?)", blob) }
        }
        database.waitForBackgroundCheckpoint()
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(size > 2_000_000, "the rows reached the database file: a checkpoint ran (file is \(size) bytes)")
        #expect(autocheckpoint == 0, "the WAL hook replaced SQLite's automatic checkpoint")
    }

    /// A write of most of a big table (a bulk change) returns without copying its WAL back on
    /// the writer, even past the hard limit: the passive checkpoint does it after. A plain write
    /// past the hard limit still copies all of the WAL back before it returns, and the next
    /// commit starts it over.
    @Test func aWriteCheckpointingInBackgroundLeavesItsWALToThePassiveCheckpoint() throws {
        let database = try Database.temporary()
        let path = try #require(database.path)
        try database.write { try $0.execute("CREATE TABLE t (x BLOB)") }
        let blob = Data(repeating: 7, count: 3000)
        // 6,000 rows of 3,000 bytes: one commit of more than the hard limit's 4,000 pages.
        let fill = { (connection: Connection) throws in
            for _ in 0..<6000 { try connection.run("INSERT INTO t VALUES (?)", blob) }
        }
        let size = { (file: String) in
            (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        }
        try database.write(checkpointsInBackground: true) { try fill($0) }
        let walAfterCommit = size(path + "-wal")
        database.waitForBackgroundCheckpoint()
        #expect(walAfterCommit > 16_000_000, "the WAL was not emptied on the writer (\(walAfterCommit) bytes)")
        #expect(size(path) > 16_000_000, "the passive checkpoint copied the rows into the file (\(size(path)) bytes)")
        #expect(database.restartingCheckpoints.tried == 0)
        try database.write { try fill($0) }
        #expect(database.restartingCheckpoints == (1, 1), "a plain write past the hard limit restarted the WAL")
        try database.write { try $0.run("INSERT INTO t VALUES (?)", blob) }
        let frames = try walFrames(database)
        #expect(frames < 10, "the next commit started the WAL over (\(frames) frames in it)")
        #expect(size(path + "-wal") <= 16 << 20, "trimmed to the journal size limit (16 MiB)")
    }

    /// Frames in the WAL now (a passive checkpoint's report, on the writer).
    func walFrames(_ database: Database) throws -> Int64 {
        try database.withWriter { try $0.fetchOne("PRAGMA wal_checkpoint(PASSIVE)") { try $0.int64(1) } } ?? -1
    }
}

extension CheckpointTests {
    /// A reader holding one snapshot for long (a copy reads the store from one) keeps every
    /// restarting checkpoint on the writer from finishing, and each made the write wait
    /// `truncateWait` for it: tried at every 256 frames, a write in ten waited 100 ms during a
    /// copy (issue 25). While such a reader holds on they are tried less and less often.
    @Test func restartingCheckpointsBackOffWhileAReaderHoldsItsSnapshot() throws {
        let database = try Database.temporary()
        let path = try #require(database.path)
        try database.write { try $0.execute("CREATE TABLE t (x BLOB)") }
        let reader = try Connection(path: path, readOnly: true)
        defer { reader.close() }
        try reader.execute("BEGIN")
        #expect(try reader.fetchOne("SELECT count(*) FROM t") { try $0.int64(0) } == 0)
        let blob = Data(repeating: 7, count: 3000)
        // 400 commits of 40 rows, one page each: about 16,000 frames, 12,000 past the hard
        // limit, none of which the reader lets go. At every 256 frames that was 47 attempts.
        for _ in 0..<400 {
            try database.write { connection in
                for _ in 0..<40 { try connection.run("INSERT INTO t VALUES (?)", blob) }
            }
        }
        let attempts = database.restartingCheckpoints
        try reader.execute("COMMIT")
        #expect(attempts.tried >= 2 && attempts.tried <= 8, "\(attempts.tried) restarting checkpoints tried")
        #expect(attempts.finished == 0, "none finished while the reader held its snapshot")
        // Once the reader is gone, the next attempt finishes and the WAL starts over.
        database.waitForBackgroundCheckpoint()
        try database.write { connection in
            for _ in 0..<5000 { try connection.run("INSERT INTO t VALUES (?)", blob) }
        }
        #expect(database.restartingCheckpoints.finished == 1)
        try database.write { try $0.run("INSERT INTO t VALUES (?)", blob) }
        let frames = try walFrames(database)
        #expect(frames < 10, "the WAL started over once the reader had gone (\(frames) frames in it)")
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(wal <= 16 << 20, "the WAL was trimmed to the limit (\(wal) bytes)")
    }
}

/// Set around an async write to tell whether its body ran on the calling task (a task-local
/// value is visible there, not on the writer's thread).
enum WriteProbe {
    @TaskLocal static var onCallingTask = false
}

@Suite("Async writes")
struct AsyncWriteTests {
    let database: Database

    init() throws {
        database = try Database.temporary()
        try database.write { try $0.execute("CREATE TABLE t (x INTEGER NOT NULL)") }
    }

    func count() throws -> Int {
        try database.read { try $0.fetchOne("SELECT count(*) FROM t") { try $0.get(0, as: Int.self) } } ?? -1
    }

    /// Inserts `value` asynchronously; returns whether the body ran on the calling task.
    func insert(_ value: Int) async throws -> Bool {
        try await WriteProbe.$onCallingTask.withValue(true) {
            try await database.write { connection in
                try connection.run("INSERT INTO t VALUES (?)", value)
                return WriteProbe.onCallingTask
            }
        }
    }

    @Test func runsOnTheCallingTaskWhenNothingHoldsTheLock() async throws {
        #expect(try await insert(1), "no hop to the writer's thread")
        #expect(try count() == 1)
    }

    @Test func waitsOnTheWriterThreadForALockHeldElsewhere() async throws {
        let other = try Connection(path: try #require(database.path))
        defer { other.close() }
        try other.execute("BEGIN IMMEDIATE")
        let write = Task { try await insert(2) }
        // Not a time bound: gives a write that would not wait the chance to fail meanwhile.
        try await Task.sleep(for: .milliseconds(200))
        try other.execute("ROLLBACK")
        #expect(try await write.value == false, "it waited on the writer's thread, with the write timeout")
        #expect(try count() == 1)
        #expect(try await insert(3), "the next write, with the lock free, runs on the calling task again")
    }

    @Test func aThrowingBodyOnTheCallingTaskRollsBackAndFreesTheWriter() async throws {
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await database.write { connection in
                try connection.run("INSERT INTO t VALUES (1)")
                throw Stop()
            }
        }
        #expect(try count() == 0)
        #expect(try await insert(2))
        #expect(try count() == 1)
    }
}

@Suite("Database error hints")
struct DatabaseErrorHintTests {
    /// A read on a full disk fails growing the -shm (SQLITE_IOERR_SHMSIZE): the message says
    /// what that likely means, not only "disk I/O error".
    @Test(arguments: [4874, 5386, 778, 1034, 1546])
    func inputOutputErrorsOfAFullDiskSaySo(_ code: Int32) {
        let error = DatabaseError(extendedCode: code, message: "disk I/O error")
        #expect(error.description.contains("is the disk full"), "\(error.description)")
    }
}
