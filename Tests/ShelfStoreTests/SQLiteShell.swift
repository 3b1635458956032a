import Foundation

/// A `sqlite3` shell process on a database, fed statements through its standard input: a
/// second process that can hold locks, drop tables or commit while a test watches.
///
/// Started with posix_spawn, not Foundation's `Process`, whose `run()` crashed the test
/// process (a bad pointer in its environment copy) while other tests ran at the same time.
final class SQLiteShell {
    private let input: Int32
    let pid: pid_t
    private let folder: URL
    private var exited = false
    private var inputClosed = false

    init(path: String) throws {
        // A shell that has exited (-bail) makes the next write fail with EPIPE: let it be an
        // error, not a SIGPIPE that ends the whole test process.
        signal(SIGPIPE, SIG_IGN)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw ShellError(message: "cannot make a pipe") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        let arguments = ["/usr/bin/sqlite3", "-batch", "-bail", path]
        var cArguments = arguments.map { strdup($0) } + [nil]
        var cEnvironment: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        var pid = pid_t()
        let status = posix_spawn(&pid, arguments[0], &actions, &attributes, &cArguments, &cEnvironment)
        close(fds[0])
        guard status == 0 else {
            close(fds[1])
            throw ShellError(message: "cannot start sqlite3: \(status)")
        }
        self.pid = pid
        input = fds[1]
    }

    private var isRunning: Bool {
        guard !exited else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exited = true }
        return !exited
    }

    /// Sends `sql` and waits until the shell has run it (it touches a marker file after).
    func run(_ sql: String, timeout: Duration = .seconds(20)) async throws {
        let marker = folder.appendingPathComponent(UUID().uuidString).path
        let bytes = Array("\(sql)\n.shell touch \(marker)\n".utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(input, $0.baseAddress! + written, bytes.count - written) }
            guard count > 0 else { throw ShellError(message: "sqlite3 is gone; it did not run: \(sql)") }
            written += count
        }
        let deadline = ContinuousClock.now + timeout
        while !FileManager.default.fileExists(atPath: marker) {
            guard ContinuousClock.now < deadline, isRunning else {
                throw ShellError(message: "sqlite3 did not run: \(sql)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Ends the shell (closing its input) and waits for it.
    func finish() {
        if !inputClosed {
            close(input)
            inputClosed = true
        }
        if !exited {
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            exited = true
        }
        try? FileManager.default.removeItem(at: folder)
    }

    deinit {
        if !inputClosed { close(input) }
        if isRunning {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
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
