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
    /// What was started, for the message of a wait that gave up.
    private let executable: String
    private let arguments: [String]

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
        if let closeFrom = Self.addCloseFrom {
            // Closed in the child, whatever they are: a list of this process's descriptors taken
            // before the spawn misses a pipe another test's thread opens between the listing
            // and the spawn, and a child that outlives its test (a tmux server) then holds that
            // pipe open, so its reader never sees the end and waits forever.
            _ = closeFrom(&actions, 3)
        } else {
            for descriptor in Self.openDescriptors() where descriptor > 2 {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
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
        self.executable = executable
        self.arguments = arguments
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            _ = wait()
        }
    }

    /// Waits for the end; the exit status, or 128 + the signal that ended it. A child still
    /// running after `limit` is killed (SIGKILL, status 137) and said so on stderr: no test
    /// waits for ever on a child that hangs, and the run's log names it.
    @discardableResult
    package func wait(limit: Duration = .seconds(300)) -> Int32 {
        if let exitStatus { return exitStatus }
        let deadline = ContinuousClock.now + limit
        var pause: UInt32 = 1_000
        while isRunning {
            if ContinuousClock.now >= deadline {
                let line =
                    "ChildProcess: \(executable) \(arguments.joined(separator: " ")) (pid \(pid)) still "
                    + "running after \(limit); killed\n"
                try? FileHandle.standardError.write(contentsOf: Data(line.utf8))
                kill(pid, SIGKILL)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                let decoded = Self.decode(status)
                exitStatus = decoded
                return decoded
            }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
        return exitStatus ?? 0
    }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34 and later), which Swift's Glibc
    /// module does not declare; nil where the C library lacks it.
    private static var addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)?
    {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return nil }
        return unsafeBitCast(
            symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }

    package var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        let reaped = waitpid(pid, &status, WNOHANG)
        if reaped == -1, errno == ECHILD {
            exitStatus = 0  // reaped elsewhere: ended, status unknown (as a blocking waitpid gave)
            return false
        }
        guard reaped == pid else { return true }
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

    /// `sqlite3(_:_:)` for async code: waited for on a thread of its own, so the test does not
    /// hold one of the few cooperative threads while the child runs (under load, for seconds).
    @discardableResult
    package static func sqlite3(_ database: String, _ sql: String) async throws -> Int32 {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { () throws -> Int32 in try sqlite3(database, sql) })
            }
        }
    }

    /// What the sqlite3 shell prints for `sql` on `database`, without the last newline, waited
    /// for on a thread of its own. Throws when sqlite3 fails.
    package static func sqlite3Output(_ database: String, _ sql: String) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result { () throws -> String in
                        let out = NSTemporaryDirectory() + "sqlite3-out-\(UUID().uuidString)"
                        defer { unlink(out) }
                        let status = try ChildProcess(
                            "/usr/bin/sqlite3", [database, sql], environment: ["PATH": "/usr/bin:/bin"], stdout: out
                        ).wait()
                        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
                        guard status == 0 else {
                            throw CocoaError(
                                .fileReadUnknown,
                                userInfo: [NSLocalizedDescriptionKey: "sqlite3 exited \(status): \(sql)"])
                        }
                        return text.hasSuffix("\n") ? String(text.dropLast()) : text
                    })
            }
        }
    }

    /// The descriptors open in this process now.
    package static func openDescriptors() -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { Int32($0) }.filter { fcntl($0, F_GETFD) != -1 }
    }
}
