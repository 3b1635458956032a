import Foundation
import ShelfTestSupport
import Testing

/// `shelf export … -o FIFO` when nobody reads the FIFO: it waits for a reader, and a signal
/// ends that wait at once, as it ends an import's wait for a FIFO's writer
/// (`ImportInputLimitsTests`).
@Suite struct ExportFIFOTests {
    let shelf: ShelfProcess

    init() throws {
        shelf = try ShelfProcess()
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aFIFONobodyReadsIsInterruptedAtOnce(_ signal: Int32) async throws {
        defer { shelf.cleanUp() }
        let users = shelf.folder.appendingPathComponent("users.csv").path
        try Data("name,email\nAnn,ann@example.com\n".utf8).write(to: URL(fileURLWithPath: users))
        #expect(try await shelf.run(["import", "users", users, "--quiet", "--db", shelf.databasePath]).status == 0)
        let fifo = shelf.folder.appendingPathComponent("out-\(UUID().uuidString).csv").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let errors = shelf.folder.appendingPathComponent("err-\(UUID().uuidString)").path
        let child = try ChildProcess(
            ShelfProcess.executable.path, ["export", "users", "-o", fifo, "--db", shelf.databasePath],
            environment: ["PATH": "/usr/bin:/bin"], input: .file("/dev/null"), output: .file("/dev/null"),
            stderr: errors)
        // Let it reach the FIFO's open: the store is open (the signal handlers are in place),
        // and a moment more.
        #expect(await ProcessWatch.waitUntil(child.pid, holds: shelf.databasePath), "the export opened the store")
        try await Task.sleep(for: .milliseconds(300))
        #expect(child.isRunning, "it waits for a reader")
        // Signalled and waited for on a thread of its own: the time is the child's, not this
        // process's (whose tasks may wait for a thread while the whole suite runs). Before the
        // fix it never ended: the bound is generous, for a loaded machine.
        let pid = child.pid
        let ended = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let sent = ContinuousClock.now
                kill(pid, signal)
                while ContinuousClock.now - sent < .seconds(10), !ProcessWatch.hasExited(pid) { usleep(2000) }
                continuation.resume(returning: ProcessWatch.hasExited(pid))
            }
        }
        #expect(ended, "it still waited for a reader 10 s after the signal")
        if !ended {
            // Let it go: a reader ends the wait.
            let reader = open(fifo, O_RDONLY | O_NONBLOCK)
            defer { if reader >= 0 { close(reader) } }
            _ = child.wait()
            return
        }
        #expect(child.wait() == 128 + signal)
        let error = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        // The FIFO was never opened: nothing reached it (no file is kept "as it was" there).
        #expect(error.contains("Interrupted: nothing was written to \(fifo)."), "\(error)")
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the FIFO is left as it was")
    }

    /// Issue 25: a FIFO given with `-o` whose reader stopped reading made the export exit 1
    /// ("cannot write to FIFO: Broken pipe"), while the same FIFO as stdout (`> FIFO`) or a
    /// stdout pipe (`| head`) ended quietly with 0. Both are pipes whose reader went away, which
    /// coreutils treat alike, silently: both now end as they do, by SIGPIPE (141; round 12: 0
    /// hid from `set -o pipefail` that the export was cut). (Failed before: `-o` exited 1 with
    /// that message; then both 0.)
    @Test(arguments: [true, false])
    func aFIFOWhoseReaderStopsEndsTheExportAsAStdoutPipeDoes(named: Bool) async throws {
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"]).status == 0
        )
        // Far more than a pipe holds (64 KiB), so the export is still writing when the reader goes.
        #expect(try await ChildProcess.sqlite3(db, CopyFixture.manyItems(20_000)) == 0)
        let fifo = shelf.folder.appendingPathComponent("out-\(UUID().uuidString).csv").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let errors = shelf.folder.appendingPathComponent("err-\(UUID().uuidString)").path
        // The reader first: it reads a little, then stops reading, on a thread of its own,
        // started before the spawn (its open waits for the writer; the child's open of a FIFO
        // as stdout waits for a reader before it runs, and the spawn waits for that). Not in a
        // Task: with both cases spawning at once on a 2-core machine, the spawns held every
        // thread of the cooperative pool and the readers' tasks never ran (CI hung).
        let (reading, delivered) = AsyncStream.makeStream(of: Int.self)
        Thread.detachNewThread {
            let reader = open(fifo, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = reader >= 0 ? Foundation.read(reader, &buffer, buffer.count) : -1
            if reader >= 0 { close(reader) }
            delivered.yield(count)
            delivered.finish()
        }
        let child = try ChildProcess(
            ShelfProcess.executable.path,
            ["export", "items", "--db", db, "--quiet"] + (named ? ["-o", fifo] : []),
            environment: ["PATH": "/usr/bin:/bin"], input: .file("/dev/null"),
            output: .file(named ? "/dev/null" : fifo), stderr: errors)
        var read = -1
        for await count in reading { read = count }
        #expect(read > 0, "the export wrote nothing into the FIFO")
        #expect(child.wait() == 128 + SIGPIPE)
        let error = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(error.isEmpty, "\(error)")
    }
}
