import Foundation
import ShelfTestSupport
import Testing

/// `shelf import` against input that never ends or never comes: nesting without end, a FIFO
/// nobody writes to, a pipe that stalls.
@Suite struct ImportInputLimitsTests {
    let shelf: ShelfProcess

    init() throws {
        shelf = try ShelfProcess()
    }

    private func seed() async throws {
        let users = shelf.folder.appendingPathComponent("users.csv").path
        try Data("name,email\nAnn,ann@example.com\n".utf8).write(to: URL(fileURLWithPath: users))
        #expect(try await shelf.run(["import", "users", users, "--quiet", "--db", shelf.databasePath]).status == 0)
    }

    /// Feeds `prefix` and then `[` + newline without end to `shelf import items -`, until the
    /// import stops reading; returns its status, stderr and how many bytes it took.
    private func feedEndlessNesting(_ prefix: String, _ arguments: [String]) async throws -> (Int32, String, Int) {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let errors = shelf.folder.appendingPathComponent("err-\(UUID().uuidString)").path
        let child = try ChildProcess(
            ShelfProcess.executable.path,
            ["import", "items", "-", "--format", "json", "--db", shelf.databasePath] + arguments,
            environment: ["PATH": "/usr/bin:/bin"], input: .descriptor(descriptors[0]), output: .file("/dev/null"),
            stderr: errors)
        close(descriptors[0])
        let writer = descriptors[1]
        // Written on a thread of its own: the write blocks while the pipe is full.
        let written = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            Thread.detachNewThread {
                var total = 0
                let chunk = Array(prefix.utf8) + Array(repeating: Array("[\n".utf8), count: 32_768).flatMap { $0 }
                let deadline = ContinuousClock.now + .seconds(120)
                var first = true
                while ContinuousClock.now < deadline {
                    let bytes = first ? chunk : Array(chunk.dropFirst(prefix.utf8.count))
                    first = false
                    let count = bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
                    if count <= 0 { break }  // EPIPE: the import stopped reading
                    total += count
                }
                close(writer)
                continuation.resume(returning: total)
            }
        }
        let status = child.wait()
        return (status, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "", written)
    }

    @Test(arguments: [
        (#"[{"user":"ann@example.com","title":"x","notes":"#, [String]()),
        (#"[{"user":"ann@example.com","title":"x","extra":"#, ["--ignore-unknown"]),
    ])
    func endlessNestingStopsAtOnceWithItsPlace(_ prefix: String, _ arguments: [String]) async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let (status, error, written) = try await feedEndlessNesting(prefix, arguments)
        #expect(status == 1, "\(error)")
        // The 63rd bracket inside the record is the 65th level: line 63, after the prefix on line 1.
        #expect(error.contains("Error: stdin:63:1: values nested deeper than 64 levels"), "\(error)")
        #expect(error.contains("Nothing was imported"), "\(error)")
        // It stopped after reading a few buffers, not the endless stream: memory stayed bounded.
        #expect(written < 8 << 20, "\(written) bytes were read")
    }

    /// The store's items, as `items list` prints them.
    private var items: String {
        get async throws { try await shelf.run(["items", "list", "--db", shelf.databasePath]).output }
    }

    /// `shelf import items FIFO` whose writer (if `writes`) opens the FIFO, writes a header and
    /// a row and then stalls; `signal` must end it within a second, with 128 + the signal.
    private func interruptsAtOnce(signal: Int32, writes: Bool, standardInput: Bool) async throws {
        try await seed()
        let before = try await items
        let fifo = shelf.folder.appendingPathComponent("in-\(UUID().uuidString).csv").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let errors = shelf.folder.appendingPathComponent("err-\(UUID().uuidString)").path
        // Open for writing without waiting for the reader: O_RDWR on a FIFO never blocks.
        var writer: Int32 = -1
        if writes || standardInput { writer = open(fifo, O_RDWR) }
        defer { if writer >= 0 { close(writer) } }
        if writes {
            let text = "user,title\nann@example.com,Half\n"
            _ = text.withCString { write(writer, $0, strlen($0)) }
        }
        let child = try ChildProcess(
            ShelfProcess.executable.path,
            ["import", "items", standardInput ? "-" : fifo, "--format", "csv", "--db", shelf.databasePath],
            environment: ["PATH": "/usr/bin:/bin"], input: .file(standardInput ? fifo : "/dev/null"),
            output: .file("/dev/null"), stderr: errors)
        // Let it reach the read: the store is open (the signal handlers are in place), and a
        // moment more.
        #expect(await ProcessWatch.waitUntil(child.pid, holds: shelf.databasePath), "the import opened the store")
        try await Task.sleep(for: .milliseconds(300))
        #expect(child.isRunning)
        // Signalled and waited for on a thread of its own: the time is the child's, not this
        // process's (whose tasks may wait for a thread while the whole suite runs).
        let pid = child.pid
        let took = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let sent = ContinuousClock.now
                kill(pid, signal)
                // Exited: a zombie until it is waited for below.
                while ContinuousClock.now - sent < .seconds(20), !ProcessWatch.hasExited(pid) { usleep(2000) }
                continuation.resume(returning: ContinuousClock.now - sent)
            }
        }
        #expect(child.wait() == 128 + signal)
        // The bug held the exit for the store's 5 s close timeout; a prompt exit takes
        // milliseconds, so 4 s leaves room for a loaded machine and still tells them apart.
        #expect(took < .seconds(4), "it took \(took) to exit")
        let error = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(error.contains("Interrupted: nothing was imported; the database is unchanged."), "\(error)")
        #expect(try await items == before)
        #expect(!FileManager.default.fileExists(atPath: shelf.databasePath + "-wal"))
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aFIFONobodyWritesToIsInterruptedAtOnce(_ signal: Int32) async throws {
        defer { shelf.cleanUp() }
        try await interruptsAtOnce(signal: signal, writes: false, standardInput: false)
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aStalledFIFOIsInterruptedAtOnce(_ signal: Int32) async throws {
        defer { shelf.cleanUp() }
        try await interruptsAtOnce(signal: signal, writes: true, standardInput: false)
    }

    @Test func aStalledStandardInputIsInterruptedAtOnce() async throws {
        defer { shelf.cleanUp() }
        try await interruptsAtOnce(signal: SIGINT, writes: true, standardInput: true)
    }
}
