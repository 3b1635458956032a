package import Foundation

/// A child process started with posix_spawn and reaped with waitpid, its standard streams
/// connected to files.
///
/// Not Foundation's `Process`: on Linux it watches children and pipes with dispatch sources,
/// and with many tests spawning at once that crashed this suite in libdispatch's event loop,
/// and made a test wait ten minutes for a pipe a tmux server had inherited.
package final class ChildProcess {
    package let pid: pid_t
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments` and exactly `environment`. No other descriptor of
    /// this process reaches the child: one that outlives the test (a tmux server) would keep
    /// another test's pipe open, and one holding a file another test is writing makes that
    /// file fail to run ("Text file busy").
    /// Where the child's stdin comes from.
    package enum Input {
        /// A file, read from its start.
        case file(String)
        /// A descriptor of this process (a pipe's read end).
        case descriptor(Int32)
    }

    /// Where the child's stdout goes.
    package enum Output {
        /// A file, created or truncated.
        case file(String)
        /// A descriptor of this process (a pipe's write end, a file opened for appending).
        case descriptor(Int32)
        /// Nothing: descriptor 1 is closed, as `>&-` does.
        case closed
    }

    package convenience init(
        _ executable: String, _ arguments: [String], environment: [String: String], stdin: String = "/dev/null",
        stdout: String = "/dev/null", stderr: String = "/dev/null"
    ) throws {
        try self.init(
            executable, arguments, environment: environment, input: .file(stdin), output: .file(stdout),
            stderr: stderr)
    }

    package convenience init(
        _ executable: String, _ arguments: [String], environment: [String: String], stdin: String = "/dev/null",
        output: Output, stderr: String = "/dev/null"
    ) throws {
        try self.init(
            executable, arguments, environment: environment, input: .file(stdin), output: output, stderr: stderr)
    }

    package init(
        _ executable: String, _ arguments: [String], environment: [String: String], input: Input,
        output: Output, stderr: String = "/dev/null"
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        switch input {
        case .file(let path): posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
        case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, 0)
        }
        switch output {
        case .file(let path): posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, 1)
        case .closed: posix_spawn_file_actions_addclose(&actions, 1)
        }
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        for descriptor in Self.openDescriptors() where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        var cArguments = ([executable] + arguments).map { strdup($0) } + [nil]
        var cEnvironment = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        var pid = pid_t()
        // The tests ignore SIGPIPE; the child starts with every signal at its default and
        // none blocked, as from a shell. The mask matters: a child inherits the blocked
        // signals of the thread that spawns it, and threads of the test process (SwiftNIO's
        // among them, in the PostgreSQL build) block some, so a SIGTERM the test sent never
        // reached the child.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let status = posix_spawn(&pid, executable, &actions, &attributes, &cArguments, &cEnvironment)
        guard status == 0 else {
            throw CocoaError(
                .executableLoad, userInfo: [NSLocalizedDescriptionKey: "cannot start \(executable): \(status)"])
        }
        self.pid = pid
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            _ = wait()
        }
    }

    /// Waits for the end; the exit status, or 128 + the signal that ended it.
    @discardableResult
    package func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let decoded = Self.decode(status)
        exitStatus = decoded
        return decoded
    }

    package var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return true }
        exitStatus = Self.decode(status)
        return false
    }

    package func signal(_ number: Int32) {
        kill(pid, number)
    }

    private static func decode(_ status: Int32) -> Int32 {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Runs the sqlite3 shell on `database` with `sql`; its exit status.
    @discardableResult
    package static func sqlite3(_ database: String, _ sql: String) throws -> Int32 {
        try ChildProcess("/usr/bin/sqlite3", [database, sql], environment: ["PATH": "/usr/bin:/bin"]).wait()
    }

    /// The descriptors open in this process now.
    package static func openDescriptors() -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { Int32($0) }.filter { fcntl($0, F_GETFD) != -1 }
    }
}
