import Foundation

/// A `sqlite3` shell process on a database, fed statements through its standard input: a
/// second process that can hold locks, drop tables or commit while a test watches.
final class SQLiteShell {
    private let process = Process()
    private let input = Pipe()
    private let folder: URL

    init(path: String) throws {
        // A shell that has exited (-bail) makes the next write fail with EPIPE: let it be an
        // error, not a SIGPIPE that ends the whole test process.
        signal(SIGPIPE, SIG_IGN)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = ["-batch", "-bail", path]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    /// Sends `sql` and waits until the shell has run it (it touches a marker file after).
    func run(_ sql: String, timeout: Duration = .seconds(20)) async throws {
        let marker = folder.appendingPathComponent(UUID().uuidString).path
        try input.fileHandleForWriting.write(contentsOf: Data("\(sql)\n.shell touch \(marker)\n".utf8))
        let deadline = ContinuousClock.now + timeout
        while !FileManager.default.fileExists(atPath: marker) {
            guard ContinuousClock.now < deadline, process.isRunning else {
                throw ShellError(message: "sqlite3 did not run: \(sql)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Ends the shell (closing its input) and waits for it.
    func finish() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: folder)
    }
}

struct ShellError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(timeout: Duration = .seconds(20), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try condition()
}

/// A fresh folder for one test's files, removed by `remove()`.
struct TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
