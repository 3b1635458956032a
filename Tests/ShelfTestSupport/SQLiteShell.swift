package import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `sqlite3` shell process on a database, fed statements through its standard input: a
/// second process that can hold locks, drop tables or commit while a test watches.
///
/// Started with posix_spawn, not Foundation's `Process`, whose `run()` crashed the test
/// process (a bad pointer in its environment copy) while other tests ran at the same time.
package final class SQLiteShell {
    private let child: ChildProcess
    private let input: Int32
    private let folder: URL
    private var inputClosed = false

    package init(path: String) throws {
        // A shell that has exited (-bail) makes the next write fail with EPIPE: let it be an
        // error, not a SIGPIPE that ends the whole test process.
        signal(SIGPIPE, SIG_IGN)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw ShellError(message: "cannot make a pipe") }
        defer { close(fds[0]) }
        do {
            child = try ChildProcess(
                "/usr/bin/sqlite3", ["-batch", "-bail", path], environment: ["PATH": "/usr/bin:/bin"],
                input: .descriptor(fds[0]), output: .file("/dev/null"))
        } catch {
            close(fds[1])
            throw error
        }
        input = fds[1]
    }

    package var pid: Int32 { child.pid }

    /// Sends `sql` and waits until the shell has run it (it touches a marker file after).
    package func run(_ sql: String, timeout: Duration = .seconds(120)) async throws {
        let marker = folder.appendingPathComponent(UUID().uuidString).path
        let bytes = Array("\(sql)\n.shell touch \(marker)\n".utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            guard count > 0 else { throw ShellError(message: "sqlite3 is gone; it did not run: \(sql)") }
            written += count
        }
        let deadline = ContinuousClock.now + timeout
        while !FileManager.default.fileExists(atPath: marker) {
            guard ContinuousClock.now < deadline, child.isRunning else {
                throw ShellError(message: "sqlite3 did not run: \(sql)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Ends the shell (closing its input) and waits for it.
    package func finish() {
        if !inputClosed {
            close(input)
            inputClosed = true
        }
        child.wait()
        try? FileManager.default.removeItem(at: folder)
    }

    deinit {
        if !inputClosed { close(input) }
        try? FileManager.default.removeItem(at: folder)
    }
}

package struct ShellError: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
    package init(message: String) { self.message = message }
}

/// Polls `condition` until it holds or `timeout` passes.
package func eventually(timeout: Duration = .seconds(120), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try condition()
}

/// A fresh folder for one test's files, removed by `remove()`.
package struct TemporaryFolder {
    package let url: URL

    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    package func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    package func remove() { try? FileManager.default.removeItem(at: url) }
}
